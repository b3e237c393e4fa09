/**
 * The CLI's writing commands, each one service operation (the same the Pi and
 * MCP tools call): `page`, `observe`, `retro`, `log-event`, `ingest`.
 * Text arguments of `-` are read from standard input.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import {
  type IngestStep,
  renderEnsurePage,
  renderIngest,
  renderLogEvent,
  renderObservation,
  renderRetro,
} from "../extensions/llm-wiki/lib/render-text.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import type { Relevance } from "../extensions/llm-wiki/lib/writing/observe.ts";
import { intOption, type OptionSpec, type Parsed, UsageError } from "./args.ts";

interface Outcome {
  ok: boolean;
  result: object;
  text: string;
  diagnostics: Diagnostic[];
}

const list: OptionSpec = { type: "string", multiple: true };

/** Options of each writing command beyond the common ones. */
export const WRITING_OPTIONS: Record<string, Record<string, OptionSpec>> = {
  page: {
    type: { type: "string" },
    title: { type: "string" },
    content: { type: "string" },
    description: { type: "string" },
    tag: list,
    alias: list,
    relation: list,
    source: list,
  },
  observe: {
    title: { type: "string" },
    content: { type: "string" },
    tag: list,
    source: list,
    relevance: { type: "string" },
  },
  retro: {
    title: { type: "string" },
    context: { type: "string" },
    "went-well": list,
    "went-badly": list,
    lesson: list,
    tag: list,
    source: list,
    alias: list,
  },
  "log-event": { detail: { type: "string" } },
  ingest: { part: { type: "string" }, "mark-ingested": { type: "boolean" } },
};

export const WRITING_USAGE = `  page --type T --title T [--content C|-] [--description D] [--tag X]… [--alias A]…
       [--relation TYPE:TARGET[:SCOPE]]… [--source S]…
                                           create a page unless its title exists (never overwrites);
                                           on an existing page, relations and sources are added
  observe --title T --content C|- [--tag X]… [--source S]… [--relevance R]
  retro --title T --lesson L… [--went-well X]… [--went-badly X]… [--context C] [--alias A]…
  log-event KIND [--detail JSON]           append one event to the event log
  ingest [SOURCE] [--part N] [--mark-ingested]
                                           a captured source's text in parts, with the page schema
`;

function text(value: string | boolean | undefined, name: string, required: true): string;
function text(
  value: string | boolean | undefined,
  name: string,
  required?: false,
): string | undefined;
function text(
  value: string | boolean | undefined,
  name: string,
  required = false,
): string | undefined {
  if (value === undefined || value === false) {
    if (required) throw new UsageError(`--${name} is required`);
    return undefined;
  }
  if (value === true) throw new UsageError(`--${name} takes a value`);
  // `-` was replaced by standard input before the handler ran (see resolveStdinValues).
  return value;
}

const outcome = <R extends { ok: boolean; diagnostics: Diagnostic[] }>(
  result: R,
  rendered: string,
): Outcome => ({
  ok: result.ok,
  result,
  text: rendered,
  diagnostics: result.diagnostics,
});

/**
 * `--relation TYPE:TARGET[:SCOPE]` as a relation, e.g. `supersedes:decisions/old-cache`
 * or `applies_under:concepts/retry:mobile clients`; the service checks type and target.
 */
export function relationOption(value: string): { type: string; target: string; scope?: string } {
  const first = value.indexOf(":");
  if (first <= 0 || first === value.length - 1) {
    throw new UsageError(
      `--relation takes TYPE:TARGET[:SCOPE], e.g. supersedes:decisions/old-cache (got "${value}")`,
    );
  }
  const type = value.slice(0, first);
  const rest = value.slice(first + 1);
  const second = rest.indexOf(":");
  if (second < 0) return { type, target: rest };
  return { type, target: rest.slice(0, second), scope: rest.slice(second + 1) };
}

/** The next ingest step as the command that takes it, e.g. `llm-wiki ingest SRC-… --part 2`. */
function ingestCommand(next: IngestStep): string {
  const source = /^[\w./-]+$/.test(next.source) ? next.source : JSON.stringify(next.source);
  return [
    `llm-wiki ingest ${source}`,
    next.part !== undefined ? `--part ${next.part}` : undefined,
    next.mark_ingested ? "--mark-ingested" : undefined,
  ]
    .filter((w) => w !== undefined)
    .join(" ");
}

/** Handlers of the writing commands, keyed like WRITING_OPTIONS. */
export const WRITING_HANDLERS: Record<string, (service: WikiService, args: Parsed) => Outcome> = {
  page(service, { values, lists }) {
    const description = text(values.description, "description");
    const content = text(values.content, "content");
    const result = service.ensurePage({
      type: text(values.type, "type", true),
      title: text(values.title, "title", true),
      ...(content !== undefined ? { content } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(lists.tag?.length ? { tags: lists.tag } : {}),
      ...(lists.alias?.length ? { aliases: lists.alias } : {}),
      ...(lists.relation?.length ? { relations: lists.relation.map(relationOption) } : {}),
      ...(lists.source?.length ? { sources: lists.source } : {}),
    });
    return outcome(result, renderEnsurePage(result));
  },
  observe(service, { values, lists }) {
    // Checked by the service, which names the values it takes.
    const relevance = text(values.relevance, "relevance");
    const result = service.observe({
      title: text(values.title, "title", true),
      content: text(values.content, "content", true),
      ...(lists.tag?.length ? { tags: lists.tag } : {}),
      ...(lists.source?.length ? { sources: lists.source } : {}),
      ...(relevance !== undefined ? { relevance: relevance as Relevance } : {}),
    });
    return outcome(result, renderObservation(result));
  },
  retro(service, { values, lists }) {
    if (!lists.lesson?.length) throw new UsageError("retro needs at least one --lesson");
    const context = text(values.context, "context");
    const result = service.retro({
      title: text(values.title, "title", true),
      lessons: lists.lesson,
      ...(context !== undefined ? { context } : {}),
      ...(lists["went-well"]?.length ? { went_well: lists["went-well"] } : {}),
      ...(lists["went-badly"]?.length ? { went_badly: lists["went-badly"] } : {}),
      ...(lists.tag?.length ? { tags: lists.tag } : {}),
      ...(lists.source?.length ? { sources: lists.source } : {}),
      ...(lists.alias?.length ? { aliases: lists.alias } : {}),
    });
    return outcome(result, renderRetro(result));
  },
  "log-event"(service, { positionals, values }) {
    const [kind, ...extra] = positionals;
    if (kind === undefined || extra.length > 0) throw new UsageError("log-event takes one KIND");
    const raw = text(values.detail, "detail");
    let detail: Record<string, unknown> | undefined;
    if (raw !== undefined) {
      try {
        detail = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        throw new UsageError("--detail must be a JSON object");
      }
    }
    const result = service.logEvent({ kind, ...(detail !== undefined ? { detail } : {}) });
    return outcome(result, renderLogEvent(result));
  },
  ingest(service, { positionals, values }) {
    if (positionals.length > 1) throw new UsageError("ingest takes at most one SOURCE");
    const [source] = positionals;
    const result = service.ingest({
      ...(source !== undefined ? { source } : {}),
      ...(values.part !== undefined ? { part: intOption(values.part, "part", 1) } : {}),
      ...(values["mark-ingested"] ? { markIngested: true } : {}),
    });
    return outcome(result, renderIngest(result, ingestCommand));
  },
};
