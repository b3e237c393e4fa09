/**
 * Contradiction markers: a blockquote line `> Contradiction: …` (also
 * `> **Contradiction:**` and the callout `> [!contradiction]`), continued by
 * the `>` lines under it, and the frontmatter key `contradicts:` (a page id,
 * `[[link]]` or a list of them). Each marker is one finding on the page that
 * carries it, naming the pages it links; each linked page gets a finding
 * too, so a contradiction shows on both sides.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../diagnostics.ts";
import type { SliceClock, Sliced } from "../sliced-work.ts";
import { extractLinks } from "../vault/links.ts";
import { parsePage } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import type { LintFinding } from "./types.ts";

const MARKER =
  /^\s*>\s*(?:\[!contradiction\][+-]?|[*_]{0,2}contradiction(?::[*_]{0,2}|[*_]{0,2}\s*:))\s*(.*)$/i;
/**
 * Every marker above and the `contradicts:` key contain this word: a page
 * without it has nothing to find and is not parsed.
 */
const MENTION = /contradict/i;
const QUOTE = /^\s*>/;
const FENCE = /^\s*(```|~~~)/;
const EXCERPT_CHARS = 140;

interface Marker {
  line: number;
  text: string;
}

/** Marker blocks in `body`, skipping fenced code; `firstLine` is the body's line in the file. */
function findMarkers(body: string, firstLine: number): Marker[] {
  const lines = body.split(/\r?\n/);
  const markers: Marker[] = [];
  let fence: string | undefined;
  let current: Marker | undefined;
  lines.forEach((line, i) => {
    const f = FENCE.exec(line)?.[1];
    if (f !== undefined) {
      if (fence === undefined) fence = f;
      else if (f === fence) fence = undefined;
      current = undefined;
      return;
    }
    if (fence !== undefined) return;
    const m = MARKER.exec(line);
    if (m) {
      current = { line: firstLine + i, text: (m[1] ?? "").trim() };
      markers.push(current);
    } else if (current && QUOTE.test(line)) {
      current.text = `${current.text} ${line.replace(QUOTE, "").trim()}`.trim();
    } else current = undefined;
  });
  return markers;
}

function asRefs(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list
    .filter((v): v is string => typeof v === "string")
    .flatMap((v) => v.split(","))
    .map((v) =>
      v
        .trim()
        .replace(/^\[\[|\]\]$/g, "")
        .replace(/[|#].*$/, "")
        .replace(/^\/?(?:wiki\/)?/, "")
        .replace(/\.md$/i, "")
        .trim(),
    )
    .filter((v) => v !== "");
}

function excerpt(text: string): string {
  const chars = [...text];
  return chars.length <= EXCERPT_CHARS ? text : `${chars.slice(0, EXCERPT_CHARS - 1).join("")}…`;
}

/**
 * Contradiction findings for every accepted page (each page file is read
 * once); yields between pages when `clock` says its slice is over.
 */
export function* contradictionFindings(
  vault: VaultPaths,
  registry: Registry,
  clock: SliceClock,
): Sliced<LintFinding[]> {
  // The link graph's resolver was built for exactly these page ids.
  const resolver = registry.snapshot.graph.resolver;
  const out: LintFinding[] = [];
  const resolveAll = (targets: string[]): { pages: string[]; unresolved: string[] } => {
    const pages = new Set<string>();
    const unresolved: string[] = [];
    for (const target of targets) {
      const res = resolver.resolve(target);
      if (res.status === "resolved") pages.add(`wiki/${res.id}.md`);
      else unresolved.push(target);
    }
    return { pages: [...pages].sort(), unresolved };
  };
  const otherSide = (from: string, pages: string[], where: string): void => {
    for (const page of pages) {
      if (page === from) continue;
      out.push({
        check: "contradiction",
        code: "contradiction",
        severity: "warning",
        message: `${page}: contradicted by ${where}`,
        path: page,
        pages: [from],
      });
    }
  };
  const withWhom = (pages: string[], unresolved: string[]): string => {
    const names = [...pages, ...unresolved.map((t) => `[[${t}]] (no such page)`)];
    return names.length > 0 ? ` with ${names.join(", ")}` : "";
  };

  for (const meta of registry.pages.values()) {
    if (clock.due()) yield;
    let text: string;
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(join(vault.dir, meta.path));
      text = Buffer.from(bytes)
        .toString("utf8")
        .replace(/^\uFEFF/, "");
    } catch (error) {
      out.push({
        check: "contradiction",
        code: "page_unreadable",
        severity: "warning",
        message: `${meta.path}: not read for contradiction markers (${errorMessage(error)})`,
        path: meta.path,
      });
      continue;
    }
    if (!MENTION.test(text)) continue;
    const parsed = parsePage(meta.id, meta.path, bytes);
    if (!parsed.ok) continue;
    const { body, frontmatter } = parsed.page;
    const declared = asRefs(frontmatter.contradicts);
    if (declared.length > 0) {
      const { pages, unresolved } = resolveAll(declared);
      out.push({
        check: "contradiction",
        code: "contradiction",
        severity: "warning",
        message: `${meta.path}: declares a contradiction${withWhom(pages, unresolved)} (contradicts:)`,
        path: meta.path,
        pages: pages.filter((p) => p !== meta.path),
      });
      otherSide(meta.path, pages, `${meta.path} (contradicts:)`);
    }
    // Line numbers in the file: the body is what follows the frontmatter.
    const firstLine = text.endsWith(body)
      ? text.slice(0, text.length - body.length).split("\n").length
      : 1;
    for (const marker of findMarkers(body, firstLine)) {
      const targets = extractLinks(meta.id, marker.text).map((l) => l.target);
      const { pages, unresolved } = resolveAll(targets);
      out.push({
        check: "contradiction",
        code: "contradiction",
        severity: "warning",
        message: `${meta.path}:${marker.line}: contradiction marked${withWhom(pages, unresolved)}: "${excerpt(marker.text)}"`,
        path: meta.path,
        pages: pages.filter((p) => p !== meta.path),
        line: marker.line,
      });
      otherSide(meta.path, pages, `${meta.path}:${marker.line}`);
    }
  }
  return out;
}
