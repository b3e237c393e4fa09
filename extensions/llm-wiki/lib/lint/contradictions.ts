/**
 * Contradictions stated as text (the forms of vault/text-conflicts.ts: a
 * `> Contradiction: …` line and its variants, a `## Contradictions`
 * section, the front matter key `contradicts:`). Each is one finding on the
 * page that carries it, naming the pages it links; each linked page gets a
 * finding too, so a contradiction shows on both sides. A linked page whose
 * conflict with this one a user resolved is left out, and so is one a typed
 * `contradicts` relation joins it with (relation checks report that pair):
 * a marker whose every linked page is left out is not reported, one that
 * links no page at all is (recall cannot show it).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../diagnostics.ts";
import type { SliceClock, Sliced } from "../sliced-work.ts";
import { parsePage } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import {
  conflictMarkers,
  contradictsKeyTargets,
  mentionsConflict,
} from "../vault/text-conflicts.ts";
import type { LintFinding } from "./types.ts";

const EXCERPT_CHARS = 140;

/**
 * Whether the conflict between pages `a` and `b` is no text finding's to
 * report: a user resolved it, or a typed `contradicts` joins them.
 */
function settled(registry: Registry, a: string, b: string): boolean {
  const graph = registry.relations;
  if (graph.activeResolution(a, b)) return true;
  const typed = (e: { type: string; origin?: string; resolution?: string }) =>
    e.type === "contradicts" && e.origin === undefined && e.resolution === undefined;
  return (
    graph.outgoing(a).some((e) => e.to === b && typed(e)) ||
    graph.incoming(a).some((e) => e.from === b && typed(e))
  );
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
  /**
   * The pages `targets` name, as paths (`pages`), the targets naming none
   * (`unresolved`), and whether some named page was left out as settled.
   */
  const resolveAll = (
    from: string,
    targets: string[],
  ): { pages: string[]; unresolved: string[]; settledAll: boolean } => {
    const pages = new Set<string>();
    const unresolved: string[] = [];
    let left = 0;
    for (const target of targets) {
      const res = resolver.resolve(target);
      if (res.status !== "resolved") unresolved.push(target);
      else if (res.id !== from && settled(registry, from, res.id)) left += 1;
      else pages.add(`wiki/${res.id}.md`);
    }
    const settledAll = left > 0 && pages.size === 0 && unresolved.length === 0;
    return { pages: [...pages].sort(), unresolved, settledAll };
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
    if (!mentionsConflict(text)) continue;
    const parsed = parsePage(meta.id, meta.path, bytes);
    if (!parsed.ok) continue;
    const { body, frontmatter } = parsed.page;
    const declared = contradictsKeyTargets(frontmatter.contradicts);
    const keyed = declared.length > 0 ? resolveAll(meta.id, declared) : undefined;
    if (keyed && !keyed.settledAll) {
      const { pages, unresolved } = keyed;
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
    for (const marker of conflictMarkers(meta.id, body, firstLine)) {
      const { pages, unresolved, settledAll } = resolveAll(meta.id, marker.targets);
      if (settledAll) continue;
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
