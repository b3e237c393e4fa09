/**
 * The write path of a new page, shared by every writer that creates one
 * (ensurePage, observe, retro, recall corrections, conflict resolutions,
 * trajectories), as one pipeline of named stages, each its own module with
 * a typed input and output:
 *
 *   validate  the writer's own module      input → PageDraft (checks of writing/input.ts;
 *                                           ensure-page-input.ts, unique-page.ts, …)
 *   redact    writing/page-redact.ts       PageDraft → RedactedPage: every value and the body
 *   render    writing/page-render.ts       RedactedPage → RenderedPage: the file's text, redacted
 *                                           again as written, refused if the registry would refuse it
 *   place     writing/page-place.ts        text → PlacedPage: first free slug, never overwriting;
 *                                           written by vault/fs-safe.ts createFileExclusive (atomic,
 *                                           exclusive, never through a link)
 *   record    writing/page-record.ts       PlacedPage → RecordedPage: `page_created` and the writer's
 *                                           events in one append (vault/events.ts); a log that cannot
 *                                           take them is a warning, the page stands
 *   index     writing/index-written-page.ts  the asynchronous operations only: the written page
 *                                           into the search index, a failure a warning
 *
 * A stage that refuses throws `WikiError` before anything is written; after
 * place nothing throws for the log or the index.
 */
import type { VaultPaths } from "../vault/paths.ts";
import type { Writer } from "../vault/writer.ts";
import type { PageDraft, PageWrite } from "./page-draft.ts";
import { placePage } from "./page-place.ts";
import { recordPage } from "./page-record.ts";
import { redactPage } from "./page-redact.ts";
import { renderPage } from "./page-render.ts";

export type { PageDraft, PageWrite } from "./page-draft.ts";

/** `draft` naming who wrote it (`author`, `agent`) after its own fields, unless it already does. */
export function withWriter<T extends { data: Record<string, unknown> }>(
  draft: T,
  writer: Writer | undefined,
): T {
  if (writer === undefined) return draft;
  const data = { ...draft.data };
  if (writer.name !== undefined && data.author === undefined) data.author = writer.name;
  if (data.agent === undefined) data.agent = writer.agent;
  return { ...draft, data };
}

/**
 * Writes `draft` at its first free slug and logs its events; never replaces
 * a file. Returns `created: false` (nothing written, nothing logged) when
 * `draft.isSame` recognised the page at a taken slug.
 */
export function writePage(vault: VaultPaths, draft: PageDraft, now: Date): PageWrite {
  const redacted = redactPage(withWriter(draft, vault.writer?.()));
  const rendered = renderPage(redacted, `${draft.folder}/${draft.base}`);
  const placed = placePage(vault, { ...draft, title: String(rendered.data.title) }, rendered.text);
  if (!placed.created) return { ...placed, diagnostics: [] };
  const recorded = recordPage(
    vault,
    { id: placed.id, type: rendered.data.type, counts: rendered.counts },
    draft.events,
    now,
  );
  return { ...placed, ...recorded };
}
