/**
 * Code-aware query words for a coding agent's memory. The index (FTS5
 * unicode61) keeps `retryWithBackoff` as one word and splits `retry_with_backoff`,
 * `retry-with-backoff` and `src/sync/merge.ts` into words. So a query's
 * camelCase identifier also searches for its humps, and a run of two or
 * three query words also searches for them written together (the way the
 * index holds a camelCase name): `retryWithBackoff` finds "retry with
 * backoff", and "retry with backoff" finds `retryWithBackoff`. Pure.
 */

/** Letters and digits only: a word that may be one camelCase identifier. */
const WORD = /^[\p{L}\p{N}]+$/u;
/** A hump boundary: lower or digit then upper (`retryWith`), or an acronym's end (`HTTPServer`). */
const HUMP = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const RUN = /[\p{L}\p{N}]+/gu;
/** Beyond this many words the query is a pasted prompt: joining its words only adds noise. */
const MAX_JOIN_WORDS = 24;
/** Words joined at most. */
const JOIN_SPAN = 3;
/** A joined word shorter than this is more likely an ordinary word than a name. */
const MIN_JOINED_CHARS = 6;
/**
 * Particles of English phrasal verbs, whose noun is the two written
 * together: "roll out" a rollout, "set up" a setup, "cut off" a cutoff,
 * "clean up" a cleanup, "shut down" a shutdown, "hand off" a handoff. Stop
 * words, but a run may end on one right after its verb. Not "in" or
 * "over", prepositions far more often ("a point in time", "kafka over
 * rabbitmq").
 */
const PARTICLES: ReadonlySet<string> = new Set(["out", "up", "down", "off"]);
/** A phrasal verb's noun may be shorter than a name: "setup", "login". */
const MIN_PHRASAL_CHARS = 5;

/**
 * Lower-cased camelCase words of `text` (case kept, NFKC already applied)
 * and their lower-cased humps: `retryWithBackoff` → retry, with, backoff.
 */
export function camelHumps(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const match of text.matchAll(RUN)) {
    const word = match[0];
    if (word === word.toLowerCase() || word === word.toUpperCase()) continue;
    const humps = word.split(HUMP).filter(Boolean);
    if (humps.length > 1)
      out.set(
        word.toLowerCase(),
        humps.map((h) => h.toLowerCase()),
      );
  }
  return out;
}

/** A run of query words written together. */
export interface JoinedRun {
  /** Indexes of the run's words that are not stop words. */
  words: number[];
  joined: string;
  /** The particle a phrasal verb's run ends on ("out" of "roll out"). */
  particle?: string;
}

/**
 * Runs of two or three adjacent plain words (`words`, lower-cased, in
 * query order; `null` breaks a run) written together, each with the index
 * of its words that are not stop words; runs that start or end on a stop
 * word are left out, but for a verb and its particle ("roll out").
 */
export function joinedRuns(
  words: ReadonlyArray<string | null>,
  isStop: (word: string) => boolean,
): JoinedRun[] {
  const out: JoinedRun[] = [];
  if (words.filter((w) => w !== null).length > MAX_JOIN_WORDS) return out;
  for (let i = 0; i < words.length; i += 1) {
    const head = words[i];
    if (!head || isStop(head) || !WORD.test(head)) continue;
    let joined = head;
    for (let j = i + 1; j < Math.min(words.length, i + JOIN_SPAN); j += 1) {
      const next = words[j];
      if (!next || !WORD.test(next)) break;
      joined += next;
      const particle = j === i + 1 && PARTICLES.has(next);
      if (
        (particle && joined.length >= MIN_PHRASAL_CHARS) ||
        (!isStop(next) && joined.length >= MIN_JOINED_CHARS)
      )
        out.push({
          words: range(i, j).filter((k) => !isStop(words[k] ?? "")),
          joined,
          ...(particle ? { particle: next } : {}),
        });
    }
  }
  return out;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, k) => from + k);
}
