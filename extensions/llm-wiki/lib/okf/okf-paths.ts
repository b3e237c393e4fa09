/**
 * Concept paths of an Open Knowledge Format (OKF v0.2) bundle: a document's
 * path without `.md` is its concept id, and `index.md` / `log.md` are
 * reserved at every depth. A bundle is treated as hostile: a path that
 * could escape its target, hide a control sequence, or name a different
 * file on another file system is refused, never repaired.
 */

/** Most folder levels a concept path may have. */
export const MAX_CONCEPT_DEPTH = 16;
/** Longest path segment, in UTF-8 bytes (common file-system limit). */
const MAX_SEGMENT_BYTES = 255;
/** Longest concept path, in characters. */
const MAX_PATH_CHARS = 1_024;

/** Reserved base names (lower case): a folder's catalog and the activity log. */
const RESERVED = new Set(["index.md", "log.md"]);

// C0/C1 controls, DEL, bidi overrides and isolates, line/paragraph separators.
const UNSAFE_CHAR =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
/** Characters one of the platforms we run on refuses or reads specially in a file name. */
const UNPORTABLE_CHAR = /[\\:*?"<>|]/;

/** True when the last segment of `rel` is `index.md` or `log.md` (any case). */
export function isReservedConceptPath(rel: string): boolean {
  const name = rel.slice(rel.lastIndexOf("/") + 1).toLowerCase();
  return RESERVED.has(name);
}

/**
 * Why `rel` (a `/`-separated path relative to a bundle root, ending in
 * `.md`) cannot be a concept path, or undefined when it can.
 */
export function conceptPathProblem(rel: string): string | undefined {
  if (rel === "" || rel.length > MAX_PATH_CHARS) return "path is empty or too long";
  if (rel.startsWith("/")) return "path is absolute";
  if (UNSAFE_CHAR.test(rel)) return "path holds a control or bidirectional character";
  if (UNPORTABLE_CHAR.test(rel)) return "path holds a character some file systems refuse";
  if (rel.normalize("NFC") !== rel) return "path is not in Unicode NFC form";
  if (!rel.endsWith(".md")) return "not a Markdown (.md) document";
  const segments = rel.split("/");
  if (segments.length > MAX_CONCEPT_DEPTH + 1) return "path is nested too deeply";
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..")
      return "path has an empty, . or .. segment";
    if (segment.startsWith(".")) return "path has a hidden segment";
    if (segment.endsWith(" ") || segment.endsWith(".")) return "a segment ends in a space or dot";
    if (Buffer.byteLength(segment, "utf8") > MAX_SEGMENT_BYTES) return "a segment is too long";
  }
  return undefined;
}

/** The case- and normalisation-folded key two paths collide on (case-insensitive file systems). */
export function foldedPath(rel: string): string {
  return rel.normalize("NFC").toLowerCase();
}

/** Concept id of a bundle path: `concepts/rag.md` → `concepts/rag`. */
export function conceptId(rel: string): string {
  return rel.endsWith(".md") ? rel.slice(0, -3) : rel;
}
