/**
 * Recall feedback as internal `recall_feedback` events in the vault's
 * append-only `meta/events.jsonl`: which page was shown for which query (a
 * SHA-256 of the normalised query, never its text), at which rank, in which
 * mode, and what became of it. The raw query is never written anywhere
 * durable: it exists only in the memory of the process that recalled.
 */
import { createHash } from "node:crypto";
import { appendEvents } from "../vault/events.ts";
import type { VaultPaths } from "../vault/paths.ts";

export const FEEDBACK_EVENT_KIND = "recall_feedback";
/** Version of the event's shape; readers skip events of another. */
export const FEEDBACK_SCHEMA = 1;

/** Everything that can become of a shown page, implicit first. */
export const FEEDBACK_ACTIONS = [
  "shown",
  "opened",
  "cited",
  "shown_only",
  "relevant",
  "irrelevant",
  "corrected",
  "conflict_selected",
] as const;
export type FeedbackAction = (typeof FEEDBACK_ACTIONS)[number];

/** What a user or agent states explicitly about a shown page. */
export const JUDGMENTS = ["relevant", "irrelevant", "corrected"] as const;
export type Judgment = (typeof JUDGMENTS)[number];

/** Implicit actions: captured only while the `recallFeedback` setting is on. */
export const IMPLICIT_ACTIONS: ReadonlySet<FeedbackAction> = new Set([
  "shown",
  "opened",
  "cited",
  "shown_only",
]);

/** One feedback event as logged (snake case, like the log's other events). */
export interface FeedbackEvent {
  kind: typeof FEEDBACK_EVENT_KIND;
  schema: typeof FEEDBACK_SCHEMA;
  visibility: "internal";
  /** The vault's stable id (`vault_id` of its config), so a moved vault keeps its history. */
  vault_id: string;
  page: string;
  /** `sha256:<hex>` of the normalised query; null for a choice made outside a recall (a conflict resolution). */
  query_hash: string | null;
  action: FeedbackAction;
  /** 1-based rank the page was shown at; null when not shown by a recall. */
  rank: number | null;
  mode: string;
  /** What answered: our index format and the embed model, when vectors took part. */
  index_version: string;
  embed_model?: string;
  /** The correction's observation page (`corrected`), or the resolution (`conflict_selected`). */
  observation?: string;
  resolution?: string;
}

/** Version of what answers recall, recorded with each event (feedback from another era can be told apart). */
export const INDEX_VERSION = "llm-wiki-index-1";

/**
 * The normalised form a query is hashed in: NFKC, lower case, whitespace
 * collapsed, trimmed — the same question asked twice hashes the same.
 */
export function normalizeForHash(query: string): string {
  return query.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

/** `sha256:<hex>` of the normalised query. */
export function queryHash(query: string): string {
  return `sha256:${createHash("sha256").update(normalizeForHash(query), "utf8").digest("hex")}`;
}

/** Whether `value` reads as a feedback event of the current schema (fields checked, not trusted). */
export function isFeedbackEvent(value: unknown): value is FeedbackEvent & { ts: string } {
  if (value === null || typeof value !== "object") return false;
  const e = value as Record<string, unknown>;
  return (
    e.kind === FEEDBACK_EVENT_KIND &&
    e.schema === FEEDBACK_SCHEMA &&
    typeof e.ts === "string" &&
    typeof e.page === "string" &&
    typeof e.action === "string" &&
    (FEEDBACK_ACTIONS as readonly string[]).includes(e.action) &&
    (e.query_hash === null || typeof e.query_hash === "string") &&
    (e.rank === null || typeof e.rank === "number")
  );
}

/** Appends feedback events to the vault's log in one write, redacted like every event. */
export function appendFeedback(
  paths: VaultPaths,
  events: readonly Omit<FeedbackEvent, "kind" | "schema" | "visibility">[],
  now: Date = new Date(),
): void {
  appendEvents(
    paths,
    events.map((event) => ({
      kind: FEEDBACK_EVENT_KIND,
      schema: FEEDBACK_SCHEMA,
      visibility: "internal",
      ...event,
    })),
    now,
  );
}
