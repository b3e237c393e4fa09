/**
 * The intent of a question, apart from its subject: "why did we choose
 * sqlite" asks for a decision about sqlite, "what happened with the March
 * deploy" for an incident, "how do I rotate the keys" for a procedure, "who
 * owns billing" for an entity, "how did we fix it last time" for a recorded
 * session. Words of intent are not the subject: searched as terms, a rare
 * "choose" in a release checklist outranked the decision record whose title
 * names sqlite. So the search looks for the subject alone, and scoring
 * prefers the pages of the asked kind (retrieval/page-kind.ts). English
 * only; a question matching no pattern has no intent and is searched as
 * written.
 */
import { STOP_WORDS } from "../index/lex-query.ts";
import type { PageKind } from "./page-kind.ts";

/** What a question asks for besides its subject. */
export interface QuestionIntent {
  name:
    | "decision"
    | "incident"
    | "howto"
    | "permission"
    | "owner"
    | "repeat"
    | "requirement"
    | "overview"
    | "explain"
    | "location"
    | "setting"
    | "current"
    | "finding"
    | "why";
  /** The kinds of page that answer it, best first. */
  kinds: readonly PageKind[];
  /** The question without its words of intent; the question itself when nothing else is left. */
  subject: string;
  /**
   * The question asks what followed from a page it names ("what came out of
   * RFC-007"): the answer is a page derived from that one, not the page itself.
   */
  followsNamed?: true;
}

interface IntentRule {
  name: QuestionIntent["name"];
  kinds: readonly PageKind[];
  /** Whether the question asks this (on lower-cased, whitespace-collapsed text). */
  asks: RegExp;
  /**
   * Words that say only the intent, taken out of the searched subject. Verbs
   * only where nouns name pages: "decision" and "choice" stay ("the
   * node-22 decision", alias "database choice"); on the seed fixture,
   * taking them out cost automatic recall 2 points.
   */
  words: RegExp;
}

/**
 * In order: the first rule that matches is the intent. "how did we decide"
 * is a decision before it is a repeat; "how do I" after "who owns".
 */
const RULES: readonly IntentRule[] = [
  {
    name: "decision",
    kinds: ["decision"],
    asks: /\b(why (did|do|does|are|were|was|have|has|would|should|is) (we|i|you|they|the team|it|our)\b|why (we|not)\b|what (changed|did we change)|came out of|outcome of|(we )?ended up|why \S+ (and not|over|instead of|rather than|vs\.?|versus)\b|decid\w*|decision\w*|chose|choos\w*|chosen|choice|picked|pick (\S+ )?over|went with|go with|going with|opt(ed)? for|settled? on|rationale|trade-?offs?|instead of|rather than|versus|\bvs\.?( |$)|and not\b)/,
    words:
      /\b(came out( of)?|outcome of|decid(e|ed|es|ing)|chose|choos(e|es|ing)|chosen|picked|pick|went with|go with|going with|opt(ed)? for|settled? on|rationale|reasons?|reasoning|trade-?offs?|instead of|rather than|versus|vs|drop(ped)?|ditch(ed)?|abandon(ed)?|replac(e|ed|ing)|switch(ed)?( (to|from|away from|over to))?|mov(e|ed) (away from|off|to)|migrat(e|ed) (from|off|to)|stop(ped)? using|get rid of|got rid of)\b/gi,
  },
  {
    name: "finding",
    kinds: ["finding", "incident"],
    asks: /\b(what did (we|i|you) (find|learn|measure|see|conclude|discover)|our findings|led to|(do|does|did) (\S+ ){1,4}actually)\b/,
    words: /\b(find|found|findings|learn|learned|learnt|investigation|conclude|discover)\b/gi,
  },
  {
    name: "incident",
    kinds: ["incident"],
    asks: /\b(incidents?|outages?|post-?mortems?|post mortems?|sev-?[0-4]|downtime|went down|was down|what (went wrong|happened|broke|was wrong)|problems|(bit|bitten|burned|burnt) us|blew up|root cause|rca|degradation)\b/,
    words:
      /\b(incidents?|outages?|post-?mortems?|post mortems?|happened|went wrong|was wrong|problems|(bit|bitten|burned|burnt) us|blew up|root cause|rca|downtime|sev-?[0-4])\b/gi,
  },
  {
    name: "owner",
    kinds: ["entity"],
    asks: /\b(who('s| is) (responsible|in charge|on ?call)|who (owns|maintains|runs|manages|looks after|do i ask|to ask|should i ask)|owners?\b|ownership|maintainers?|point of contact)\b/,
    words:
      /\b(owns|owners?|owned|ownership|maintains|maintainers?|who runs|who manages|who looks after|(is|'s) responsible for|(is|'s) in charge of|point of contact|do i ask|should i ask|to ask)\b/gi,
  },
  {
    name: "repeat",
    kinds: ["session", "howto"],
    asks: /\b(last time|again|previously|have (i|we) (ever )?(done|fixed|run|seen|hit|handled|solved|tried)|did (i|we) (ever )?(do|fix|run|handle|solve|try)|how did (i|we)|how have (i|we))\b/,
    words: /\b(last time|again|previously|ever)\b/gi,
  },
  {
    // "do we still keep logs for 90 days", "are tides still computed on the
    // server": whether a rule or a choice holds today, which the current
    // requirement or decision says (a superseded one says what held before).
    name: "current",
    kinds: ["requirement", "decision"],
    asks: /\b((do|does|are|is) (\S+ ){1,4}still|we still)\b/,
    words: /\bstill\b/gi,
  },
  {
    // "can I log the patient's phone number", "can I make a field nullable":
    // asks whether a rule allows it first, then how.
    name: "permission",
    kinds: ["requirement", "howto"],
    asks: /^(can|may) (i|we) /,
    words: /^$/g,
  },
  {
    name: "howto",
    kinds: ["howto"],
    asks: /\b(how (do|can|should|would|shall) (i|we|you|one)|how to|what to do|what (should|do) (i|we) do|can (i|we) |is it (safe|ok|okay) to|steps? (to|for)|runbook|playbook|procedure|instructions|walk me through|is there a (guide|runbook|checklist))\b/,
    words: /\b(runbooks?|playbooks?|step by step|walk me through)\b/gi,
  },
  {
    // "what is sync.max_clock_drift set to": a setting's value is on the
    // page of the component that owns it, not on a concept that mentions it.
    name: "setting",
    kinds: ["entity", "requirement"],
    asks: /\b((is|are) (\S+ ){1,4}(set|configured) (to|as)|what('s| is) the (default|value) (of|for)|default value|how many (\S+ ){1,3}(does|do) .+ have\W*$)/,
    words: /\b((set|configured) (to|as)|value of|value for)(?=\W*$|\W)/gi,
  },
  {
    // "how long does the gateway wait", "how often does the site controller
    // recompute", "how much is pro yearly": a figure of a component, on its
    // page; a rule ("how long do we keep", "must we", "have to") is a requirement.
    name: "setting",
    kinds: ["entity", "requirement"],
    asks: /^(after )?how (long|often|many|much|fast|soon) (does|do|did|is|are|was|were) (?!(we|i|you|they|someone|somebody|anyone|users?|people)\b)(?!.*\b(must|have to|has to|need to|needs to|should|allowed|kept|keep|cost|costs|spend)\b)/,
    words: /\b(?<=how )(long|many|much|often|soon|fast)\b/gi,
  },
  {
    name: "requirement",
    kinds: ["requirement"],
    asks: /\b(how (long|many|much|often|soon|fast)|requirements?|slos?|slas?|what is the limit|what's the limit|allowed to)\b/,
    words: /\b(requirements?|(?<=how )(long|many|much|often|soon)|allowed to)\b/gi,
  },
  {
    name: "overview",
    kinds: ["overview"],
    asks: /\b(big picture|overview|high[- ]level|at a glance|fits? together|put together|bird'?s[- ]eye)\b/,
    words:
      /\b(big picture|overview|high[- ]level|at a glance|fits? together|put together|bird'?s[- ]eye( view)?|give me)\b/gi,
  },
  {
    // "where do build logs go": the closing verb asks where, it names nothing
    // ("go" is a language on a fifth of a team's pages).
    name: "location",
    kinds: ["entity", "concept"],
    asks: /^where (do|does|did|should|will|would|can) .+ (go|end up|live|land|get stored|get sent)\W*$/,
    words: /\b(go|end up|live|land|get stored|get sent)(?=\W*$)/gi,
  },
  {
    name: "explain",
    kinds: ["concept", "entity"],
    asks: /(\bhow (does|do|did) .+ work\b|^(what is|what are|what's|whats) |\bexplain\b|\bmeaning of\b|\bdefine\b|\bdefinition of\b)/,
    words: /\b(works?(?=\W*$)|explain|meaning of|define|definition of)\b/gi,
  },
  {
    // Any other "why": a rationale, or what went wrong.
    name: "why",
    kinds: ["decision", "incident"],
    asks: /\bwhy\b/,
    words: /\bwhy\b/gi,
  },
];

/**
 * Words a question uses to ask, not to name: "how long can someone edit
 * offline" is about editing offline, and a page that happens to say
 * "someone" is no closer to it. Out of the searched subject when a subject
 * word is left.
 */
const FILLER =
  /\b(ok|okay|good|great|nice|cool|sure|yes|yeah|yep|no|nope|fine|lgtm|perfect|awesome|thanks|thank|looks|look|hmm|well|alright|whats|hows|wheres|whos|someone|somebody|everyone|everybody|people|folks|thing|things|stuff|get|gets|getting|got|know|tell|want|wants|need|needs|please|actually|really|basically|exactly|also|still|even|something|anything|everything|currently|now)\b/gi;

/**
 * Words past which a question is a description, not a question to memory:
 * its words of intent and filler stay in the search (Cranfield's long
 * queries lost 0.002 nDCG@10 without them; the natural questions are
 * shorter).
 */
const LONG_QUESTION_WORDS = 14;

/** Whether `text` holds a word that is not a stop word. */
function hasSubject(text: string): boolean {
  for (const word of text.match(/[\p{L}\p{N}]+/gu) ?? []) if (!STOP_WORDS.has(word)) return true;
  return false;
}

/** `query` without the words `pattern` takes out, or undefined when no subject word is left. */
function without(query: string, pattern: RegExp): string | undefined {
  // Out of the query as written: case tells a camelCase name's words apart.
  const rest = query.replace(pattern, " ").replace(/\s+/g, " ").trim();
  return hasSubject(rest.toLowerCase()) ? rest : undefined;
}

/** How a question reads: its intent, if it asks for a kind of page, and its subject. */
export interface QuestionRead {
  intent?: QuestionIntent;
  /** The words to search: the question without its words of intent and filler. */
  subject: string;
  /**
   * An instruction to do something ("write a prometheus alert for kafka
   * lag", "move the producer setup into its own package"), not a question
   * to memory: unasked, only a page it names is recalled for it.
   */
  instruction?: true;
}

/** "What came out of the review", "the outcome of RFC-005": what a named page led to. */
const FOLLOWS = /\b(came out of|comes? out of|outcome of|results? of|resulted from)\b/;

/** Verbs that open an instruction whatever follows them. */
const COMMANDS =
  "write|add|move|deploy|revert|rename|delete|remove|fix|update|configure|install|implement|refactor|convert|generate|create|make|turn|pin|migrate|rewrite|replace|suggest|recommend|draft|translate|optimize|optimise|set up|setup|scaffold|bump|upgrade|downgrade|enable|disable|wrap|extract|rebase|squash|stash|cherry-pick|clean up|speed up|show me how|help me|can you|could you|would you|please";
/** Verbs that are also nouns ("test passes locally…", "cache ttl"): an instruction only before an object. */
const VERB_NOUNS =
  "test|port|cache|log|build|run|sort|check|list|use|merge|split|change|print|profile|benchmark|debug|mock|explain|review|document|format|lint|parse|validate|compare|increase|reduce";
const INSTRUCTION = new RegExp(
  `^(?:(?:${COMMANDS})\\b|(?:${VERB_NOUNS}) (?:the|a|an|this|that|these|those|my|our|it|all|some|every|each|me|us|them|up|out|why|how|what|which|whether|if)\\b)`,
);

/**
 * Reads `query` (normalised): its intent and the subject to search for.
 * `whole` is the question as asked when `query` is it without its time
 * words: the intent is read there, where "what came out of the Q3 review"
 * still says "came out of".
 */
export function readQuestion(query: string, whole: string = query): QuestionRead {
  const lower = (s: string) =>
    s
      .toLowerCase()
      .replace(/[\u2018\u2019\u02bc]/g, "'")
      .replace(/\s+/g, " ");
  const text = lower(query);
  const asks = lower(whole);
  const rule = RULES.find((r) => r.asks.test(asks));
  // A long prompt describes what it needs in every word it uses: searched whole.
  const long = (text.match(/[\p{L}\p{N}]+/gu) ?? []).length > LONG_QUESTION_WORDS;
  const asked = rule && !long ? (without(query, rule.words) ?? query) : query;
  const subject = long ? asked : (without(asked, FILLER) ?? asked);
  const read: QuestionRead = rule
    ? { intent: { name: rule.name, kinds: rule.kinds, subject }, subject }
    : { subject };
  if (read.intent?.name === "decision" && FOLLOWS.test(asks)) read.intent.followsNamed = true;
  // "… what we know about X", "… our notes on Y": asks memory, however it opens.
  if (INSTRUCTION.test(text.trim()) && !/\b(what we know|our notes)\b/.test(text))
    read.instruction = true;
  return read;
}

/** The intent of `query` (normalised), or undefined when it asks for no kind of page. */
export function questionIntent(query: string): QuestionIntent | undefined {
  return readQuestion(query).intent;
}
