/**
 * `ingest`: turns captured sources (skeleton source pages) into knowledge.
 * No model runs here: the operation hands the calling agent the packet's text
 * one part at a time (see `split-parts.ts`) with the page schema, and the
 * agent writes the pages. It marks nothing by itself; `markIngested` flips
 * one source page from `skeleton` to `ingested` once the agent is done. In
 * Pi that agent is by default a sub-agent of the session's model
 * (`pi/ingest-subagent.ts`), which follows these same steps.
 */
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";
import { redactSecrets } from "../safety/redact.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import { findSource, readSourceText, type SourceRef, skeletonSources } from "./ingest-sources.ts";
import { invalid } from "./input.ts";
import { markIngested } from "./mark-ingested.ts";
import { pageSchema } from "./page-schema.ts";
import { PART_CHARS, splitIntoParts } from "./split-parts.ts";

export interface IngestInput {
  /** A source id (`SRC-…`) or source page id; default: the oldest skeleton source. */
  source?: string;
  /** Which part to return, from 1; default 1. */
  part?: number;
  /** Mark `source` as ingested (its page's status `skeleton` → `ingested`) instead of reading it. */
  markIngested?: boolean;
}

/** One part of a source's text and where it sits in the whole. */
export interface IngestPart {
  index: number;
  count: number;
  /** Character offsets of the part in the whole text, and the whole text's length. */
  start: number;
  end: number;
  total: number;
  text: string;
}

export interface IngestResult {
  ok: boolean;
  source?: SourceRef;
  part?: IngestPart;
  /** Page schema and writing rules, with every part. */
  schema?: string;
  /** The arguments of the call to make next: the next part, or marking the source when done. */
  next?: { source: string; part?: number; mark_ingested?: true };
  marked?: { page: string; path: string; changed: boolean; backup?: string };
  /** Skeleton sources waiting besides the one handled here, oldest first. */
  pending: SourceRef[];
  diagnostics: Diagnostic[];
}

/**
 * The answer of a host that cannot run `wiki_ingest` with `mode: "subagent"`
 * (a sub-agent of the host's own model writing the pages; MCP and the CLI
 * have no model, a Pi session may have none selected): refused, nothing read
 * or changed, with the hand-off call that works instead.
 */
export function subagentUnavailable(reason: string): IngestResult {
  return {
    ok: false,
    pending: [],
    diagnostics: [
      diagnostic("ingest_no_model", "error", `mode "subagent" needs a model: ${reason}`, {
        repair: 'wiki_ingest {"mode": "handoff"}: returns the text for you to write the pages',
      }),
    ],
  };
}

function keyOf(ref: SourceRef): string {
  return ref.sourceId ?? ref.page ?? ref.title;
}

function others(list: SourceRef[], ref?: SourceRef): SourceRef[] {
  return ref ? list.filter((s) => keyOf(s) !== keyOf(ref)) : list;
}

function notFound(source: string): never {
  throw new WikiError(
    diagnostic(
      "ingest_source_not_found",
      "error",
      `no source "${source}": give a source id (SRC-…) or a source page id; wiki_ingest without a source lists those waiting`,
    ),
  );
}

/** Runs one ingest step. Throws `WikiError` for a refused request (nothing changed). */
export function ingestStep(
  vault: VaultPaths,
  registry: () => Registry,
  input: IngestInput,
  now: Date = new Date(),
): IngestResult {
  const wanted = input.source?.trim() || undefined;
  if (input.markIngested) {
    if (!wanted) invalid("source", "mark_ingested needs the source to mark");
    // One refresh per step: marking changes only `ref`, which `pending` leaves out anyway.
    const pages = registry();
    const ref = findSource(vault, pages, wanted) ?? notFound(wanted);
    const outcome = markIngested(vault, ref, now);
    return {
      ok: true,
      source: outcome.changed ? { ...ref, status: "ingested" } : ref,
      marked: {
        page: ref.page ?? "",
        path: ref.pagePath ?? "",
        changed: outcome.changed,
        ...(outcome.backup ? { backup: outcome.backup } : {}),
      },
      pending: others(skeletonSources(vault, pages), ref),
      diagnostics: outcome.diagnostics,
    };
  }

  const part = input.part ?? 1;
  if (!Number.isInteger(part) || part < 1) invalid("part", "must be a whole number from 1");
  const pages = registry();
  const waiting = skeletonSources(vault, pages);
  const ref = wanted ? (findSource(vault, pages, wanted) ?? notFound(wanted)) : waiting[0];
  if (!ref) {
    return {
      ok: true,
      pending: [],
      diagnostics: [
        diagnostic(
          "ingest_nothing_waiting",
          "info",
          "no skeleton source is waiting to be ingested",
        ),
      ],
    };
  }
  const diagnostics: Diagnostic[] = [];
  if (ref.page && ref.status !== "skeleton") {
    diagnostics.push(
      diagnostic(
        "ingest_not_skeleton",
        "info",
        `${ref.pagePath ?? ref.page} has status "${ref.status ?? "none"}": it was summarised before; read again on request`,
        ref.pagePath ? { path: ref.pagePath } : {},
      ),
    );
  }
  // A packet captured here is redacted already; one placed by hand may not
  // be, and this text goes to a model that writes pages from it.
  const text = redactSecrets(readSourceText(vault, ref)).text;
  const parts = splitIntoParts(text, PART_CHARS);
  const chosen = parts[part - 1];
  if (!chosen) {
    throw new WikiError(
      diagnostic(
        "ingest_part_out_of_range",
        "error",
        `${keyOf(ref)} has ${parts.length} part(s); part ${part} does not exist`,
      ),
    );
  }
  const key = keyOf(ref);
  const next =
    part < parts.length
      ? { source: key, part: part + 1 }
      : ref.page && ref.status === "skeleton"
        ? { source: key, mark_ingested: true as const }
        : undefined;
  return {
    ok: true,
    source: ref,
    part: {
      index: chosen.index,
      count: parts.length,
      start: chosen.start,
      end: chosen.end,
      total: text.length,
      text: chosen.text,
    },
    schema: pageSchema(ref),
    ...(next ? { next } : {}),
    pending: others(waiting, ref),
    diagnostics,
  };
}
