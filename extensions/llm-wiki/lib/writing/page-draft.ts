/**
 * The two types at the ends of the page write path (write-page-pipeline.ts):
 * the draft a writer hands it once its input is validated, and what the
 * pipeline reports back. Every writer that creates a page speaks these, so
 * the stages in between are the same for all of them.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { WikiEvent } from "../vault/events.ts";
import type { Page } from "../vault/page.ts";
import type { RedactionCounts } from "../vault/redaction.ts";

/** A new page and where it may go: the output of a writer's validate stage. */
export interface PageDraft {
  /** Folder under `wiki/`, e.g. `concepts`. */
  folder: string;
  /** Slug tried first; when it is taken, `<base>-2`, `<base>-3`, … */
  base: string;
  /** Frontmatter, in the order it is written. */
  data: Record<string, unknown>;
  /** Markdown body; a final newline is added when missing. */
  body: string;
  /** How many slugs are tried before `page_no_free_slug`. */
  maxAttempts: number;
  /**
   * True when the accepted page found at a taken slug is this same page: it
   * is returned (`created: false`) instead of trying the next slug. A file
   * that cannot be read or parsed is never the same page.
   */
  isSame: (existing: Page) => boolean;
  /** Secrets the writer already took out (of the title, before slugging): counted with the page's. */
  redacted?: RedactionCounts;
  /**
   * Events of this kind of record (`observation_recorded`), logged after
   * `page_created` in the same write when the page is new.
   */
  events?: (place: { id: string; redactions?: RedactionCounts }) => WikiEvent[];
}

/** Where the pipeline put the page, and what it has to say about it. */
export interface PageWrite {
  id: string;
  /** Vault-relative path, `wiki/<folder>/<slug>.md`. */
  path: string;
  /** False when `isSame` recognised the page at a taken slug (nothing written). */
  created: boolean;
  /** Secrets redacted before writing, by kind; absent when none. */
  redactions?: RedactionCounts;
  /** `event_not_recorded` when the page was written but the log could not take its events. */
  diagnostics: Diagnostic[];
}
