/**
 * Scoring one vault's candidates for a policy: exact and contained names,
 * the bounded multiplier and the time preference, the policy floor and, for
 * automatic recall on lexical evidence, the vault-specificity gate; the list
 * in the order of the scores it shows.
 */
import type { QmdHit } from "../index/qmd-store-types.ts";
import { backgroundShare } from "../lexical/background.ts";
import { ftsTokens } from "../lexical/fts-tokens.ts";
import { CONTAINED_NAME_CONFIDENCE, matchNames, namesHold, pageNames } from "../name-match.ts";
import { pageEvidence } from "../recall-evidence.ts";
import { boundedMultiplier, type RecallPolicy } from "../retrieval-policy.ts";
import { sourcePages } from "../source-refs.ts";
import type { TimeWindow } from "../temporal/time-window.ts";
import { windowPreference } from "../temporal/window-preference.ts";
import type { PageMeta } from "../vault/page.ts";
import { aboutShares, type SubjectTerms, subjectTerms } from "./page-about.ts";
import { pageKinds } from "./page-kind.ts";
import type { QuestionIntent } from "./question-intent.ts";
import type { RecallWhy, RetrievalHit, RetrievalVault, VaultRun } from "./retrieval-types.ts";

/**
 * A contained title, alias or recall trigger is evidence on its own (for automatic recall)
 * when its words together are rare in general software English: "Version
 * vectors" or "Tombstones" are, "CLI" or "Data retention" are not.
 */
export const NAME_BACKGROUND_MAX = 0.002;

/** `said`: the query's index terms, space-separated and padded with a space each side. */
function nameIsEvidence(page: PageMeta | undefined, said: string): boolean {
  if (!page) return false;
  return pageNames(page).some((name) => {
    const stems = ftsTokens(name);
    return (
      stems.length > 0 &&
      said.includes(` ${stems.join(" ")} `) &&
      backgroundShare(stems) < NAME_BACKGROUND_MAX
    );
  });
}

/**
 * What orders a vault's pages besides the mode's own standing (top = 1),
 * chosen on the train halves of the natural-question sets
 * (test/fixtures/natural) with the seed fixture's gates held: the share of
 * the subject a page's names and description hold, the page being of the
 * kind the question asks for, a name the query contains, and a recorded
 * session answering a question that is not about doing a task again.
 */
export const ORDER_WEIGHTS = Object.freeze({
  about: 0.6,
  intent: 0.5,
  /** A kind the question asks for after its first (a "why" asks for a decision, then an incident). */
  laterKind: 0.6,
  named: 0.3,
  /** Each word of a contained name past the first (up to two). */
  nameWord: 0.1,
  session: -0.6,
  /** A page of the asked kind is preferred only when this much about the subject. */
  intentMin: 0.3,
});

/**
 * The share of the subject a page of the asked kind must hold in its names,
 * description and tags to answer the question as if named.
 */
export const ABOUT_ANSWERS = 0.75;

/**
 * Kinds of page that answer for a name they carry in their title (a
 * decision or incident about the thing named), when the question asks for
 * that kind first.
 */
const CARRIES_NAME: ReadonlySet<string> = new Set(["decision", "incident"]);

/**
 * The candidates derived from a page in `named`: they list it among their
 * `sources` or declare a `derived_from` relation to it.
 */
function derivedFrom(
  vault: RetrievalVault,
  run: VaultRun,
  named: ReadonlySet<string>,
): ReadonlySet<string> {
  const out = new Set<string>();
  if (named.size === 0) return out;
  for (const { hit } of run.candidates) {
    const page = vault.pages.get(hit.pageId);
    if (!page || named.has(page.id)) continue;
    // Entries as written ("[[sources/rfc-7]]", an alias, a SRC- id) name their page as the card's own sources do.
    const names = (ref: string) =>
      sourcePages(vault.pages, ref, vault.names).some((id) => named.has(id));
    if (
      page.sources.some(names) ||
      page.relations?.some((r) => r.type === "derived_from" && names(r.target))
    )
      out.add(page.id);
  }
  return out;
}

/** Explicit recall's best candidates below its floor, shown marked weak when nothing passes. */
export const WEAK_CANDIDATES = 3;

/** How the question is read besides its words: its intent and its subject. */
export interface QuestionReading {
  intent?: QuestionIntent;
  /** The words searched (time and intent words out). */
  subject: string;
  /** An instruction, not a question to memory: unasked, only pages it names answer. */
  instruction?: true;
}

interface Scored extends RetrievalHit {
  /** The mode's own standing (exact names above everything). */
  standing: number;
  /** The order this vault's list is in (see ORDER_WEIGHTS). */
  order: number;
  /** Named as automatic recall counts it (a contained name must be vault-specific). */
  counted: boolean;
  /** Words of the longest name the query contains (0 when not named by containment). */
  nameWords: number;
  /** The bounded multiplier applied to the score. */
  multiplier: number;
}

const multiplierOf = (hit: Scored) => hit.multiplier;

/**
 * Scores one vault's candidates: exact and contained names, the bounded
 * multiplier, the policy floor and, for automatic recall on lexical
 * evidence, the vault-specificity gate. A page the query names comes first
 * and the list is in the order of the scores it shows.
 */
export function scoreVault(
  vault: RetrievalVault,
  run: VaultRun,
  query: string,
  policy: RecallPolicy,
  explain: boolean,
  window?: TimeWindow,
  reading: QuestionReading = { subject: query },
): RetrievalHit[] {
  // The search may have matched them already (automatic recall's gate): the same query, the same pages.
  const { exact, contained, span, phrases } =
    run.names ?? matchNames(vault.pages, query, vault.names);
  // "before the v2 release" dates the question; it does not ask about the release.
  if (window?.anchor !== undefined) {
    contained.delete(window.anchor);
    span.delete(window.anchor);
  }
  // Every list is gated by lexical specificity, a reranked one too: a model's
  // score orders pages but is no evidence (none can be calibrated without the
  // real model, and a page unrelated to the prompt still scores above zero).
  const gated = policy.minEvidence !== undefined;
  let said: string | undefined;
  const queryTerms = () => {
    said ??= ` ${ftsTokens(query).join(" ")} `;
    return said;
  };
  const seen = new Set<string>();
  const out: Scored[] = [];
  const below: Scored[] = [];
  const topStanding = Math.max(1e-9, ...run.candidates.map((c) => c.standing));
  let subject: SubjectTerms | undefined;
  const subjectOf = (): SubjectTerms => {
    subject ??= subjectTerms(
      reading.subject,
      run.candidates.map((c) => c.hit),
    );
    return subject;
  };
  const { intent } = reading;
  // Whether any candidate is of the kind the question asks for: only then
  // does a page named by the question give way to one of that kind.
  const kindListed =
    intent !== undefined &&
    run.candidates.some((c) => {
      const page = vault.pages.get(c.hit.pageId);
      return page !== undefined && intent.kinds.some((k) => pageKinds(page).has(k));
    });
  // "What came out of RFC-007": the decision derived from the page the question
  // names answers it, and the named page is its evidence, no longer the answer.
  // A page is named by its title or alias, or by its account of itself ("the
  // event bus review meeting").
  const inputs = intent?.followsNamed
    ? new Set([
        ...exact,
        ...contained,
        ...run.candidates
          .map((c) => vault.pages.get(c.hit.pageId))
          .filter(
            (p): p is PageMeta =>
              p !== undefined && aboutShares(p, subjectOf(), true).about >= ABOUT_ANSWERS,
          )
          .map((p) => p.id),
      ])
    : undefined;
  const followers = inputs ? derivedFrom(vault, run, inputs) : undefined;
  const add = (
    id: string,
    hit: QmdHit | undefined,
    listConfidence: number,
    standing: number,
  ): void => {
    const page = vault.pages.get(id);
    const isExact = exact.has(id);
    const isContained = !isExact && contained.has(id);
    // Only the gate and `--explain` read it: no per-term work on other recalls.
    const evidence = hit?.matches && (gated || explain) ? pageEvidence(hit.matches) : undefined;
    const kinds = page ? pageKinds(page) : undefined;
    const kindAt = intent && kinds ? intent.kinds.findIndex((k) => kinds.has(k)) : -1;
    const shares = page ? aboutShares(page, subjectOf(), kindAt >= 0) : { about: 0, named: 0 };
    const about = shares.about;
    const fits = kindAt >= 0 && Math.max(about, standing / topStanding) >= ORDER_WEIGHTS.intentMin;
    const nameWords = isContained ? (span.get(id) ?? 0) : 0;
    // "why can't developers write to the remote cache": the decision titled
    // "Bazel remote cache on NVMe" carries the name the question says, as the
    // page named Remote cache does, and is what a "why" or "what happened" asks for first.
    const carried =
      fits && kindAt === 0 && followers?.has(id) && !isExact && !isContained
        ? 2
        : fits &&
            kindAt === 0 &&
            CARRIES_NAME.has(intent?.kinds[0] ?? "") &&
            !isExact &&
            !isContained &&
            page
          ? namesHold(page, phrases)
          : 0;
    // The page the answer was derived from stays listed, as evidence.
    const input = followers !== undefined && followers.size > 0 && inputs?.has(id) === true;
    // Unasked, a one-word name is no evidence in an instruction ("move the
    // kafka producer setup into its own package"), nor in a question asking
    // for another kind of page ("how do I do an upsert in postgres" asks for
    // a procedure, not the page named Postgres).
    const nameRefused =
      gated &&
      isContained &&
      nameWords <= 1 &&
      (reading.instruction === true || (intent !== undefined && !fits));
    const conf = isExact
      ? 1
      : (isContained && !nameRefused) || (!gated && carried > 1)
        ? Math.max(listConfidence, CONTAINED_NAME_CONFIDENCE)
        : listConfidence;
    const role = hit?.role ?? page?.role ?? "canonical";
    const time = window ? windowPreference(vault.dates?.get(id), window) : undefined;
    const multiplier =
      boundedMultiplier(isExact, role, page?.status === "deprecated") * (time?.multiplier ?? 1);
    const score = Math.min(1, conf * multiplier);
    // Automatic recall: a name counts when it is specific to this vault; words
    // count by their evidence. A page of the asked kind whose own account of
    // itself holds the subject ("why did we choose sqlite": the decision
    // record titled SQLite) answers like a name, however common the subject.
    const named =
      isExact ||
      (isContained && (!gated || (!nameRefused && nameIsEvidence(page, queryTerms())))) ||
      // Unasked, only the names count: a description is written more loosely.
      (fits && (gated ? shares.named : about) >= ABOUT_ANSWERS) ||
      // Asked, a page of the asked kind carrying the name the question says answers as named.
      (!gated && carried > 1);
    const session = kinds?.has("session") === true && intent?.name !== "repeat";
    // Unasked, a recorded session answers only a question about doing its task again.
    if (gated && session && !isExact) return;
    const order =
      (standing / topStanding) * multiplier +
      ORDER_WEIGHTS.about * about +
      (fits && !input ? ORDER_WEIGHTS.intent * (kindAt === 0 ? 1 : ORDER_WEIGHTS.laterKind) : 0) +
      // A question asking for a kind of page is about its subject, not its name's page.
      // "rate limits on the gateway": the longer name is the more specific mention.
      // A page named by several words keeps its place whatever the question asks.
      (!input && ((named && (!kindListed || fits || nameWords > 1)) || carried > 1)
        ? ORDER_WEIGHTS.named +
          ORDER_WEIGHTS.nameWord * Math.min(2, Math.max(0, Math.max(nameWords, carried) - 1))
        : 0) +
      (session ? ORDER_WEIGHTS.session : 0);
    const passes =
      named ||
      (score > policy.minScore &&
        (!gated ||
          ((evidence?.total ?? 0) >= (policy.minEvidence ?? 0) && reading.instruction !== true)));
    if (!passes && (policy.name !== "explicit" || !hit)) return;
    const result: Scored = {
      order,
      standing: isExact ? 2 : standing,
      counted: named,
      named: isExact || isContained,
      nameWords: named && isContained ? (span.get(id) ?? 0) : 0,
      multiplier,
      id,
      vault: vault.kind,
      title: page?.title ?? hit?.title ?? id,
      type: page?.type ?? (role === "canonical" ? "concept" : "source"),
      role,
      score: Math.round(score * 1e4) / 1e4,
      confidence: Math.round(conf * 1e4) / 1e4,
      exact: isExact,
      source: hit?.source ?? "fts",
    };
    if (hit?.bestChunk) result.excerpt = hit.bestChunk;
    if (explain) {
      const why: RecallWhy = {};
      if (isExact || isContained) why.name = isExact ? "exact" : "contained";
      if (evidence) why.evidence = evidence;
      if (time) why.time = time;
      if (about > 0) why.about = Math.round(about * 1e4) / 1e4;
      if (fits && intent) why.intent = intent.name;
      why.order = Math.round(order * 1e4) / 1e4;
      why.standing = Math.round((standing / topStanding) * 1e4) / 1e4;
      result.why = why;
    }
    if (passes) out.push(result);
    else below.push({ ...result, weak: true });
  };
  for (const { hit, confidence, lexical, standing } of run.candidates) {
    if (seen.has(hit.pageId)) continue;
    seen.add(hit.pageId);
    // Automatic recall injects unasked: raw vector similarity and reranker
    // scores are no evidence there (unrelated text still scores well above
    // zero, and no threshold can be calibrated without the real model), so a
    // fused or reranked hit counts only what the lexical list says of it.
    add(
      hit.pageId,
      hit,
      policy.name === "automatic" && (run.reranked || hit.source === "hybrid")
        ? lexical
        : confidence,
      standing,
    );
  }
  // Named pages the store missed (e.g. a title made only of stop words) still answer.
  for (const id of [...exact, ...contained]) {
    if (seen.has(id) || !vault.pages.has(id)) continue;
    seen.add(id);
    add(id, undefined, 0, 0);
  }
  // The query names these pages: they are at least as likely as any page its words found.
  const best = Math.max(0, ...out.filter((h) => !h.counted).map((h) => h.score));
  for (const hit of out) {
    if (!hit.counted || hit.score >= best) continue;
    hit.score = best;
    hit.confidence = Math.round(Math.min(1, best / hit.multiplier) * 1e4) / 1e4;
  }
  // Named pages first, then the mode's own ranking (BM25, or the fused rank
  // of the lexical and vector lists) with the multiplier. A score shown never
  // exceeds the one above it: a later page is no more likely than an earlier.
  // Nothing passed: explicit recall shows its best candidates, marked weak.
  const listed = out.length > 0 ? out : below;
  const sorted = listed.sort(
    (a, b) =>
      Number(b.exact) - Number(a.exact) ||
      b.order - a.order ||
      // "rate limits on the gateway": the longer name is the more specific mention.
      b.nameWords - a.nameWords ||
      b.standing * multiplierOf(b) - a.standing * multiplierOf(a) ||
      b.score - a.score ||
      (a.id < b.id ? -1 : 1),
  );
  for (let i = 1; i < sorted.length; i += 1) {
    const above = sorted[i - 1] as Scored;
    const hit = sorted[i] as Scored;
    if (hit.score > above.score) {
      // The confidence says the same: the score stays confidence × multiplier.
      hit.score = above.score;
      hit.confidence = Math.round((above.score / hit.multiplier) * 1e4) / 1e4;
    }
  }
  return sorted
    .slice(0, out.length > 0 ? policy.maxPerVault : Math.min(policy.maxPerVault, WEAK_CANDIDATES))
    .map(
      ({
        order: _order,
        standing: _standing,
        counted: _counted,
        nameWords: _words,
        multiplier: _multiplier,
        ...hit
      }) => hit,
    );
}
