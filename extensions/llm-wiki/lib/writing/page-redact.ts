/**
 * Stage redact of the page write path: the draft's front matter and body
 * with every secret taken out, value by value (keys and list items too, and
 * values that are secrets only beside their key). The last stop before the
 * disk: whatever a writer missed is redacted here. The page's text is
 * redacted once more as a whole when it is rendered (page-render.ts).
 */
import { type RedactionCounts, redactText, redactValue, sumCounts } from "../vault/redaction.ts";
import type { PageDraft } from "./page-draft.ts";

/** A draft's content with its secrets taken out, and how many of each kind there were. */
export interface RedactedPage {
  data: Record<string, unknown>;
  body: string;
  /** The writer's own counts (`draft.redacted`) plus what this stage found. */
  counts: RedactionCounts;
}

/** Redacts `draft`'s front matter and body; the draft itself is left as it was. */
export function redactPage(draft: Pick<PageDraft, "data" | "body" | "redacted">): RedactedPage {
  const counts: RedactionCounts = sumCounts(draft.redacted);
  const data = redactValue(draft.data, counts);
  const body = redactText(draft.body, counts);
  return { data, body, counts };
}
