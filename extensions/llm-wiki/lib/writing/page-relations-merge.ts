/**
 * Adding relations and sources to a page that exists, without rewriting it:
 * only the `relations:` and `sources:` keys of its front matter change (each
 * replaced in place, or added at the end of the block), every other line of
 * the block and the body stay byte for byte, except that a `[[target]]` link
 * line is appended to the body for a relation whose target it does not link
 * yet (a relation counts only when the body links its target). The result
 * is parsed again before it is written: unless every other key reads as it
 * did, nothing is written. The write is atomic and yields to a concurrent
 * editor (frontmatter-edit.ts).
 */
import { isDeepStrictEqual } from "node:util";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { readFrontmatter, writeFrontmatter } from "../vault/frontmatter.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { parseRelations, type Relation } from "../vault/relations.ts";
import { commitEdit, openFrontmatter } from "./frontmatter-edit.ts";
import { relationEntry, relationKey } from "./page-relations-input.ts";
import { relationLinkLines } from "./relation-links.ts";

/** What an addition did: each list in the order given. */
export interface RelationsMerge {
  /** True when the page file was rewritten. */
  updated: boolean;
  relations: { added: Relation[]; present: Relation[] };
  sources: { added: string[]; present: string[] };
  /** Targets a link line was appended to the body for. */
  linksAdded: string[];
  diagnostics: Diagnostic[];
}

const TOP_KEY = /^([A-Za-z_][\w-]*)[ \t]*:/;

/** The lines `[start, end)` of top-level key `key` in `block` (each line with its ending). */
function keySpan(lines: readonly string[], key: string): [number, number] | undefined {
  const start = lines.findIndex((l) => TOP_KEY.exec(l)?.[1] === key);
  if (start < 0) return undefined;
  let end = start + 1;
  // A value goes on while lines are indented, blank, or compact sequence items (`- x` at column 0).
  while (end < lines.length && /^([ \t]|-(\s|$)|\r?\n|$)/.test(lines[end] ?? "")) end += 1;
  while (end > start + 1 && /^[ \t]*\r?\n?$/.test(lines[end - 1] ?? "")) end -= 1;
  return [start, end];
}

/** `key: value` as YAML lines in `eol`, through the front-matter writer. */
function dumpKey(key: string, value: unknown, eol: string): string {
  const text = writeFrontmatter("", { [key]: value });
  const inner = text.replace(/^---\r?\n/, "").replace(/---\s*$/, "");
  return inner.replace(/\r?\n/g, eol);
}

function failed(path: string, why: string): RelationsMerge {
  return {
    updated: false,
    relations: { added: [], present: [] },
    sources: { added: [], present: [] },
    linksAdded: [],
    diagnostics: [
      diagnostic(
        "page_relations_not_added",
        "warning",
        `${path}: relations and sources were not added: ${why}; nothing written`,
        { path },
      ),
    ],
  };
}

/**
 * Adds `relations` and `sources` missing from the page at `path`
 * (vault-relative); relations already present (same type, target and
 * scope) and sources already listed are reported, not repeated.
 */
export function mergeIntoPage(
  vault: VaultPaths,
  path: string,
  relations: readonly Relation[],
  sources: readonly string[],
  /** Whether the body as it stands links `target` (resolved as the registry would). */
  bodyLinks: (body: string, target: string) => boolean,
): RelationsMerge {
  const site = openFrontmatter(vault, path);
  if (site === "unsafe") return failed(path, "the page is not a plain file inside wiki/");
  if (site === "no_frontmatter") return failed(path, "the page has no front matter block");
  let data: Record<string, unknown>;
  let body: string;
  try {
    const parsed = readFrontmatter(site.text);
    if (parsed.data === null || typeof parsed.data !== "object" || Array.isArray(parsed.data)) {
      return failed(path, "its front matter is not a mapping");
    }
    data = parsed.data as Record<string, unknown>;
    body = parsed.content;
  } catch {
    return failed(path, "its front matter does not parse");
  }

  const oldRelations = data.relations ?? [];
  if (!Array.isArray(oldRelations)) return failed(path, "its `relations` is not a list");
  const oldSources = data.sources ?? [];
  const sourceList = typeof oldSources === "string" ? [oldSources] : oldSources;
  if (!Array.isArray(sourceList)) return failed(path, "its `sources` is not a list");

  const have = new Set(parseRelations(oldRelations, path).relations.map(relationKey));
  const rel = { added: [] as Relation[], present: [] as Relation[] };
  for (const r of relations) {
    if (have.has(relationKey(r))) rel.present.push(r);
    else {
      have.add(relationKey(r));
      rel.added.push(r);
    }
  }
  const listed = new Set(sourceList.map((s) => String(s).trim()));
  const src = { added: [] as string[], present: [] as string[] };
  for (const s of sources) {
    if (listed.has(s)) src.present.push(s);
    else {
      listed.add(s);
      src.added.push(s);
    }
  }
  const linksAdded = rel.added.filter((r) => !bodyLinks(body, r.target));
  const result = { relations: rel, sources: src, diagnostics: [] as Diagnostic[] };
  if (rel.added.length === 0 && src.added.length === 0) {
    return { ...result, updated: false, linksAdded: [] };
  }

  const lines: string[] = site.block.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const edits: Array<[string, unknown]> = [];
  if (rel.added.length > 0)
    edits.push(["relations", [...oldRelations, ...rel.added.map(relationEntry)]]);
  if (src.added.length > 0) edits.push(["sources", [...sourceList, ...src.added]]);
  for (const [key, value] of edits) {
    const dumped = dumpKey(key, value, site.eol);
    const span = keySpan(lines, key);
    if (span) lines.splice(span[0], span[1] - span[0], dumped);
    else {
      // A block whose last line lacks its ending (`key: v---`) cannot happen: the fence needs one.
      lines.push(dumped);
    }
  }
  const block = lines.join("");
  const head = site.text.slice(0, site.start);
  let tail = site.text.slice(site.start + site.block.length);
  if (linksAdded.length > 0) {
    const end = /\r?\n$/.test(tail) || tail === "" ? "" : site.eol;
    tail = `${tail}${end}${site.eol}${relationLinkLines(linksAdded).join(site.eol)}${site.eol}`;
  }
  const after = `${head}${block}${tail}`;

  // Whatever the splice did, it must read back as the old data with these two keys added to.
  const expected: Record<string, unknown> = { ...data };
  for (const [key, value] of edits) expected[key] = value;
  try {
    const reread = readFrontmatter(after);
    if (
      !isDeepStrictEqual(
        JSON.parse(JSON.stringify(reread.data)),
        JSON.parse(JSON.stringify(expected)),
      )
    ) {
      return failed(path, "its front matter could not be edited without changing other keys");
    }
  } catch {
    return failed(path, "the edited front matter would not parse");
  }
  if (!commitEdit(site, after)) return failed(path, "the page changed while it was being edited");
  return {
    ...result,
    updated: true,
    linksAdded: [...new Set(linksAdded.map((r) => r.target))],
    diagnostics: [
      diagnostic(
        "page_relations_added",
        "info",
        `${path}: added ${[
          rel.added.length ? `${rel.added.length} relation(s)` : "",
          src.added.length ? `${src.added.length} source(s)` : "",
        ]
          .filter(Boolean)
          .join(
            " and ",
          )} to its front matter; the rest of the page is unchanged${linksAdded.length ? `, but for ${linksAdded.length} link line(s) appended to the body` : ""}`,
        { path },
      ),
    ],
  };
}
