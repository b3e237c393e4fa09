/**
 * The reserved `index.md` files of an exported bundle: the root one declares
 * `okf_version: "0.2"`, and each folder's lists its sub-folders and its own
 * concepts (progressive disclosure: never a recursive catalogue). Output is
 * deterministic: code-point order, no dates or counts, LF, one final newline.
 */
import { neutraliseLine as line } from "../safety/text.ts";

/** One exported concept: its bundle path, title and one-line description. */
export interface IndexedConcept {
  rel: string;
  title: string;
  description?: string;
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A link label: one line, Markdown's bracket and backslash escaped. */
function label(text: string): string {
  return line(text).replace(/[\\[\]]/g, "\\$&");
}

/** A relative link target: each segment percent-encoded, `/` kept. */
function target(rel: string): string {
  return rel.split("/").map(encodeURIComponent).join("/");
}

/**
 * The index files for `concepts`: bundle path (`index.md`,
 * `concepts/index.md`, …) → text. `name` is the root heading.
 */
export function bundleIndexes(
  name: string,
  concepts: readonly IndexedConcept[],
): Map<string, string> {
  const folders = new Map<string, { dirs: Set<string>; concepts: IndexedConcept[] }>();
  const folder = (dir: string) => {
    let f = folders.get(dir);
    if (!f) {
      f = { dirs: new Set(), concepts: [] };
      folders.set(dir, f);
    }
    return f;
  };
  folder("");
  for (const c of concepts) {
    const parts = c.rel.split("/");
    parts.pop();
    folder(parts.join("/")).concepts.push(c);
    for (let i = parts.length; i > 0; i -= 1) {
      folder(parts.slice(0, i - 1).join("/")).dirs.add(parts[i - 1] as string);
    }
  }
  const out = new Map<string, string>();
  for (const [dir, f] of folders) {
    const lines: string[] = [];
    if (dir === "") lines.push("---", 'okf_version: "0.2"', "---", "");
    lines.push(`# ${label(dir === "" ? name || "Wiki" : (dir.split("/").pop() ?? dir))}`);
    const dirs = [...f.dirs].sort(byCodePoint);
    if (dirs.length > 0) {
      lines.push("", "## Directories", "");
      for (const d of dirs) lines.push(`- [${label(`${d}/`)}](${target(d)}/index.md)`);
    }
    const own = [...f.concepts].sort((a, b) => byCodePoint(a.rel, b.rel));
    if (own.length > 0) {
      lines.push("", "## Concepts", "");
      for (const c of own) {
        const file = c.rel.split("/").pop() ?? c.rel;
        const desc = c.description ? ` — ${line(c.description).replace(/\s+/g, " ").trim()}` : "";
        lines.push(`- [${label(c.title)}](${target(file)})${desc}`);
      }
    }
    out.set(dir === "" ? "index.md" : `${dir}/index.md`, `${lines.join("\n")}\n`);
  }
  return out;
}
