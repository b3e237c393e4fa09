/**
 * A question about a time and nothing else: "what did we decide last
 * week", "what happened in Q3", "any incidents since the v2 release". Once
 * the time words are out, what is left is question words and at most the
 * kind of page asked for ("decide" → decisions); no word names a subject.
 * The search has nothing specific to find for such a question (automatic
 * recall's evidence gate rightly rejects "decide"), yet the window and the
 * type say exactly which pages answer it: the vault's pages of that type
 * dated inside the window. A prompt with any word of its own ("fix what
 * broke yesterday in the parser") is no such question and is searched as
 * usual.
 */

import { type PageKind, pageKinds } from "../retrieval/page-kind.ts";
import type { RetrievalHit, RetrievalVault, TraceStep } from "../retrieval/retrieval-types.ts";
import type { RecallPolicy } from "../retrieval-policy.ts";
import type { PageMeta } from "../vault/page.ts";
import { inWindow, type TimeWindow } from "./time-window.ts";
import { windowPreference } from "./window-preference.ts";

/** What a time question asks for besides its window. */
export interface TimeQuestion {
  /** The page types asked for; absent: any type ("what happened last week"). */
  types?: ReadonlySet<string>;
}

/** Words that ask, point or stand for "we did something", and name no subject. */
const QUESTION_WORDS = new Set(
  (
    "what whats what's which when who whom anything something everything all any " +
    "did do does done doing have has had was were is are be been being will " +
    "we i you they us our ours my me it its there that this these those the a an " +
    "so far about on of for to in at again please can could would should " +
    "remind tell show list recap summarize summarise summary give " +
    "get got make made happen happened happening change changed changes " +
    "work worked working ship shipped go went new up add added " +
    "write wrote written record recorded come came post"
  ).split(" "),
);

/** Words that name the kind of page asked for, by page type. */
const TYPE_WORDS: ReadonlyArray<[string, string[]]> = [
  [
    "decision",
    "decide decided decides deciding decision decisions agree agreed choose chose chosen settle settled conclude concluded adr adrs choice choices".split(
      " ",
    ),
  ],
  ["insight", "learn learned learnt insight insights lesson lessons".split(" ")],
  ["observation", "observe observed observation observations notice noticed".split(" ")],
  ["retro", "retro retros retrospective retrospectives".split(" ")],
  ["source", "source sources ingest ingested capture captured".split(" ")],
  ["note", "note notes noted".split(" ")],
  [
    "incident",
    "incident incidents outage outages postmortem postmortems mortem mortems downtime sev sevs degradation degradations broke broken wrong failure failures".split(
      " ",
    ),
  ],
  ["meeting", "meeting meetings met discuss discussed".split(" ")],
];
const TYPE_OF = new Map(TYPE_WORDS.flatMap(([type, words]) => words.map((w) => [w, type])));
/** The kind of page (retrieval/page-kind.ts) an asked type also takes in. */
const KIND_OF_TYPE = new Map<string, PageKind>([
  ["decision", "decision"],
  ["incident", "incident"],
]);

/**
 * The time question `rest` (a query without its time words) asks, or
 * undefined when a word of it names a subject, or it has no word at all.
 */
export function timeQuestion(rest: string): TimeQuestion | undefined {
  const words = rest
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .map((w) => w.replace(/^'+|'+$/g, ""))
    .filter((w) => w !== "");
  if (words.length === 0) return undefined;
  const types = new Set<string>();
  for (const word of words) {
    const type = TYPE_OF.get(word);
    if (type) types.add(type);
    else if (!QUESTION_WORDS.has(word)) return undefined;
  }
  return types.size > 0 ? { types } : {};
}

/** The answer to a time question and what admitting it took. */
export interface TimeAnswer {
  hits: RetrievalHit[];
  trace: TraceStep;
}

/**
 * The hits of a time question: the pages of the asked type dated inside the
 * window first — those the search found in their order, then the others
 * newest first — then, for explicit recall only, the search's other
 * hits; at most `policy.maxResults`.
 * A page the search did not find enters at the policy's floor: it answers
 * by its date and type, not its words. Deprecated pages are left out.
 */
export function answerTimeQuestion(
  vaults: readonly RetrievalVault[],
  window: TimeWindow,
  question: TimeQuestion,
  found: readonly RetrievalHit[],
  policy: RecallPolicy,
  explain: boolean,
): TimeAnswer {
  const started = performance.now();
  // "Decisions" are the pages that record one, whatever their type: an ADR
  // kept as a synthesis, an outage review kept as an analysis.
  const asked = (page: PageMeta) => {
    const types = question.types;
    if (!types || types.has(page.type.toLowerCase())) return true;
    const kinds = pageKinds(page);
    return [...types].some((t) => {
      const kind = KIND_OF_TYPE.get(t);
      return kind !== undefined && kinds.has(kind);
    });
  };
  const key = (vault: string, id: string) => `${vault}:${id}`;
  const inside = new Map<string, { hit: RetrievalHit; date: string }>();
  const admitted: Array<{ hit: RetrievalHit; date: string }> = [];
  for (const vault of vaults) {
    if (vault.kind === "personal" && !policy.includePersonal) continue;
    for (const [id, page] of vault.pages) {
      const dated = vault.dates?.get(id);
      if (!dated || !inWindow(dated.date, window) || !asked(page)) continue;
      if (page.status === "deprecated") continue;
      const hit: RetrievalHit = {
        id,
        vault: vault.kind,
        title: page.title,
        type: page.type,
        role: page.role,
        score: policy.minScore,
        confidence: policy.minScore,
        exact: false,
        named: false,
        source: "fts",
      };
      if (explain) hit.why = { time: windowPreference(dated, window) };
      inside.set(key(vault.kind, id), { hit, date: dated.date });
      admitted.push({ hit, date: dated.date });
    }
  }
  const searched = found.filter((h) => inside.has(key(h.vault, h.id)));
  const seen = new Set(searched.map((h) => key(h.vault, h.id)));
  const rest = admitted
    .filter((a) => !seen.has(key(a.hit.vault, a.hit.id)))
    .sort((a, b) =>
      a.date === b.date ? a.hit.id.localeCompare(b.hit.id) : a.date < b.date ? 1 : -1,
    )
    .map((a) => a.hit);
  // Automatic recall answers the question asked, which is about the window:
  // a page the search found outside it (on "decided", say) does not answer it.
  const others =
    policy.name === "automatic" ? [] : found.filter((h) => !inside.has(key(h.vault, h.id)));
  const hits = [...searched, ...rest, ...others].slice(0, policy.maxResults);
  const types = question.types ? [...question.types].join(", ") : "any type";
  return {
    hits,
    trace: {
      step: "time-question",
      ms: Math.round(performance.now() - started),
      hits: Math.min(hits.length, searched.length + rest.length),
      note: `${inside.size} page(s) of ${types} dated in the window`,
    },
  };
}
