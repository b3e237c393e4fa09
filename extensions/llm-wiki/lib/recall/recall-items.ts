/**
 * The host's items and the renderer's hits for an assembly: each page's
 * excerpt taken from the page itself (its own lines, the same whatever mode
 * found it, secrets redacted) with the heading it sits under, and the labels
 * every host shows (status, date, freshness, trust, sources).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Assembly } from "../assembly/bundles.ts";
import type { RetrievalHit } from "../retrieval/retrieval-types.ts";
import { redactSecrets } from "../safety/redact.ts";
import { type PageDateLookup, type ShownDate, shownDates } from "../temporal/page-dates.ts";
import { conflictExcerpt } from "../vault/merge-conflicts.ts";
import { bodyAfterFrontmatter, hashContent } from "../vault/page.ts";
import { trustState } from "../vault/provenance.ts";
import type { VaultHandle } from "../vault-handles.ts";
import {
  AUTOMATIC_RENDER,
  excerptAround,
  headingBefore,
  type RenderableHit,
} from "./recall-block.ts";
import type { RecallItem } from "./recall-types.ts";

/** Sources listed per recalled page; the page itself names the rest. */
const MAX_SOURCES_SHOWN = 3;

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
 * Each assembled page's shown date, keyed `vault\0id`: the date its vault's
 * time window judged it by when the recall had one (`dated`), else the same
 * chain resolved for these pages alone, so a page reads one date whatever
 * was asked.
 */
function itemDates(
  byKind: ReadonlyMap<string, VaultHandle>,
  assembly: Assembly,
  dated: ReadonlyMap<string, PageDateLookup>,
): Map<string, ShownDate> {
  const out = new Map<string, ShownDate>();
  for (const [kind, handle] of byKind) {
    const ids = assembly.items.filter((a) => a.vault === kind).map((a) => a.id);
    if (ids.length === 0) continue;
    for (const [id, d] of shownDates(handle.paths, handle.view().pages, ids, dated.get(kind))) {
      out.set(`${kind}\u0000${id}`, d);
    }
  }
  return out;
}

/**
 * The host's items and the renderer's hits for an assembly: each page's
 * excerpt from the page itself (its own lines, the same whatever mode found
 * it) with the heading it sits under. Every item shows its bundle's score
 * (the best of the hits that opened it), so scores read in list order.
 * `dated` holds the page dates of the vaults a time window dated.
 */
export function recallItems(
  byKind: ReadonlyMap<string, VaultHandle>,
  hits: readonly RetrievalHit[],
  assembly: Assembly,
  query: string,
  dated: ReadonlyMap<string, PageDateLookup> = new Map(),
): { results: RecallItem[]; renderable: RenderableHit[] } {
  const results: RecallItem[] = [];
  const renderable: RenderableHit[] = [];
  const dates = itemDates(byKind, assembly, dated);
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
    // A page git left unmerged is quoted by its conflict, both versions, never one alone.
    const excerpt =
      body === undefined
        ? hit.excerpt
        : ((meta?.mergeConflicts
            ? conflictExcerpt(body, 3 * AUTOMATIC_RENDER.excerptChars)
            : undefined) ?? excerptAround(body, query, AUTOMATIC_RENDER.excerptChars));
    const heading = body !== undefined && excerpt ? headingBefore(body, excerpt) : undefined;
    const shown = dates.get(`${a.vault}\u0000${a.id}`);
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
    if (shown) {
      item.date = shown.date;
      if (shown.edited) item.edited = shown.edited;
    }
    if (a.scope) item.scope = a.scope;
    if (a.successor) item.successor = a.successor;
    if (a.declaredBy) item.declaredBy = a.declaredBy;
    if (a.proposes) item.proposes = a.proposes;
    const trust = trustState(meta?.provenance);
    if (trust) item.trust = trust;
    if (meta?.mergeConflicts) item.mergeConflicts = meta.mergeConflicts;
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
    if (shown) {
      r.date = shown.date;
      if (shown.edited) r.edited = shown.edited;
    }
    if (a.relation) r.relation = a.relation;
    if (a.scope) r.scope = a.scope;
    if (a.successor) r.successor = a.successor;
    if (a.declaredBy) r.declaredBy = a.declaredBy;
    if (a.proposes) r.proposes = a.proposes;
    if (item.weak) r.weak = true;
    if (trust) r.trust = trust;
    if (meta?.mergeConflicts) r.mergeConflicts = meta.mergeConflicts;
    if (sources.length > 0) r.sources = sources;
    if (body && (item.type === "skill" || item.type === "case")) r.body = body;
    renderable.push(r);
  }
  return { results, renderable };
}
