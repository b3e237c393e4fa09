/**
 * Stage render of the page write path: the redacted front matter over the
 * body as the file's text, redacted once more as written (a `password: …`
 * field is a secret only next to its key; see `redactRecord`, which fails
 * closed with `redaction_failed`), then read back as the registry will read
 * it. A text the registry would refuse (`page_too_large`, `page_binary`, …)
 * is refused here, before anything is written: such a page must never be
 * reported as created and then be missing from the wiki.
 */
import { WikiError } from "../diagnostics.ts";
import { parsePage } from "../vault/page.ts";
import { pageFormat, redactRecord, sumCounts } from "../vault/redaction.ts";
import type { RedactedPage } from "./page-redact.ts";

/** The page's text as it will be written, and its counts with the whole-text pass added. */
export type RenderedPage = RedactedPage & { text: string };

/**
 * Renders `page` as it would be written at `wiki/<id>.md` (`id` names the
 * page in a refusal). Throws `WikiError` with the parser's own diagnostic.
 */
export function renderPage(page: RedactedPage, id: string): RenderedPage {
  const counts = sumCounts(page.counts);
  const body = page.body.endsWith("\n") || page.body === "" ? page.body : `${page.body}\n`;
  const text = redactRecord(page.data, pageFormat(body), counts);
  const parsed = parsePage(id, `wiki/${id}.md`, Buffer.from(text, "utf8"));
  const refusal = parsed.ok ? undefined : parsed.diagnostics.find((d) => d.severity === "error");
  if (refusal) {
    throw new WikiError({ ...refusal, message: `not written: ${refusal.message}` });
  }
  return { data: page.data, body, counts, text };
}
