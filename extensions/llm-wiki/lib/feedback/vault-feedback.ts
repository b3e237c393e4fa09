/**
 * One vault's feedback, kept with its handle: the projection of its log,
 * reloaded only when the log changed (a stat per recall, no read), with
 * the explicit choices recorded as pages replayed over it (corrections and
 * conflict resolutions whose events the log lacks).
 */
import { statSync } from "node:fs";
import type { VaultPaths } from "../vault/paths.ts";
import type { RecallRegistry } from "../vault/registry-saved.ts";
import { readCorrections } from "./correction.ts";
import { type FeedbackProjection, type FeedbackSignal, loadProjection } from "./projection.ts";

export interface VaultFeedback {
  /** The projection as of the log's last change. */
  projection(registry: Pick<RecallRegistry, "pages">): FeedbackProjection;
}

type Choice = { id: string; signal: FeedbackSignal };

/** Explicit choices recorded as pages: corrections, and the selected side of each resolution. */
function recordedChoices(paths: VaultPaths, registry: Pick<RecallRegistry, "pages">): Choice[] {
  const choices: Choice[] = [];
  for (const c of readCorrections(paths)) {
    choices.push({
      id: c.id,
      signal: {
        page: c.correctedPage,
        queryHash: c.queryHash,
        action: "corrected",
        rank: null,
        at: c.at,
      },
    });
  }
  for (const page of registry.pages.values()) {
    const r = page.resolution;
    if (!r) continue;
    const at = Date.parse(r.decidedAt);
    choices.push({
      id: r.id,
      signal: {
        page: r.selected,
        queryHash: null,
        action: "conflict_selected",
        rank: null,
        at: Number.isFinite(at) ? at : 0,
      },
    });
  }
  return choices;
}

export function createVaultFeedback(paths: VaultPaths): VaultFeedback {
  let loaded:
    | { projection: FeedbackProjection; stamp: string; pages: object; choices: Choice[] }
    | undefined;
  const stampOf = (): string => {
    try {
      const s = statSync(paths.events);
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return "none";
    }
  };
  return {
    projection(registry) {
      const stamp = stampOf();
      if (loaded?.stamp === stamp && loaded.pages === registry.pages) return loaded.projection;
      const projection = loadProjection(paths, loaded?.projection);
      // Pages change with the registry: read them again only then.
      const choices =
        loaded && loaded.pages === registry.pages
          ? loaded.choices
          : recordedChoices(paths, registry);
      // Again after every fold: an event read since may now count a page's choice.
      projection.replayPages(choices);
      loaded = { projection, stamp, pages: registry.pages, choices };
      return projection;
    },
  };
}
