/**
 * Bounds on what a page's YAML front matter may stand for. js-yaml resolves
 * an alias (`*name`) to the very object its anchor made, so parsing nested
 * aliases is cheap; but every reader that walks the data (redaction copies
 * it, serialisers write it out) visits each alias as a fresh copy. Nine
 * levels of nine aliases are under 400 bytes of text and 387 million nodes
 * to such a reader: minutes of a blocked process. The text is checked
 * before the parser sees it (how many aliases it can hold at most) and the
 * parsed data before any reader does (what it expands to, how deep it
 * nests); front matter over a bound is refused, not trimmed.
 */

/** Most alias-like tokens a block may hold; counted on the raw text, so an over-estimate. */
export const MAX_FRONTMATTER_ALIASES = 1_000;
/** Deepest nesting of mappings and sequences accepted (real front matter uses a handful). */
export const MAX_FRONTMATTER_DEPTH = 64;
/**
 * How much larger than its text the expanded data may be, in size units
 * (one per node, plus one per character of each string and key). Data
 * written out in full is never larger than its text, so only aliases (or a
 * key built from a collection) can go over; a few sharing anchors stay far
 * below this.
 */
export const MAX_FRONTMATTER_EXPANSION = 10_000;

/** Front matter that is over one of the bounds above; the page is refused. */
export class FrontmatterTooComplexError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "FrontmatterTooComplexError";
  }
}

/**
 * Alias-like tokens in `yaml`: a `*` at the start of a node (line start,
 * after a space, `[`, `{` or `,`) followed by a name character. Quoted text
 * such as "a *b" counts too: it only ever over-estimates.
 */
export function countAliasTokens(yaml: string): number {
  const tokens = yaml.match(/(?:^|[\s[{,])\*[^\s[\]{},]/g);
  return tokens === null ? 0 : tokens.length;
}

/** Refuses `yaml` before it is parsed when it could hold more aliases than are read. */
export function checkYamlText(yaml: string): void {
  const aliases = countAliasTokens(yaml);
  if (aliases > MAX_FRONTMATTER_ALIASES) {
    throw new FrontmatterTooComplexError(
      `front matter holds ${aliases} aliases (*name); at most ${MAX_FRONTMATTER_ALIASES} are read`,
    );
  }
}

function scalarSize(value: unknown): number {
  if (typeof value === "string") return 1 + value.length;
  if (value instanceof Uint8Array) return 1 + value.byteLength;
  return 1;
}

/** What a node stands for once every alias is a copy. */
interface Extent {
  /** Size units: one per node, plus one per character of each string and key. */
  size: number;
  /** Levels of mappings and sequences below and including this node. */
  height: number;
}

function tooDeep(): FrontmatterTooComplexError {
  return new FrontmatterTooComplexError(
    `front matter nests deeper than ${MAX_FRONTMATTER_DEPTH} levels`,
  );
}

/**
 * Refuses parsed `data` whose expansion (every alias a copy) is more than
 * `MAX_FRONTMATTER_EXPANSION` units larger than `textLength`, or that nests
 * deeper than `MAX_FRONTMATTER_DEPTH` (aliases stacked inside aliases
 * included). Each distinct object is measured once (memoised by identity),
 * so this costs what the text did, not what it expands to; a cycle shows as
 * nesting past the depth bound.
 */
export function checkExpansion(data: unknown, textLength: number): void {
  const limit = textLength + MAX_FRONTMATTER_EXPANSION;
  const measured = new Map<object, Extent>();
  const measure = (value: unknown, depth: number): Extent => {
    if (value === null || typeof value !== "object" || value instanceof Date) {
      return { size: scalarSize(value), height: 0 };
    }
    if (value instanceof Uint8Array) return { size: scalarSize(value), height: 0 };
    const known = measured.get(value);
    if (known !== undefined) return known;
    // Also bounds this walk's own recursion, whatever the parser let through.
    if (depth > MAX_FRONTMATTER_DEPTH) throw tooDeep();
    const extent: Extent = { size: 1, height: 1 };
    const children = Array.isArray(value)
      ? (value as unknown[])
      : Object.entries(value as Record<string, unknown>).map(([key, child]) => {
          extent.size += key.length;
          return child;
        });
    for (const child of children) {
      const below = measure(child, depth + 1);
      extent.size += below.size;
      extent.height = Math.max(extent.height, below.height + 1);
      if (extent.height > MAX_FRONTMATTER_DEPTH) throw tooDeep();
      // Stops at the first sign: the full figure can be astronomically large.
      if (extent.size > limit) break;
    }
    measured.set(value, extent);
    return extent;
  };
  const { size } = measure(data, 0);
  if (size > limit) {
    throw new FrontmatterTooComplexError(
      `front matter expands (through aliases) to over ${limit} size units from ${textLength} characters of text; write the values out instead`,
    );
  }
}
