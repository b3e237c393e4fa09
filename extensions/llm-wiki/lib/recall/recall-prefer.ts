/**
 * Stage 5, prefer: bounded preferences applied to the fused list after
 * retrieval, each reordering within its bound and never adding a page —
 * pages already in context out, pages whose named code moved on lower,
 * what use taught (feedback), a type filter, and for priming the fresher
 * page first.
 */

import { codeNotes, preferCurrentCode } from "../code-refs/recall-code.ts";
import { queryHash } from "../feedback/feedback-event.ts";
import { preferFeedback } from "../feedback/feedback-term.ts";
import type { RetrievalHit } from "../retrieval/retrieval-types.ts";
import { preferFresher } from "../retrieval-policy.ts";
import { datesOfPages } from "../temporal/page-dates.ts";
import type { VaultHandle } from "../vault-handles.ts";
import type { RecallPlan } from "./recall-plan.ts";

export interface Preferred {
  hits: RetrievalHit[];
  /** `vault:id` → the feedback adjustment a page's score was multiplied by (1 + this). */
  feedback?: Map<string, number>;
}

/**
 * Each hit's last-change date by the page-date chain — front matter
 * (`updated` first), else the event log, else its file's last commit —
 * keyed `vault\0id`: priming prefers pages touched lately, not only those
 * with an `updated` field.
 */
function hitDates(
  byKind: ReadonlyMap<string, VaultHandle>,
  hits: ReadonlyArray<{ vault: string; id: string }>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [kind, handle] of byKind) {
    const ids = hits.filter((h) => h.vault === kind).map((h) => h.id);
    if (ids.length === 0) continue;
    for (const [id, d] of datesOfPages(handle.paths, handle.view().pages, ids, "changed")) {
      out.set(`${kind}\u0000${id}`, d.date);
    }
  }
  return out;
}

/** Applies the plan's preferences to `hits`; `feedback` turns the learned term on. */
export function preferHits(
  plan: RecallPlan,
  byKind: ReadonlyMap<string, VaultHandle>,
  retrieved: readonly RetrievalHit[],
  query: string,
  feedback: boolean,
): Preferred {
  const exclude = plan.exclude;
  let hits = exclude ? retrieved.filter((h) => !exclude.has(`${h.vault}:${h.id}`)) : [...retrieved];
  // Pages whose named code moved on: a bounded lower preference (per-commit cache, no git call).
  hits = preferCurrentCode(hits, codeNotes(byKind, hits));
  // What use taught (bounded, after retrieval): reorders, never adds or removes a page.
  let adjusted: Map<string, number> | undefined;
  if (feedback) {
    const projections = new Map(
      [...byKind].map(([kind, handle]) => [kind, handle.feedback.projection(handle.view())]),
    );
    const moved = preferFeedback(
      hits,
      (kind) => projections.get(kind),
      queryHash(query),
      plan.now.getTime(),
    );
    hits = moved.hits;
    adjusted = moved.adjusted;
  }
  const types = plan.typeFilter;
  if (types) hits = hits.filter((h) => types.has(h.type)).slice(0, plan.wanted);
  if (plan.priming) {
    const dates = hitDates(byKind, hits);
    hits = preferFresher(hits, (h) => dates.get(`${h.vault}\u0000${h.id}`), plan.now);
  }
  return adjusted ? { hits, feedback: adjusted } : { hits };
}
