/**
 * The recall operation shared by every host: picks the vaults and policy,
 * decides model capabilities up front (no model call can start a download),
 * runs the retrieval service and renders the result.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Assembly,
  assemble,
  type BundlePart,
  type Declaration,
  type ItemRelation,
  pageDate,
} from "./assembly/bundles.ts";
import {
  annotateCode,
  codeNotes,
  type LinkedCommit,
  preferCurrentCode,
} from "./code-refs/recall-code.ts";
import { type Diagnostic, diagnostic } from "./diagnostics.ts";
import { queryHash } from "./feedback/feedback-event.ts";
import { preferFeedback } from "./feedback/feedback-term.ts";
import { readOnlyDiagnostic } from "./index/index-failure.ts";
import {
  AUTOMATIC_RENDER,
  excerptAround,
  fitRecall,
  headingBefore,
  LINKS_FIRST_PAGE_THRESHOLD,
  type RenderableHit,
} from "./recall.ts";
import {
  type RetrievalCapabilities,
  type RetrievalHit,
  type RetrievalVault,
  retrieve,
  type TraceStep,
} from "./retrieval.ts";
import {
  AUTOMATIC_POLICY,
  EXPLICIT_DEFAULT_RESULTS,
  explicitPolicy,
  PRIMING_EXCERPT_CHARS,
  PRIMING_MAX_CHARS,
  PRIMING_MAX_NOTES,
  PRIMING_POLICY,
  preferFresher,
} from "./retrieval-policy.ts";
import { redactSecrets } from "./safety/redact.ts";
import type { RetrievalMode, WikiSettings } from "./settings.ts";
import { datesOfPages } from "./temporal/page-dates.ts";
import { recallWindow } from "./temporal/recall-window.ts";
import type { TimeWindow } from "./temporal/time-window.ts";
import { bodyAfterFrontmatter, hashContent } from "./vault/page.ts";
import type { VaultPaths } from "./vault/paths.ts";
import { type TrustState, trustState } from "./vault/provenance.ts";
import type { VaultHandle, VaultHandles } from "./vault-handles.ts";

/** `priming`: session priming (lib/priming/prime.ts), automatic in every respect but its policy. */
export type RecallPolicyName = "automatic" | "explicit" | "priming";

export interface RecallInput {
  query: string;
  /** `explicit` (default): both vaults, floor 0.25. `automatic`: project only, floor 0.50, at most 3. */
  policy?: RecallPolicyName;
  maxResults?: number;
  mode?: RetrievalMode;
  signal?: AbortSignal;
  /**
   * Explicit recall first indexes pages changed since the last index update
   * (default true). False answers from the index exactly as it is.
   */
  refreshIndex?: boolean;
  /** Attach to each result why it was recalled (matched terms, their contribution and evidence). */
  explain?: boolean;
  /**
   * Assemble memory bundles (cards, their evidence and related claims over
   * typed relations; default true). False returns the ranked list as
   * retrieved, each page its own bundle: the benchmark's ablation.
   */
  assembly?: boolean;
  /** Only pages dated on or after this day are preferred (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`). */
  since?: string;
  /** Only pages dated on or before this day are preferred. */
  until?: string;
  /** The moment "yesterday" and "last week" count from (default: the clock). */
  now?: Date;
  /**
   * Pages (`vault:id`) already in the model's context this turn (Pi's
   * priming block): never shown again.
   */
  exclude?: ReadonlySet<string>;
  /** Feedback in ranking for this call (default: the `feedbackRanking` setting); the benchmark's switch. */
  feedback?: boolean;
  /**
   * Only pages of these types (`skill`, `case`: "have I done this before?").
   * Candidates are drawn from a wider pool, so other types do not crowd them
   * out, and no relation brings in a page of another type.
   */
  types?: readonly string[];
}

/** Candidates per vault and in the fused list when recall is limited to some page types. */
const TYPED_POOL = 50;
/** Sources listed per recalled page; the page itself names the rest. */
const MAX_SOURCES_SHOWN = 3;

export type { BundlePart, Declaration, ItemRelation } from "./assembly/bundles.ts";

/** An unresolved conflict recall shows both sides of. */
export interface RecallConflict {
  vault: "project" | "personal";
  /** The two claims' ids and dates (updated, else created), `a` the one ranked higher. */
  a: { id: string; date?: string };
  b: { id: string; date?: string };
}

/** One recalled page in a host's answer. */
export interface RecallItem extends RetrievalHit {
  /** Path relative to the vault's root folder, e.g. `.llm-wiki/wiki/concepts/rag.md`. */
  path: string;
  /** Absolute path, readable with a file tool. */
  file: string;
  /** The bundle the item belongs to (0 = the top bundle); items are listed bundle by bundle. */
  bundle: number;
  part: BundlePart;
  /** Why it is here: the query named it, its terms matched, or a typed relation to the card admitted it. */
  matchReason: "name" | "terms" | "relation";
  /** Set for every item but a card: how it relates to its bundle's card. */
  relation?: ItemRelation;
  status?: string;
  /** The page's `updated`, else `created` date. */
  date?: string;
  /** "historical": a later claim supersedes it; "stale": past its `stale_after` date. */
  freshness: "current" | "stale" | "historical";
  /** The scope under which it applies (`applies_under`), when one is declared. */
  scope?: string;
  /** For a historical item: the page that supersedes it. */
  successor?: string;
  /**
   * Who said so, with that page's date: for a historical item the page that
   * declared the supersession (its successor, or a resolution page); for an
   * item a resolution admitted, the resolution page.
   */
  declaredBy?: Declaration;
  /** The heading of the section the excerpt comes from. */
  heading?: string;
  /** Why the page is stale by code: a path it names was deleted or changed since its date, and the commit. */
  staleReason?: string;
  /** The newest commit whose message names the page (`[[id]]`, `wiki: id`). */
  lastCommit?: LinkedCommit;
  /** OKF trust, for a page declaring `generated` or `verified`. */
  trust?: TrustState;
  /** The page's `sources` (ids or paths), the first few, for following a claim to its evidence. */
  sources?: string[];
  /** The feedback adjustment its score was multiplied by (1 + this), when recorded feedback moved it. */
  feedback?: number;
}

export interface RecallResult {
  ok: boolean;
  query: string;
  policy: RecallPolicyName;
  requestedMode: RetrievalMode;
  modeUsed: RetrievalMode | "none";
  results: RecallItem[];
  /** Unresolved conflicts among the results: both sides are always listed together. */
  conflicts: RecallConflict[];
  /** The text a model receives (empty when nothing was recalled). */
  rendered: string;
  /**
   * `vault:id` of each page `rendered` holds, in order: fewer than `results`
   * when bundles were cut to fit the character budget.
   */
  renderedPages: string[];
  diagnostics: Diagnostic[];
  trace: TraceStep[];
  durationMs: number;
  /** The time window pages were preferred in (from the query's words and `since`/`until`). */
  window?: TimeWindow;
}

/**
 * What the model paths may use, from file checks only (no model is loaded).
 * Whether a vault's index has vectors is checked per vault by retrieval.
 */
export function capabilities(handles: VaultHandles): RetrievalCapabilities {
  const a = handles.availability();
  const caps: RetrievalCapabilities = {
    vectors: a.embed.available,
    expansion: a.generate.available && a.rerank.available,
    embedModel: handles.models.embed.uri,
  };
  if (!a.embed.available) {
    caps.vectorsMissing = diagnostic(
      "model_unavailable",
      "info",
      `vector search skipped: embed model unavailable (${a.embed.reason ?? a.embed.uri}); used lexical`,
      {
        ...(a.embed.repair ? { repair: a.embed.repair } : {}),
      },
    );
  }
  if (!caps.expansion) {
    const missing = [a.generate, a.rerank].find((m) => !m.available);
    caps.expansionMissing = diagnostic(
      "model_unavailable",
      "info",
      `expansion and reranking skipped: ${missing?.role} model unavailable (${missing?.reason ?? missing?.uri})`,
      {
        ...(missing?.repair ? { repair: missing.repair } : {}),
      },
    );
  }
  return caps;
}

/**
 * How stale a registry explicit recall accepts. Walking the wiki costs a stat
 * per page (tens of ms at 10k pages), too much for every call; a second is
 * shorter than any agent's write-then-ask round trip.
 */
export const EXPLICIT_REGISTRY_MAX_AGE_MS = 1_000;

/**
 * The retrieval view of a vault handle; `maxAgeMs` bounds how old its
 * registry may be. Just after a server started this may be the registry as
 * last saved (see `VaultHandle.answerFromSaved`), read lazily.
 */
export function retrievalVault(handle: VaultHandle, maxAgeMs?: number): RetrievalVault {
  const { registry, status } = handle.recallView(maxAgeMs);
  return {
    kind: handle.paths.kind,
    status,
    pages: registry.pages,
    names: registry.names,
    relations: registry.relations,
    store: () => handle.index.store(),
    ...(handle.index.writable() ? {} : { lexicalOnly: true }),
  };
}

/**
 * `index_read_only` for a vault whose index this process may not write:
 * information while a readable index answers, an error when none can.
 */
function readOnlyNote(vault: RetrievalVault, paths: VaultPaths): Diagnostic {
  const answers = vault.status.state !== "missing" && vault.status.state !== "error";
  const d = readOnlyDiagnostic(paths, answers ? "info" : "error");
  return { ...d, message: `${vault.kind} vault: ${d.message}` };
}

/**
 * A page's body, read without a second YAML parse (the registry accepted
 * it), secrets redacted: a page written by hand may hold one, and recall's
 * answer goes to a model and into transcripts. The registry's detector
 * verdict stands for the bytes it parsed, so a clean page costs a hash on
 * this per-turn path, not a detector pass.
 */
function bodyOf(handle: VaultHandle, id: string, path: string): string | undefined {
  try {
    const bytes = readFileSync(join(handle.paths.dir, path));
    const body = bodyAfterFrontmatter(bytes.toString("utf8"));
    if (body === undefined) return undefined;
    const registry = handle.view();
    const clean = !registry.secretPages.has(id) && registry.hashes.get(id) === hashContent(bytes);
    return clean ? body : redactSecrets(body).text;
  } catch {
    return undefined;
  }
}

/**
 * The host's items and the renderer's hits for an assembly: each page's
 * excerpt from the page itself (its own lines, the same whatever mode found
 * it) with the heading it sits under. Every item shows its bundle's score
 * (the best of the hits that opened it), so scores read in list order.
 */
function recallItems(
  byKind: ReadonlyMap<string, VaultHandle>,
  hits: readonly RetrievalHit[],
  assembly: Assembly,
  query: string,
): { results: RecallItem[]; renderable: RenderableHit[] } {
  const results: RecallItem[] = [];
  const renderable: RenderableHit[] = [];
  const bundleScore = new Map<number, number>();
  for (const a of assembly.items) {
    if (a.opener === undefined) continue;
    const s = Math.max(hits[a.seed ?? -1]?.score ?? 0, hits[a.opener]?.score ?? 0);
    bundleScore.set(a.bundle, Math.max(bundleScore.get(a.bundle) ?? 0, s));
  }
  for (const a of assembly.items) {
    const handle = byKind.get(a.vault);
    if (!handle) continue;
    const meta = handle.view().pages.get(a.id);
    const own = a.seed === undefined ? undefined : hits[a.seed];
    const opener = a.opener === undefined ? undefined : hits[a.opener];
    const cardScore = Math.max(own?.score ?? 0, opener?.score ?? 0);
    const hit: RetrievalHit = own ?? {
      id: a.id,
      vault: a.vault,
      title: meta?.title ?? a.id,
      type: meta?.type ?? "concept",
      role: meta?.role ?? "canonical",
      score: 0,
      confidence: 0,
      exact: false,
      named: false,
      source: opener?.source ?? "fts",
    };
    const rel = meta?.path ?? `wiki/${a.id}.md`;
    const body = bodyOf(handle, a.id, rel);
    const excerpt =
      body === undefined ? hit.excerpt : excerptAround(body, query, AUTOMATIC_RENDER.excerptChars);
    const heading = body !== undefined && excerpt ? headingBefore(body, excerpt) : undefined;
    const date = pageDate(meta);
    const item: RecallItem = {
      ...hit,
      // Every item of a bundle shows the bundle's score, so the list reads in
      // the order of its scores; `confidence` stays the page's own (0 when a
      // relation alone brought it in).
      score: bundleScore.get(a.bundle) ?? cardScore,
      path: `.llm-wiki/${rel}`,
      file: join(handle.paths.dir, rel),
      bundle: a.bundle,
      part: a.part,
      matchReason: own === undefined ? "relation" : own.named ? "name" : "terms",
      freshness: a.freshness,
    };
    if (excerpt) item.excerpt = excerpt;
    else delete item.excerpt;
    if (heading) item.heading = heading;
    if (a.relation) item.relation = a.relation;
    if (meta?.status) item.status = meta.status;
    if (date) item.date = date;
    if (a.scope) item.scope = a.scope;
    if (a.successor) item.successor = a.successor;
    if (a.declaredBy) item.declaredBy = a.declaredBy;
    const trust = trustState(meta?.provenance);
    if (trust) item.trust = trust;
    const sources = meta?.sources.slice(0, MAX_SOURCES_SHOWN) ?? [];
    if (sources.length > 0) item.sources = sources;
    results.push(item);
    const r: RenderableHit = {
      id: a.id,
      title: item.title,
      type: item.type,
      vault: a.vault,
      score: item.score,
      path: item.path,
      bundle: a.bundle,
      part: a.part,
      freshness: a.freshness,
    };
    if (meta?.description) r.description = meta.description;
    if (excerpt) r.excerpt = excerpt;
    if (heading) r.heading = heading;
    if (meta?.status === "deprecated") r.deprecated = true;
    if (meta?.status) r.status = meta.status;
    if (date) r.date = date;
    if (a.relation) r.relation = a.relation;
    if (a.scope) r.scope = a.scope;
    if (a.successor) r.successor = a.successor;
    if (a.declaredBy) r.declaredBy = a.declaredBy;
    if (trust) r.trust = trust;
    if (sources.length > 0) r.sources = sources;
    if (body && (item.type === "skill" || item.type === "case")) r.body = body;
    renderable.push(r);
  }
  return { results, renderable };
}

/** A recall that searched nothing: ok unless a diagnostic is an error. */
export function emptyRecall(
  base: Pick<RecallResult, "query" | "policy" | "requestedMode">,
  diagnostics: Diagnostic[],
): RecallResult {
  return {
    ...base,
    ok: !diagnostics.some((d) => d.severity === "error"),
    modeUsed: "none",
    results: [],
    conflicts: [],
    rendered: "",
    renderedPages: [],
    diagnostics,
    trace: [],
    durationMs: 0,
  };
}

/**
 * Each hit's date by the page-date chain — front matter (a source's own
 * date first), else the event log, else its file's last commit — keyed
 * `vault\0id`: priming prefers fresher pages by the date temporal recall
 * reads, not only `updated`/`created`.
 */
function hitDates(
  byKind: ReadonlyMap<string, VaultHandle>,
  hits: ReadonlyArray<{ vault: string; id: string }>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [kind, handle] of byKind) {
    const ids = hits.filter((h) => h.vault === kind).map((h) => h.id);
    if (ids.length === 0) continue;
    for (const [id, d] of datesOfPages(handle.paths, handle.view().pages, ids)) {
      out.set(`${kind}\u0000${id}`, d.date);
    }
  }
  return out;
}

/** Runs one recall for a host. `vaults` are the candidate vaults, project first. */
export async function recallOperation(
  handles: VaultHandles,
  vaults: { project?: VaultPaths; personal?: VaultPaths },
  settings: WikiSettings,
  input: RecallInput,
  noVault: () => Diagnostic[],
): Promise<RecallResult> {
  const policyName = input.policy ?? "explicit";
  const priming = policyName === "priming";
  const typeFilter = input.types && input.types.length > 0 ? new Set(input.types) : undefined;
  const chosenPolicy =
    policyName === "automatic"
      ? AUTOMATIC_POLICY
      : priming
        ? PRIMING_POLICY
        : explicitPolicy(input.maxResults ?? EXPLICIT_DEFAULT_RESULTS);
  const wanted = chosenPolicy.maxResults;
  const policy = typeFilter
    ? { ...chosenPolicy, maxPerVault: TYPED_POOL, maxResults: TYPED_POOL }
    : chosenPolicy;
  // Priming is automatic recall with its own policy: unasked, quiet, never an index write.
  const automatic = policyName !== "explicit";
  const mode = input.mode ?? settings.retrievalMode;
  const chosen: VaultPaths[] = [];
  if (vaults.project) chosen.push(vaults.project);
  if (policy.includePersonal && settings.includePersonal && vaults.personal)
    chosen.push(vaults.personal);
  const base = { query: input.query, policy: policyName, requestedMode: mode } as const;
  if (chosen.length === 0) {
    // Automatic recall without a vault is a quiet no-op, not an error.
    return emptyRecall(base, automatic ? [] : noVault());
  }
  const byKind = new Map<string, VaultHandle>();
  const rv: RetrievalVault[] = [];
  const indexNotes: Diagnostic[] = [];
  for (const paths of chosen) {
    const handle = handles.get(paths);
    byKind.set(paths.kind, handle);
    if (automatic) {
      // Every turn: the registry as last refreshed (the Pi host refreshes it
      // when the agent writes a page), never an index write.
      const vault = retrievalVault(handle);
      if (vault.lexicalOnly) indexNotes.push(readOnlyNote(vault, paths));
      rv.push(vault);
      continue;
    }
    let vault = retrievalVault(handle, EXPLICIT_REGISTRY_MAX_AGE_MS);
    // An index this user may not write answers as it is: no refresh is tried.
    if (vault.lexicalOnly) indexNotes.push(readOnlyNote(vault, paths));
    else if (
      input.refreshIndex !== false &&
      vault.status.state === "stale" &&
      vault.status.pending > 0
    ) {
      // Pages changed behind the host's back (an editor, git, another agent's
      // write tool): a recall someone asked for sees them. Incremental, and
      // never waits for a busy lock: the previous index answers meanwhile.
      await handle.index.reindex(handle.registry(), { lockWaitMs: 0 });
      vault = retrievalVault(handle);
    }
    rv.push(vault);
  }
  // Time words become a window of days; pages dated inside it are preferred.
  const timed = recallWindow(
    input,
    rv.map((vault, i) => ({ vault, paths: chosen[i] as VaultPaths })),
  );
  if (!timed.ok) {
    return {
      ...base,
      ok: false,
      modeUsed: "none",
      results: [],
      conflicts: [],
      rendered: "",
      renderedPages: [],
      diagnostics: timed.diagnostics,
      trace: [],
      durationMs: 0,
    };
  }
  rv.splice(0, rv.length, ...timed.vaults);
  // What the vault is about steers reranking (QMD's intent), never the transcript.
  const intent = handles.get(chosen[0] as VaultPaths).intent();
  const outcome = await retrieve(rv, {
    query: input.query,
    policy,
    mode,
    capabilities: capabilities(handles),
    ...(intent ? { intent } : {}),
    ...(automatic ? { budgetMs: settings.turnBudgetMs } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.explain ? { explain: true } : {}),
    ...(timed.window ? { window: timed.window, searchQuery: timed.searchQuery } : {}),
  });
  let pageCount = 0;
  for (const v of rv) pageCount = Math.max(pageCount, v.pages.size);
  const now = input.now ?? new Date();
  const exclude = input.exclude;
  let hits = exclude
    ? outcome.hits.filter((h) => !exclude.has(`${h.vault}:${h.id}`))
    : outcome.hits;
  // Pages whose named code moved on: a bounded lower preference (per-commit cache, no git call).
  hits = preferCurrentCode(hits, codeNotes(byKind, hits));
  // What use taught (bounded, after retrieval): reorders, never adds or removes a page.
  let feedback: Map<string, number> | undefined;
  if (input.feedback ?? settings.feedbackRanking) {
    const projections = new Map(
      [...byKind].map(([kind, handle]) => [kind, handle.feedback.projection(handle.view())]),
    );
    const moved = preferFeedback(
      hits,
      (kind) => projections.get(kind),
      queryHash(outcome.query),
      now.getTime(),
    );
    hits = moved.hits;
    feedback = moved.adjusted;
  }
  if (typeFilter) hits = hits.filter((h) => typeFilter.has(h.type)).slice(0, wanted);
  if (priming) {
    const dates = hitDates(byKind, hits);
    hits = preferFresher(hits, (h) => dates.get(`${h.vault}\u0000${h.id}`), now);
  }
  const assembly = assemble(hits, new Map(rv.map((v) => [v.kind, v])), {
    maxBundles: priming ? PRIMING_MAX_NOTES : wanted,
    automatic,
    expand: input.assembly !== false && !typeFilter,
    now,
  });
  if (exclude) {
    // A relation may bring in a page the context already holds.
    assembly.items = assembly.items.filter((a) => !exclude.has(`${a.vault}:${a.id}`));
  }
  const { results, renderable } = recallItems(byKind, hits, assembly, outcome.query);
  if (feedback && feedback.size > 0) {
    for (const item of results) {
      const adj = feedback.get(`${item.vault}:${item.id}`);
      if (adj !== undefined) item.feedback = Math.round(adj * 1e5) / 1e5;
    }
  }
  annotateCode(results, renderable, codeNotes(byKind, results));
  const conflicts: RecallConflict[] = assembly.conflicts.map((c) => {
    const dated = (id: string) => {
      const date = pageDate(byKind.get(c.vault)?.view().pages.get(id));
      return date === undefined ? { id } : { id, date };
    };
    return { vault: c.vault, a: dated(c.a), b: dated(c.b) };
  });
  const fitted = fitRecall(
    renderable,
    {
      ...AUTOMATIC_RENDER,
      maxChars: priming
        ? Math.min(PRIMING_MAX_CHARS, settings.recallMaxChars)
        : settings.recallMaxChars,
      // Three short notes, not one long one, in priming's small budget.
      ...(priming
        ? { excerptChars: PRIMING_EXCERPT_CHARS, inlineChars: PRIMING_EXCERPT_CHARS }
        : {}),
      linksFirst: pageCount > LINKS_FIRST_PAGE_THRESHOLD,
    },
    conflicts,
  );
  const rendered = fitted.text;
  const renderedPages = [...new Set(fitted.kept.map((h) => `${h.vault}:${h.id}`))];
  const diagnostics = [...indexNotes, ...timed.diagnostics, ...outcome.diagnostics];
  const ok = !diagnostics.some((d) => d.severity === "error");
  return {
    ...base,
    query: outcome.query,
    ok,
    modeUsed: outcome.modeUsed,
    results,
    conflicts,
    rendered,
    renderedPages,
    diagnostics,
    trace: outcome.trace,
    durationMs: outcome.durationMs,
    ...(timed.window ? { window: timed.window } : {}),
  };
}
