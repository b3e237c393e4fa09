/**
 * Stage 6, assemble: the preferred list becomes memory bundles (a card, its
 * evidence, what it superseded and what contradicts it, over typed
 * relations one hop from the pages found), then the items every host shows
 * and the unresolved conflicts among them.
 */
import { assemble } from "../assembly/bundles.ts";
import { annotateCode, codeNotes } from "../code-refs/recall-code.ts";
import type { RetrievalVault } from "../retrieval/retrieval-types.ts";
import { type ShownDate, shownDates } from "../temporal/page-dates.ts";
import type { VaultHandle } from "../vault-handles.ts";
import type { RenderableHit } from "./recall-block.ts";
import { recallItems } from "./recall-items.ts";
import type { RecallPlan } from "./recall-plan.ts";
import type { Preferred } from "./recall-prefer.ts";
import type { RecallConflict, RecallItem } from "./recall-types.ts";

export interface Assembled {
  results: RecallItem[];
  renderable: RenderableHit[];
  conflicts: RecallConflict[];
}

/** Assembles `preferred` into bundles; `expand: false` keeps each page its own bundle. */
export function assembleHits(
  plan: RecallPlan,
  byKind: ReadonlyMap<string, VaultHandle>,
  views: readonly RetrievalVault[],
  preferred: Preferred,
  query: string,
  expand: boolean,
): Assembled {
  const { hits, feedback } = preferred;
  const assembly = assemble(hits, new Map(views.map((v) => [v.kind, v])), {
    maxBundles: plan.maxBundles,
    automatic: plan.automatic,
    expand: expand && !plan.typeFilter,
    now: plan.now,
    listedSources: !plan.priming,
  });
  const exclude = plan.exclude;
  if (exclude) {
    // A relation may bring in a page the context already holds.
    assembly.items = assembly.items.filter((a) => !exclude.has(`${a.vault}:${a.id}`));
  }
  // The dates a time window judged pages by are the dates the items show.
  const dated = new Map(views.flatMap((v) => (v.dates ? [[v.kind, v.dates] as const] : [])));
  const { results, renderable } = recallItems(byKind, hits, assembly, query, dated);
  if (feedback && feedback.size > 0) {
    for (const item of results) {
      const adj = feedback.get(`${item.vault}:${item.id}`);
      if (adj !== undefined) item.feedback = Math.round(adj * 1e5) / 1e5;
    }
  }
  annotateCode(results, renderable, codeNotes(byKind, results));
  // Each side of a conflict reads the date its item shows, by the same chain.
  const conflicts: RecallConflict[] = assembly.conflicts.map((c) => {
    const handle = byKind.get(c.vault);
    const dates = handle
      ? shownDates(handle.paths, handle.view().pages, [c.a, c.b], dated.get(c.vault))
      : new Map<string, ShownDate>();
    const side = (id: string) => ({ id, ...dates.get(id) });
    return { vault: c.vault, a: side(c.a), b: side(c.b) };
  });
  return { results, renderable, conflicts };
}
