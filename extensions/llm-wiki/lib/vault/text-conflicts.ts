/**
 * Conflicts written as text rather than as a typed relation, in every form
 * this project and pi-llm-wiki ask writers for:
 *
 * - a marker line, `> Contradiction: … [[page]]` (our ingest hand-off), also
 *   `> **Contradiction:**`, `> **Contradiction**:` and pi-llm-wiki's
 *   `> ⚠️ **Contradiction:** …` (its skill) or unquoted
 *   `⚠️ **Contradiction**: …` (its ingest worker), with its localised words
 *   (Противоречие, Widerspruch, 矛盾); quoted markers continue over the `>`
 *   lines under them ("> See [[a]] and [[b]].");
 * - the callout `> [!contradiction] …`;
 * - each line of a `## Contradictions` section (the heading pi-llm-wiki's
 *   ingest writes them under, also localised) that links a page;
 * - the front matter key `contradicts:` (a page id, `[[link]]` or a list).
 *
 * Case-insensitive; never inside fenced code, and a link in inline code is
 * no link. Bounded: a page yields at most `MAX_TARGETS` targets and a
 * marker's text at most `MAX_MARKER_CHARS` characters.
 */
import { extractLinks } from "./links.ts";

/** The words of a marker (singular) and of a section heading (plural), as pi-llm-wiki localises them. */
const MARKER_WORDS = "contradiction|противоречие|widerspruch|矛盾";
const SECTION_WORDS = "contradictions|противоречия|widersprüche|矛盾";

/**
 * A marker line: optional quote markers, an optional warning sign, then the
 * callout or the word (bold or not) with its colon inside or after the bold.
 */
const MARKER = new RegExp(
  `^[ \\t]*((?:>[ \\t]*)*)(?:\\u26A0\\uFE0F?[ \\t]*)?(?:\\[!(?:${MARKER_WORDS})\\][+-]?|[*_]{0,2}(?:${MARKER_WORDS})(?::[*_]{0,2}|[*_]{0,2}[ \\t]*:))[ \\t]*(.*)$`,
  "iu",
);
const SECTION = new RegExp(`^(#{1,6})[ \\t]+(?:${SECTION_WORDS})[ \\t]*#*[ \\t]*$`, "iu");
const HEADING = /^(#{1,6})[ \t]/;
const QUOTE = /^[ \t]*>/;
const FENCE = /^[ \t]*(```|~~~)/;
/** Every form above contains one of these: a page without them has nothing to find. */
const MENTION = /contradict|противореч|widerspr|矛盾/iu;

/** Most characters of one marker's text kept (its continuation lines included). */
export const MAX_MARKER_CHARS = 8_000;
/** Most distinct conflict targets one page yields; the rest are ignored. */
export const MAX_TARGETS = 64;
/** Most markers one page yields (lint reports each). */
export const MAX_MARKERS = 256;

/** One text-form conflict in a page's body. */
export interface ConflictMarker {
  /** Line of the marker in the text given, 1-based (plus `firstLine - 1`). */
  line: number;
  /** The marker's text after the marker word, continuation lines joined. */
  text: string;
  /** Link targets as written (normalised like every link, unresolved). */
  targets: string[];
}

/** Whether `text` may hold a text-form conflict at all (a cheap pre-check). */
export function mentionsConflict(text: string): boolean {
  return MENTION.test(text);
}

/**
 * The text-form conflicts of `body` (the page `pageId`'s, for relative
 * links), skipping fenced code; `firstLine` is the body's first line in
 * the file.
 */
export function conflictMarkers(pageId: string, body: string, firstLine = 1): ConflictMarker[] {
  if (!MENTION.test(body)) return [];
  const markers: ConflictMarker[] = [];
  let fence: string | undefined;
  /** The quoted marker still taking `>` continuation lines. */
  let open: ConflictMarker | undefined;
  /** Heading level of the `## Contradictions` section we are in. */
  let section: number | undefined;
  const lines = body.split(/\r?\n/);
  for (let i = 0; i < lines.length && markers.length < MAX_MARKERS; i += 1) {
    const line = lines[i] ?? "";
    const f = FENCE.exec(line)?.[1];
    if (f !== undefined) {
      if (fence === undefined) fence = f;
      else if (line.trimStart().startsWith(fence)) fence = undefined;
      open = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = HEADING.exec(line)?.[1];
    if (heading !== undefined) {
      open = undefined;
      if (section !== undefined && heading.length <= section) section = undefined;
      const s = SECTION.exec(line.trimEnd())?.[1];
      if (s !== undefined) section = s.length;
      continue;
    }
    const m = MARKER.exec(line.length > MAX_MARKER_CHARS ? line.slice(0, MAX_MARKER_CHARS) : line);
    if (m) {
      const marker = { line: firstLine + i, text: (m[2] ?? "").trim(), targets: [] };
      markers.push(marker);
      // Only a quoted marker continues over the quote under it.
      open = (m[1] ?? "") !== "" ? marker : undefined;
      continue;
    }
    if (open && QUOTE.test(line)) {
      if (open.text.length < MAX_MARKER_CHARS) {
        open.text = `${open.text} ${line.replace(/^[ \t]*(?:>[ \t]*)+/, "").trim()}`.trim();
      }
      continue;
    }
    open = undefined;
    // In a contradictions section, each line that links a page names a conflict.
    if (section !== undefined && line.trim() !== "" && /\[|\]\(/.test(line)) {
      const text = line.slice(0, MAX_MARKER_CHARS).trim();
      if (extractLinks(pageId, text).length > 0)
        markers.push({ line: firstLine + i, text, targets: [] });
    }
  }
  for (const marker of markers) {
    if (marker.text.length > MAX_MARKER_CHARS) marker.text = marker.text.slice(0, MAX_MARKER_CHARS);
    marker.targets = unique(extractLinks(pageId, marker.text).map((l) => l.target));
  }
  return markers;
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)].slice(0, MAX_TARGETS);
}

/**
 * The targets named by a front matter `contradicts:` value: a page id, a
 * `[[link]]`, a comma-separated string or a list of them.
 */
export function contradictsKeyTargets(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return unique(
    list
      .slice(0, MAX_TARGETS)
      .filter((v): v is string => typeof v === "string")
      .flatMap((v) => v.slice(0, MAX_MARKER_CHARS).split(","))
      .map((v) =>
        v
          .trim()
          .replace(/^\[\[|\]\]$/g, "")
          .replace(/[|#].*$/, "")
          .replace(/^\/?(?:wiki\/)?/, "")
          .replace(/\.md$/i, "")
          .trim(),
      )
      .filter((v) => v !== ""),
  );
}

/**
 * Every target a page names in a text-form conflict (its body's markers,
 * then its `contradicts:` key), as written and unresolved, without repeats.
 */
export function textConflictTargets(pageId: string, body: string, contradicts: unknown): string[] {
  return unique([
    ...conflictMarkers(pageId, body).flatMap((m) => m.targets),
    ...contradictsKeyTargets(contradicts),
  ]);
}
