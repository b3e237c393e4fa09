/**
 * OKF v0.2 directory indexes, generated only in OKF mode: `wiki/index.md`
 * (front matter `okf_version: "0.2"`, the vault's name as heading) and an
 * `index.md` in every folder holding a page directly or below it. Each
 * lists its child folders, then its own pages (`[title](file.md)` and
 * ` — description` when there is one), in code-point order of their paths.
 * A pure function of the registry: no clock, no count.
 */
import type { PageMeta } from "../vault/page.ts";
import { compareCodePoints, inlineText, linkPath } from "./markdown-text.ts";

/** The OKF version these views declare. */
export const OKF_VERSION = "0.2";

interface Folder {
  children: Set<string>;
  pages: PageMeta[];
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Lines already rendered, by page record (kept by a refresh for unchanged pages). */
const LINES = new WeakMap<PageMeta, string>();

function pageLine(page: PageMeta): string {
  let line = LINES.get(page);
  if (line === undefined) {
    const file = `${lastSegment(page.id)}.md`;
    const title = page.title.trim() !== "" ? page.title : lastSegment(page.id);
    const about = page.description?.trim() ?? "";
    line = `- [${inlineText(title)}](${linkPath(file)})${about !== "" ? ` — ${inlineText(about)}` : ""}`;
    LINES.set(page, line);
  }
  return line;
}

/**
 * Every index to write, by path relative to `wiki/` (`index.md`,
 * `concepts/index.md`), for `pages` and the vault's `name`.
 */
export function renderOkfIndexes(
  pages: Iterable<PageMeta>,
  name: string | undefined,
): Map<string, string> {
  const folders = new Map<string, Folder>([["", { children: new Set(), pages: [] }]]);
  const folder = (path: string): Folder => {
    let f = folders.get(path);
    if (f === undefined) {
      f = { children: new Set(), pages: [] };
      folders.set(path, f);
      const slash = path.lastIndexOf("/");
      folder(slash === -1 ? "" : path.slice(0, slash)).children.add(path);
    }
    return f;
  };
  for (const page of pages) {
    const slash = page.id.lastIndexOf("/");
    folder(slash === -1 ? "" : page.id.slice(0, slash)).pages.push(page);
  }
  const out = new Map<string, string>();
  for (const [path, f] of [...folders].sort(([a], [b]) => compareCodePoints(a, b))) {
    const lines: string[] = [];
    if (path === "") {
      const title = name !== undefined && name.trim() !== "" ? name : "Wiki";
      lines.push("---", `okf_version: "${OKF_VERSION}"`, "---", "", `# ${inlineText(title)}`);
    } else {
      lines.push(`# ${inlineText(lastSegment(path))}`);
    }
    const children = [...f.children].sort(compareCodePoints);
    if (children.length > 0) {
      lines.push("", "## Directories", "");
      for (const child of children) {
        const segment = lastSegment(child);
        lines.push(`- [${inlineText(`${segment}/`)}](${linkPath(segment)}/)`);
      }
    }
    const own = [...f.pages].sort((a, b) => compareCodePoints(a.id, b.id));
    if (own.length > 0) {
      lines.push("", "## Concepts", "");
      for (const page of own) lines.push(pageLine(page));
    }
    out.set(path === "" ? "index.md" : `${path}/index.md`, `${lines.join("\n")}\n`);
  }
  return out;
}
