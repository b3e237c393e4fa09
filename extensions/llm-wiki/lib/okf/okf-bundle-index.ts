/**
 * The reserved `index.md` files of an exported bundle: the root one declares
 * `okf_version: "0.2"`, and each folder's lists its sub-folders and its own
 * concepts (progressive disclosure: never a recursive catalogue). Output is
 * deterministic: code-point order, no dates or counts, LF, one final newline.
 *
 * Titles, descriptions and folder names come from pages anyone may have
 * written, and an index is read by Markdown renderers that pass HTML
 * through: every one is a single line, HTML-escaped (no `<script>`, no
 * `<img onerror>`, no entity trick) and has Markdown's inline punctuation
 * escaped (no link, image, emphasis or code span of its own). Link targets
 * are percent-encoded, parentheses included, so none ends early.
 */
import { neutraliseLine as line } from "../safety/text.ts";
import { runWhole, type SliceClock, type Sliced } from "../sliced-work.ts";

/** One exported concept: its bundle path, title and one-line description. */
export interface IndexedConcept {
  rel: string;
  title: string;
  description?: string;
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/**
 * Page text as inline Markdown that shows exactly that text: one line, the
 * HTML specials as entities, then Markdown's inline punctuation (backslash,
 * code, emphasis, brackets, parentheses, image and table marks)
 * backslash-escaped.
 */
function inline(text: string): string {
  return line(text)
    .replace(/[&<>"]/g, (c) => ENTITIES[c] ?? c)
    .replace(/[\\`*_[\]()!|~]/g, "\\$&");
}

/** A relative link target: each segment percent-encoded (parentheses too), `/` kept. */
function target(rel: string): string {
  return rel
    .split("/")
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[()'!*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join("/");
}

/**
 * The index files for `concepts`: bundle path (`index.md`,
 * `concepts/index.md`, …) → text. `name` is the root heading.
 */
export function bundleIndexes(
  name: string,
  concepts: readonly IndexedConcept[],
): Map<string, string> {
  return runWhole((clock) => bundleIndexesWork(name, concepts, clock));
}

/** `bundleIndexes` as sliced work: a turn may come between two concepts (10,000 take a quarter second). */
export function* bundleIndexesWork(
  name: string,
  concepts: readonly IndexedConcept[],
  clock: SliceClock,
): Sliced<Map<string, string>> {
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
    if (clock.due()) yield;
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
    lines.push(`# ${inline(dir === "" ? name || "Wiki" : (dir.split("/").pop() ?? dir))}`);
    const dirs = [...f.dirs].sort(byCodePoint);
    if (dirs.length > 0) {
      lines.push("", "## Directories", "");
      for (const d of dirs) lines.push(`- [${inline(`${d}/`)}](${target(d)}/index.md)`);
    }
    const own = [...f.concepts].sort((a, b) => byCodePoint(a.rel, b.rel));
    if (own.length > 0) {
      lines.push("", "## Concepts", "");
      for (const c of own) {
        if (clock.due()) yield;
        const file = c.rel.split("/").pop() ?? c.rel;
        const desc = c.description ? ` — ${inline(c.description)}` : "";
        lines.push(`- [${inline(c.title)}](${target(file)})${desc}`);
      }
    }
    out.set(dir === "" ? "index.md" : `${dir}/index.md`, `${lines.join("\n")}\n`);
  }
  return out;
}
