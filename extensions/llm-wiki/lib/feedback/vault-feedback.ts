/**
 * One vault's feedback, kept with its handle: the projection of its log,
 * reloaded only when the log changed (a stat per recall, no read), plus the
 * explicit choices recorded as pages (corrections, conflict resolutions),
 * read again only when the registry changed — seen through the registry:
 * a page that no longer exists has no feedback, a correction or resolution
 * page deleted takes its choice with it, and a page created again under an
 * id an earlier page had starts without that page's feedback.
 */
import { statSync } from "node:fs";
import { decisionVaultOf } from "../vault/config.ts";
import { eventLogFiles } from "../vault/event-log-files.ts";
import type { PageMeta } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { RecallRegistry } from "../vault/registry-saved.ts";
import { resolutionMismatch } from "../vault/resolutions.ts";
import { readCorrections } from "./correction.ts";
import {
  FEEDBACK_MAX,
  type FeedbackAdjustments,
  FeedbackProjection,
  loadProjection,
  type NotBefore,
} from "./projection.ts";

export interface VaultFeedback {
  /** The adjustments as of the log's last change, for the pages `registry` holds. */
  projection(registry: Pick<RecallRegistry, "pages">): FeedbackAdjustments;
}

type Pages = RecallRegistry["pages"];

const DAY_MS = 86_400_000;

/**
 * From when a page's feedback counts: a day before its `created` date (a
 * date written in a time zone ahead of UTC may name tomorrow), so the
 * feedback of a page deleted and created again a day or more later is not
 * inherited; a page without `created` keeps all of it.
 */
export function feedbackSince(page: Pick<PageMeta, "created"> | undefined): number | undefined {
  if (!page?.created) return undefined;
  const at = Date.parse(page.created);
  return Number.isFinite(at) ? at - DAY_MS : undefined;
}

/**
 * Explicit choices recorded as pages, as a projection of their own: each
 * correction page (on the page it corrects, for its query), and the
 * selected side of each resolution. Never cached: the pages are the record.
 */
function recordedChoices(
  paths: VaultPaths,
  pages: Pages,
  notBefore: NotBefore,
): FeedbackProjection {
  const choices = new FeedbackProjection();
  const add = (
    page: string,
    queryHash: string | null,
    action: "corrected" | "conflict_selected",
    at: number,
  ) => {
    const since = notBefore(page);
    if (since !== undefined && at < since) return;
    choices.add({ page, queryHash, action, rank: null, at });
  };
  for (const c of readCorrections(paths)) add(c.correctedPage, c.queryHash, "corrected", c.at);
  // Only resolutions recall honours are choices (an edited or made-up record is not).
  const vault = decisionVaultOf(paths);
  for (const page of pages.values()) {
    const r = page.resolution;
    if (!r || resolutionMismatch(page.id, r, vault) !== undefined) continue;
    const at = Date.parse(r.decidedAt);
    add(r.selected, null, "conflict_selected", Number.isFinite(at) ? at : 0);
  }
  return choices;
}

/** The log's and the pages' feedback together, bounded, for existing pages only. */
function throughRegistry(
  log: FeedbackProjection,
  choices: FeedbackProjection,
  pages: Pages,
): FeedbackAdjustments {
  return {
    adjustment(page, queryHash, now) {
      if (!pages.has(page)) return 0;
      const sum =
        log.contribution(page, queryHash, now) + choices.contribution(page, queryHash, now);
      return Math.max(-FEEDBACK_MAX, Math.min(FEEDBACK_MAX, sum));
    },
    pages() {
      return [...new Set([...log.pages(), ...choices.pages()])].filter((p) => pages.has(p));
    },
  };
}

export function createVaultFeedback(paths: VaultPaths): VaultFeedback {
  let loaded:
    | {
        log: FeedbackProjection;
        choices: FeedbackProjection;
        stamp: string;
        pages: Pages;
        view: FeedbackAdjustments;
      }
    | undefined;
  // Every file of the log: a teammate's log a pull brought changes the projection too.
  const stampOf = (): string =>
    eventLogFiles(paths)
      .map((file) => {
        try {
          const s = statSync(file);
          return `${s.size}:${s.mtimeMs}:${s.ino}`;
        } catch {
          return "none";
        }
      })
      .join(" ");
  return {
    projection(registry) {
      const stamp = stampOf();
      const pages = registry.pages;
      if (loaded?.stamp === stamp && loaded.pages === pages) return loaded.view;
      const notBefore: NotBefore = (page) => feedbackSince(pages.get(page));
      let log = loadProjection(paths, { ...(loaded ? { current: loaded.log } : {}), notBefore });
      const pagesChanged = loaded?.pages !== pages;
      if (pagesChanged) {
        // A page created since its earliest event is another page under an old id: replay
        // the log without the events before its creation (rare: a page deleted and made again).
        const recreated = log.pages().some((page) => {
          const since = notBefore(page);
          return since !== undefined && (log.firstEvent(page) ?? since) < since;
        });
        if (recreated) log = loadProjection(paths, { notBefore, rebuild: true });
      }
      const choices =
        loaded && !pagesChanged ? loaded.choices : recordedChoices(paths, pages, notBefore);
      const view = throughRegistry(log, choices, pages);
      loaded = { log, choices, stamp, pages, view };
      return view;
    },
  };
}
