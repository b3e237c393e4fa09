/**
 * The SentencePiece-style vocabulary shared by the tiny test models, and the
 * deterministic word vectors they are built from.
 *
 * llama.cpp's SPM tokenizer only merges adjacent pieces whose concatenation is
 * in the vocabulary, so every word is stored with all of its prefixes: a word
 * grows left to right from its first letter and stops where the vocabulary
 * ends ("searching" becomes "▁search" + "in" "g"). Words are stored lower-case
 * and capitalised, bare (Markdown puts words after newlines and punctuation,
 * where SPM sees no "▁") and as one "▁word" token that the space joins last.
 */
import { mulberry32 } from "./mulberry32.ts";

/** llama.cpp token types (LLAMA_TOKEN_TYPE_*). */
export const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;

/** What a token means to the model builders. */
export type TokenKind = "special" | "byte" | "char" | "piece" | "word" | "stop" | "line";

/** One vocabulary entry. `word` is the lower-case word a word/stop token stands for. */
export interface VocabToken {
  text: string;
  type: number;
  score: number;
  kind: TokenKind;
  word?: string;
}

/** Token list plus the ids the model builders need. */
export interface Vocab {
  tokens: VocabToken[];
  unk: number;
  bos: number;
  eos: number;
  /** Separates document from query in the reranker's template. */
  querySep: number;
  /** Last token of the reranker's template: the position that is scored. */
  scoreEnd: number;
  /** The one line the generator emits. */
  line: number;
}

/** Marker SPM uses for a space. */
export const SPACE = "\u2581";

/** The generator's whole answer, as one token: a line that QMD's grammar accepts. */
export const GENERATOR_LINE = "lex: -\n";

/**
 * Words that carry no meaning for retrieval. QMD wraps every text it embeds
 * in "task: search result | query: …" or "title: … | text: …"; those words
 * are here too, or every query would look alike.
 */
const STOP_WORDS = `
a about above after again all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each few for from further had
has have having he her here hers him his how i if in into is it its itself just like may me
might more most must my no nor not now of off on once only or other our ours out over own same
shall she should so some such than that the their theirs them then there these they this those
through to too under until up upon us very via was we were what when where which while who whom
why will with would yet you your yours
task search result query title text none
`;

/** Content words: the vocabulary of a coding agent's notes, plus everyday nouns and verbs. */
const CONTENT_WORDS = `
access account action adapter add address admin agent agents alert algorithm alias allocate
analysis analytics android api app apple application approach architecture archive argument
array article artifact assert async attribute audit auth authentication authorization automate
availability avoid aws backend backup balance bandwidth bank base bash batch benchmark binary
bird bit blob block blog body book boolean boot branch break browser bucket buffer bug build
builder bundle button byte cache calendar call callback camera cancel capacity car card case
cat catalog certificate chain change changelog channel character chart chat check checkout
child chunk city class clean cli click client clock clone close cloud cluster code coffee
collection column command comment commit compile compiler component compose compress compute
concurrency condition config configuration connect connection console constant consumer
container content context contract controller convert cookie copy core cost count country
coverage cpu crash create credential cron css csv currency cursor customer daemon dashboard
data database date deadline debug decode default delete dependency deploy deployment design
detect developer device diagram dictionary diff directory disk dispatch display distributed
dns doc docker document documentation dog domain download draft driver drop dump duration
dynamic edge edit editor email embed embedding empty enable encode encrypt encryption endpoint
engine entity entry enum environment error event exception exec execute exit expand expansion
experiment export expression extension factory failure fallback family fast feature feed fetch
field file filter fish fix flag float flow folder font food format forward framework frontend
function game garbage gate gateway generate generator git github global go goal golang google
grammar graph grid group guard guide handler hash header health heap heartbeat help history
home hook host hotfix html http https icon identity image implement import incident index
infrastructure init inline input insert install instance integer integration interface
internal invoice issue item iterator java javascript job join json jwt kernel key keyboard
kubernetes label lambda language latency launch layer layout lazy leak learn library license
limit line link lint linux list listener load local lock log logger login logout loop machine
mail main maintenance manager manifest map mapping markdown match matrix memory merge message
meta metadata method metric middleware migrate migration mobile mock model module monitor
monorepo mount music mutation mutex name namespace native network node note notebook
notification null number object observer offline offset onboarding open operator optimize
option order origin outage output owner package page pagination panic parameter parse parser
partition password patch path pattern payload payment performance permission persist pipeline
plan platform plugin pod pointer policy poll pool port post postgres prefix preview price
primary print priority private process processor product production profile program project
prompt property protocol provider proxy public publish pull push python queue race rank rate
react read reader rebase record recovery recursion redis refactor reference refresh region
register registry regression release remote render replica replication repo repository request
require reset resolve resource response rest restart restore retry return review role rollback
root rotate route router row rule runtime rust sandbox save scale scan schedule schema scope
score screen script sdk secret secure security seed select semantic send server service session
setting setup shard share shell signal signature sitemap size snapshot socket software sort
source span spec sql ssh ssl stack staging state static status storage store stream string
struct style subscription summary support swap switch symbol sync syntax system table tag
target team template tenant terminal test testing thread throttle ticket timeout timer timestamp
tls token tool trace transaction transform tree trigger tsconfig type typescript ui unicode unit
update upgrade upload uri url usage user utf validate validation value variable vault vector
version video view virtual volume vote wallet watch weather web webhook wiki window worker
workflow workspace wrapper write yaml zone
`;

const splitWords = (list: string): string[] => list.split(/\s+/).filter((w) => w.length > 0);

/** The lower-case content words the models know, in a stable order. */
export const contentWords: readonly string[] = [...new Set(splitWords(CONTENT_WORDS))].sort();
/** The lower-case stop words the models know, in a stable order. */
export const stopWords: readonly string[] = [...new Set(splitWords(STOP_WORDS))].sort();

const capitalise = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);

/**
 * Builds the vocabulary. With `words: false` it holds only specials, bytes and
 * single characters: enough for the generator, whose input does not matter.
 */
export function buildVocab(options: { words: boolean }): Vocab {
  const tokens: VocabToken[] = [];
  const add = (t: VocabToken): number => tokens.push(t) - 1;
  const special = (text: string, type: number): number =>
    add({ text, type, score: 0, kind: "special" });

  const unk = special("<unk>", TOKEN_TYPE.unknown);
  const bos = special("<s>", TOKEN_TYPE.control);
  const eos = special("</s>", TOKEN_TYPE.control);
  const querySep = special("<|query|>", TOKEN_TYPE.control);
  const scoreEnd = special("<|score|>", TOKEN_TYPE.control);

  // Byte fallback: llama.cpp looks these up by name for any character it cannot place.
  for (let b = 0; b < 256; b++) {
    const text = `<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`;
    add({ text, type: TOKEN_TYPE.byte, score: 0, kind: "byte" });
  }
  const chars = [SPACE];
  for (let c = 0x21; c < 0x7f; c++) chars.push(String.fromCharCode(c));
  for (const text of chars) add({ text, type: TOKEN_TYPE.normal, score: 0, kind: "char" });

  // Unreachable by the tokenizer (its prefixes are not in the vocabulary), so
  // it only ever appears when the generator emits it.
  const line = add({
    text: GENERATOR_LINE.replaceAll(" ", SPACE),
    type: TOKEN_TYPE.normal,
    score: 0,
    kind: "line",
  });

  if (options.words) {
    const pieces = new Map<string, { kind: TokenKind; word?: string; score: number }>();
    const addWord = (word: string, kind: "word" | "stop") => {
      for (const variant of [word, capitalise(word)]) {
        // Longer pieces outrank shorter ones, so a word grows from its first
        // letter and beats merges that start inside it.
        for (let end = 2; end <= variant.length; end++) {
          const text = variant.slice(0, end);
          if (end === variant.length) pieces.set(text, { kind, word, score: end });
          else if (!pieces.has(text)) pieces.set(text, { kind: "piece", score: end });
        }
        // The lowest merge score: "▁" joins a word only once the word is whole,
        // so "▁database" never stops at "▁data".
        pieces.set(SPACE + variant, { kind, word, score: 1 });
      }
    };
    for (const w of stopWords) addWord(w, "stop");
    for (const w of contentWords) addWord(w, "word");
    for (const text of [...pieces.keys()].sort()) {
      const info = pieces.get(text);
      if (info) add({ text, type: TOKEN_TYPE.normal, ...info });
    }
  }

  return { tokens, unk, bos, eos, querySep, scoreEnd, line };
}

/** 32-bit FNV-1a: a stable seed per word. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * A deterministic unit vector for a word. Only +, *, / and sqrt are used (no
 * sin/log), because those are exactly rounded in IEEE 754 and so give the same
 * bytes on every machine and Node version.
 */
export function wordVector(word: string, dims: number): Float64Array {
  const next = mulberry32(fnv1a(word));
  const v = new Float64Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    const x = next() * 2 - 1;
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}
