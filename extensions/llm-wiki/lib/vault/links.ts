/**
 * Links between pages: `[[id]]`, `[[id|label]]`, `[[id#heading]]` and
 * Markdown links to `.md` files (`[label](/concepts/rag.md)`, or relative to
 * the linking page). Resolution: exact id, then slug, then a unique basename.
 */
import { posix } from "node:path";
import { legacySlugPath, slugPath } from "./slug.ts";

/** One link as written in a page. */
export interface RawLink {
  /** Target as written, normalised to an id-like string (no `.md`, no anchor). */
  target: string;
  label?: string;
  kind: "wiki" | "markdown";
}

export type LinkResolution =
  | { status: "resolved"; id: string }
  | { status: "missing" }
  | { status: "ambiguous"; candidates: string[] };

// Fences may be indented: a code block inside a list item is still code.
const FENCE = /^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm;
const INLINE_CODE = /`[^`\n]*`/g;
const WIKI_LINK = /\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]/g;
const MD_LINK = /\[([^\]\n]*)\]\(\s*<?([^)\s>]+\.md)(?:#[^)\s]*)?>?(?:\s+"[^"]*")?\s*\)/g;

/** `decodeURI` throws on a stray `%` (`100%.md`); such an href is kept as written. */
function decodeHref(href: string): string {
  try {
    return decodeURI(href);
  } catch {
    return href;
  }
}

/** Links written in `body` of the page `pageId`, code spans and blocks excluded. */
export function extractLinks(pageId: string, body: string): RawLink[] {
  const text = body.replace(FENCE, "").replace(INLINE_CODE, "");
  const links: RawLink[] = [];
  for (const m of text.matchAll(WIKI_LINK)) {
    const target = (m[1] ?? "").trim().replace(/\.md$/i, "");
    if (target === "") continue;
    const label = m[2]?.trim();
    links.push(label ? { target, label, kind: "wiki" } : { target, kind: "wiki" });
  }
  for (const m of text.matchAll(MD_LINK)) {
    const href = decodeHref(m[2] ?? "");
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // http:, file:, mailto: …
    const base = posix.dirname(pageId);
    const joined = href.startsWith("/") ? href.slice(1) : posix.join(base, href);
    const target = posix
      .normalize(joined)
      .replace(/^wiki\//, "")
      .replace(/\.md$/i, "");
    const label = m[1]?.trim();
    links.push(label ? { target, label, kind: "markdown" } : { target, kind: "markdown" });
  }
  return links;
}

/** Resolves link targets against a fixed set of page ids; build once per registry. */
export class LinkResolver {
  private readonly ids: Set<string>;
  private readonly byBasename = new Map<string, string[]>();

  constructor(ids: Iterable<string>) {
    this.ids = new Set();
    for (const id of ids) this.add(id);
  }

  /** Takes in a page added since (the registry's graph patch, instead of a new resolver). */
  add(id: string): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    const base = id.split("/").pop() ?? id;
    const list = this.byBasename.get(base);
    if (list) list.push(id);
    else this.byBasename.set(base, [id]);
  }

  /** Forgets a page removed since. */
  remove(id: string): void {
    if (!this.ids.delete(id)) return;
    const base = id.split("/").pop() ?? id;
    const rest = (this.byBasename.get(base) ?? []).filter((other) => other !== id);
    if (rest.length > 0) this.byBasename.set(base, rest);
    else this.byBasename.delete(base);
  }

  /** Resolves one target: exact id, then slugified id, then a unique basename. */
  resolve(target: string): LinkResolution {
    if (target.startsWith("..") || target.includes("/../")) return { status: "missing" };
    if (this.ids.has(target)) return { status: "resolved", id: target };
    const slugged = slugPath(target);
    if (this.ids.has(slugged)) return { status: "resolved", id: slugged };
    // A device-name page an older vault made before the `-page` suffix (`con.md`).
    const legacy = legacySlugPath(target);
    if (legacy !== slugged && this.ids.has(legacy)) return { status: "resolved", id: legacy };
    const base = slugged.split("/").pop() ?? slugged;
    const legacyBase = legacy.split("/").pop() ?? legacy;
    const candidates = this.byBasename.get(base) ?? this.byBasename.get(legacyBase) ?? [];
    if (candidates.length === 1 && candidates[0]) return { status: "resolved", id: candidates[0] };
    if (candidates.length > 1) return { status: "ambiguous", candidates: [...candidates].sort() };
    return { status: "missing" };
  }
}
