/**
 * How much of a question's subject a page's own account of itself covers:
 * its aliases (what else it is called), then its description and tags
 * (what it says it is about). BM25 sees those words as a few among the
 * body's hundreds (the mirror puts all but the title in the body), so one
 * rare word deep in an unrelated page could outrank the page that says it
 * is about the subject. The title is BM25's own (QMD's title column):
 * counted again here it lowered Cranfield's nDCG@10 by 0.001. The share is IDF-weighted: covering "sqlite" in
 * a vault where half the pages say sqlite counts for less than covering a
 * rare word. Pure, from page metadata and the lexical list's term matches.
 */
import { STOP_WORDS } from "../index/lex-query.ts";
import type { QmdHit } from "../index/qmd-store-types.ts";
import { ftsTokens } from "../lexical/fts-tokens.ts";
import type { PageMeta } from "../vault/page.ts";

/** What a word found only in the description or tags counts for, against one in a name. */
const DESCRIBED_CREDIT = 0.75;

/** A subject's index terms and the weight (IDF) of each. */
export interface SubjectTerms {
  stems: readonly string[];
  /** Each term's IDF as the list reports it; a term no listed page holds weighs nothing. */
  weights: readonly number[];
  total: number;
  /**
   * The same, with a term no listed page holds weighing as the rarest one
   * listed: what automatic recall judges a page's names by, so "upsert in
   * postgres" is not wholly named by a page called Postgres.
   */
  strictWeights: readonly number[];
  strictTotal: number;
}

interface PageWords {
  named: ReadonlySet<string>;
  described: ReadonlySet<string>;
  /** The title's words: a name for a page of the asked kind (see `aboutShares`). */
  titled: ReadonlySet<string>;
}

const wordsOf = new WeakMap<PageMeta, PageWords>();

function pageWords(page: PageMeta): PageWords {
  const known = wordsOf.get(page);
  if (known) return known;
  // Not the title: BM25 already weighs it (QMD's title column, 4×); the
  // other names and the description sit in the body, one word among many.
  // Nor the id: a file name's words are BM25's path column already (on the
  // seed fixture, counting them again lowered nDCG@10 by 0.012).
  const named = new Set(ftsTokens(page.aliases.join(" \n ")));
  const described = new Set(
    ftsTokens([page.description ?? page.summary ?? "", ...page.tags].join(" \n ")),
  );
  const titled = new Set(ftsTokens(page.title));
  const words = { named, described, titled };
  wordsOf.set(page, words);
  return words;
}

/**
 * The subject's terms (stop words out), each weighed by the IDF the lexical
 * list reports for it.
 */
export function subjectTerms(
  subject: string,
  hits: readonly Pick<QmdHit, "matches">[],
): SubjectTerms {
  const known = new Map<string, number>();
  for (const hit of hits)
    for (const m of hit.matches ?? []) {
      if (m.stems.length === 1 && m.stems[0] !== undefined) known.set(m.stems[0], m.idf);
    }
  const stems = [
    ...new Set(
      (subject.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
        .filter((w) => !STOP_WORDS.has(w) && !/^\d{1,2}$/.test(w))
        .flatMap((w) => ftsTokens(w)),
    ),
  ];
  // A word no listed page holds tells no listed page from another: it weighs nothing here.
  const weights = stems.map((s) => known.get(s) ?? 0);
  const rarest = Math.max(1, ...known.values());
  const strictWeights = stems.map((s) => known.get(s) ?? rarest);
  return {
    stems,
    weights,
    total: weights.reduce((a, b) => a + b, 0),
    strictWeights,
    strictTotal: strictWeights.reduce((a, b) => a + b, 0),
  };
}

/** How much of a subject a page's own account of itself holds. */
export interface AboutShares {
  /** Names, description and tags (a word only described counts DESCRIBED_CREDIT), 0–1. */
  about: number;
  /** Aliases alone, by the strict weights, 0–1. */
  named: number;
}

/**
 * The IDF-weighted shares of `subject` that `page`'s names, description and
 * tags hold. `withTitle`: for a page of the kind the question asks for, its
 * title is a name too ("ADR-007: Kafka over RabbitMQ" answers "why did we
 * choose kafka" as surely as an alias would); for any other page BM25's
 * title column already counts it.
 */
export function aboutShares(page: PageMeta, subject: SubjectTerms, withTitle = false): AboutShares {
  if (subject.total <= 0) return { about: 0, named: 0 };
  const words = pageWords(page);
  let held = 0;
  let named = 0;
  subject.stems.forEach((stem, i) => {
    const w = subject.weights[i] ?? 0;
    if (words.named.has(stem)) {
      held += w;
      named += subject.strictWeights[i] ?? 0;
    } else if (withTitle && words.titled.has(stem)) {
      // BM25's title column counts it already: a name for the gate, a description here.
      held += w * DESCRIBED_CREDIT;
      named += subject.strictWeights[i] ?? 0;
    } else if (words.described.has(stem)) held += w * DESCRIBED_CREDIT;
  });
  return {
    about: held / subject.total,
    named: subject.strictTotal > 0 ? named / subject.strictTotal : 0,
  };
}
