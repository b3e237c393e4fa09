/**
 * Stage validate of `ensurePage` (see write-page-pipeline.ts): a page type
 * and title checked, a front-matter block pasted at the top of the content
 * merged (explicit fields winning), the front matter assembled in the
 * order it is written, and its one-line fields checked. Refusals throw
 * `WikiError` with `page_invalid_input` (or the one-line check's
 * `invalid_input`); nothing is written then.
 */
import { type Diagnostic, diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { checkPageLines } from "../safety/text.ts";
import { readFrontmatter } from "../vault/frontmatter.ts";
import { CANONICAL_TYPES, EVIDENCE_TYPES } from "../vault/page.ts";
import { type RedactionCounts, redactText } from "../vault/redaction.ts";
import type { RelationInput } from "./page-relations-input.ts";

export interface EnsurePageInput {
  type: string;
  title: string;
  /** Markdown body; a frontmatter block pasted at its top is merged, explicit fields winning. */
  content?: string;
  description?: string;
  tags?: string[];
  aliases?: string[];
  status?: string;
  /** Evidence the page rests on (source ids such as `SRC-…`, or page ids), front matter `sources:`. */
  sources?: string[];
  /** Typed relations to other pages, front matter `relations:` (checked by page-relations-input.ts). */
  relations?: RelationInput[];
  /** Further frontmatter keys, kept as given. */
  extra?: Record<string, unknown>;
}

/** A checked `ensurePage` input: what the page holds, before the shared stages. */
export interface EnsurePageFields {
  type: string;
  /** NFKC, trimmed, its secrets already redacted (it becomes the slug). */
  title: string;
  data: Record<string, unknown>;
  body: string;
  /** Secrets taken out of the title. */
  redacted: RedactionCounts;
  /** What became of a pasted front-matter block (merged, or kept as text). */
  diagnostics: Diagnostic[];
}

const knownTypes: ReadonlySet<string> = new Set([...CANONICAL_TYPES, ...EVIDENCE_TYPES]);

function invalidInput(message: string): never {
  throw new WikiError(diagnostic("page_invalid_input", "error", message));
}

/**
 * Checks `input` and assembles the page's front matter (`created` and
 * `updated` default to `now`'s day). Throws `page_invalid_input` for an
 * unknown type or an empty title.
 */
export function validateEnsurePage(input: EnsurePageInput, now: Date): EnsurePageFields {
  const diagnostics: Diagnostic[] = [];
  const type = input.type.trim().toLowerCase();
  // Redacted before slugging: the slug becomes the file name, never rewritten later.
  const redacted: RedactionCounts = {};
  const title = redactText(input.title.normalize("NFKC").trim(), redacted);
  if (!knownTypes.has(type)) invalidInput(`unknown page type "${input.type}"`);
  if (title === "") invalidInput("a page needs a non-empty title");

  const pasted = pastedFrontmatter(input.content ?? "");
  if (pasted.diagnostic) diagnostics.push(pasted.diagnostic);
  const today = now.toISOString().slice(0, 10);
  // Hosts pass absent optional fields as `undefined`, which YAML cannot dump.
  const extra = Object.entries(input.extra ?? {}).filter(([, value]) => value !== undefined);
  const data: Record<string, unknown> = { ...pasted.data, ...Object.fromEntries(extra) };
  Object.assign(data, { type, title });
  if (input.description !== undefined) data.description = input.description;
  if (input.tags !== undefined) data.tags = input.tags;
  if (input.aliases !== undefined) data.aliases = input.aliases;
  if (input.sources !== undefined) data.sources = input.sources;
  data.status = input.status ?? data.status ?? "draft";
  data.created ??= today;
  data.updated ??= today;
  // Title, description, aliases, tags: one line of visible text each (issue 10).
  checkPageLines(data);
  return { type, title, data, body: pasted.body, redacted, diagnostics };
}

/** A front-matter block at the top of `content`: its fields and the body below it. */
function pastedFrontmatter(content: string): {
  data: Record<string, unknown>;
  body: string;
  diagnostic?: Diagnostic;
} {
  if (!/^\uFEFF?---\r?\n/.test(content)) return { data: {}, body: content };
  let problem: string;
  try {
    const parsed = readFrontmatter(content.replace(/^\uFEFF/, ""));
    const data: unknown = parsed.data;
    // A leading `---` rule around a paragraph parses as a YAML string, not fields.
    if (data !== null && typeof data === "object" && !Array.isArray(data)) {
      return {
        data: data as Record<string, unknown>,
        body: parsed.content.replace(/^\r?\n/, ""),
        diagnostic: diagnostic(
          "page_frontmatter_merged",
          "info",
          "frontmatter found in the content was merged",
        ),
      };
    }
    problem = "is not a mapping";
  } catch (error) {
    problem = `is not valid YAML (${(errorMessage(error).split("\n")[0] ?? "").replace(/:\s*$/, "")})`;
  }
  return {
    data: {},
    body: content,
    diagnostic: diagnostic(
      "page_frontmatter_kept_as_text",
      "warning",
      `content starts like frontmatter but ${problem}; kept as text`,
    ),
  };
}
