/**
 * The code a page names: repository paths (in backticks, or as link targets)
 * and identifier-shaped symbols in backticks. Pure. Everything here comes
 * from a hostile page, so only strings that pass `safeRepoPath` /
 * `safeSymbol` ever leave this module: repository-relative, normalised, no
 * `..`, nothing absolute, nothing that starts like an option, printable
 * ASCII only.
 */
import { posix } from "node:path";

/** What one page names. */
export interface CodeRefs {
  /** Repository-relative paths, normalised, sorted, unique. */
  paths: string[];
  /** Identifier-shaped symbols, sorted, unique. */
  symbols: string[];
}

/** Most names taken from one page: a page is notes, not a file listing. */
const MAX_REFS = 64;
const MAX_PATH_CHARS = 240;
/** A path segment: letters, digits and the punctuation file names really use. */
const SEGMENT = /^[A-Za-z0-9_@+][A-Za-z0-9_@+.-]*$/;
/** A file extension a path-looking name ends with (`merge.ts`, `Makefile.am`). */
const EXTENSION = /\.[A-Za-z0-9]{1,8}$/;
/** Code symbols: `mergeBranches`, `Foo.bar`, `parse_page()`, `Registry::open`. */
const SYMBOL = /^[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|#)[A-Za-z_$][A-Za-z0-9_$]*)*(?:\(\))?$/;
const INLINE_CODE = /(?<!`)`([^`\r\n]{1,300})`(?!`)/g;
const LINK_TARGET = /\]\(\s*<?([^)\s>]{1,400})>?(?:\s+"[^"]*")?\s*\)/g;
const FENCE = /^(```|~~~)[\s\S]*?^\1[^\n]*$/gm;

/**
 * `text` as a repository-relative path, or undefined when it is not a safe
 * one: relative, normalised (no `.`/`..`/empty segment, no backslash), no
 * option-looking first character, printable ASCII of the file-name kind.
 */
export function safeRepoPath(text: string): string | undefined {
  let t = text.trim();
  // `src/a.ts:12`, `src/a.ts#L12`: the file, not the line.
  t = t.replace(/#L?\d+(?:-L?\d+)?$/, "").replace(/:\d+(?::\d+)?$/, "");
  if (t.endsWith("/")) t = t.slice(0, -1);
  if (t.startsWith("./")) t = t.slice(2);
  if (t === "" || t.length > MAX_PATH_CHARS) return undefined;
  if (t.startsWith("/") || t.startsWith("-") || t.includes("\\")) return undefined;
  const segments = t.split("/");
  if (!segments.every((s) => s !== "." && s !== ".." && SEGMENT.test(s))) return undefined;
  // `.git/config` and friends are not code a page describes.
  if (segments[0] === ".git") return undefined;
  return posix.normalize(t) === t ? t : undefined;
}

/** Whether a backtick span is a path worth checking: it has a folder or a file extension. */
function looksLikePath(text: string): boolean {
  return text.includes("/") || EXTENSION.test(text);
}

/**
 * First segments of names every JavaScript/TypeScript, Python or shell
 * codebase uses (`console.log`, `JSON.parse`, `os.path`): finding or losing
 * one says nothing about this repository's code.
 */
const COMMON_ROOTS = new Set(
  (
    "Array Date Error JSON Math Number Object Promise Reflect String Symbol console " +
    "document globalThis module navigator os path process self sys this window"
  ).split(" "),
);
/** Product and language names written in camel case: prose, not this repository's code. */
const COMMON_NAMES = new Set(
  (
    "ChatGPT DevOps GitHub GitLab GraphQL JavaScript LinkedIn MongoDB MySQL NodeJS " +
    "OpenAI PostgreSQL PowerShell TypeScript VSCode WebSocket WordPress YouTube " +
    "iPhone macOS"
  ).split(" "),
);
/** A last segment that makes `name.ext` a file name (the path check covers it), not a symbol. */
const FILE_EXTENSIONS = new Set(
  "c cjs cpp css go h html java js json jsx lock md mjs py rb rs sh toml ts tsx txt yaml yml".split(
    " ",
  ),
);

/**
 * `text` as a symbol worth a `git grep`, or undefined. The rule: 4 to 80
 * characters, identifier-shaped (letters, digits, `_`, `$`, segments joined
 * by `.`, `::` or `#`, an optional trailing `()`), and showing a sign of
 * code — call parentheses, a `.`/`_`/`$`/`::`/`#` inside, or an inner
 * capital (`mergeOffline`, `SyncEngine`). Plain words (`cache`, `README`),
 * file names (`merge.ts`), language globals (`console.log`, `JSON.parse`)
 * and product names (`TypeScript`, `GitHub`) are not symbols.
 */
export function safeSymbol(text: string): string | undefined {
  const t = text.trim();
  if (t.length < 4 || t.length > 80 || !SYMBOL.test(t)) return undefined;
  const bare = t.replace(/\(\)$/, "");
  // A plain word (`cache`, `README`) is prose, not code: ask for a sign of code.
  const codeLike =
    t.endsWith("()") ||
    /[._$:#]/.test(bare) ||
    /[a-z][A-Z]/.test(bare) ||
    /^[A-Z][a-z0-9]+[A-Z]/.test(bare);
  if (!codeLike || COMMON_NAMES.has(bare)) return undefined;
  const segments = bare.split(/\.|::|#/);
  if (COMMON_ROOTS.has(segments[0] ?? "")) return undefined;
  const last = segments[segments.length - 1] ?? "";
  if (segments.length === 2 && FILE_EXTENSIONS.has(last.toLowerCase())) return undefined;
  return bare;
}

/**
 * A link target of the page at `pageDir` (repository-relative folder of the
 * page file) resolved to a repository path; URLs, anchors and wiki links are
 * not code.
 */
function linkPath(target: string, pageDir: string | undefined): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return undefined;
  const plain = target.replace(/[?#].*$/, "");
  if (plain === "" || plain.endsWith(".md")) return undefined;
  if (!plain.startsWith(".") || pageDir === undefined) return safeRepoPath(plain);
  // Relative to the page's own folder, then checked like any other path.
  const joined = posix.normalize(posix.join(pageDir, plain));
  return safeRepoPath(joined);
}

/**
 * The paths and symbols `body` names. `pageDir` is the page's folder
 * relative to the repository root, for relative link targets (none outside a
 * repository).
 */
export function extractCodeRefs(body: string, pageDir?: string): CodeRefs {
  const paths = new Set<string>();
  const symbols = new Set<string>();
  // Code blocks are examples and transcripts, not names of this repository's code.
  const prose = body.replace(FENCE, "");
  for (const m of prose.matchAll(INLINE_CODE)) {
    const span = (m[1] ?? "").trim();
    if (looksLikePath(span)) {
      const p = safeRepoPath(span);
      if (p !== undefined && paths.size < MAX_REFS) paths.add(p);
    }
    const s = safeSymbol(span);
    // `src/a.ts` is a path; `Foo.bar` may be either, and the repository decides.
    if (s !== undefined && !span.includes("/") && symbols.size < MAX_REFS) symbols.add(s);
  }
  for (const m of prose.matchAll(LINK_TARGET)) {
    const p = linkPath(m[1] ?? "", pageDir);
    if (p !== undefined && paths.size < MAX_REFS) paths.add(p);
  }
  return { paths: [...paths].sort(), symbols: [...symbols].sort() };
}
