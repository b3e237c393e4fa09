/**
 * Splits a long source into parts a model can read one at a time. A part
 * ends after a paragraph where one fits; a paragraph too long for any part
 * fills the part it starts in and goes on in the next, cut after a line end,
 * else after a space; only a run with no whitespace is cut mid-word, and
 * never inside a character. Nothing is dropped or reordered: the parts
 * joined are exactly the text.
 */

/** Target size of one part, in UTF-16 code units (what `String.length` counts). */
export const PART_CHARS = 12_000;

/** One part: its 1-based number and where it sits in the whole text. */
export interface TextPart {
  index: number;
  /** Offset of its first character in the text. */
  start: number;
  /** Offset just past its last character. */
  end: number;
  text: string;
}

const PARAGRAPH_BREAK = /\r?\n(?:[ \t]*\r?\n)+/g;

/** Paragraphs, each keeping the blank lines that end it. */
function paragraphs(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (const m of text.matchAll(PARAGRAPH_BREAK)) {
    const end = m.index + m[0].length;
    out.push(text.slice(from, end));
    from = end;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Where to cut `text` to keep at most `room` characters: after the last line
 * end in the second half of the room, else after the last whitespace there,
 * else at `room`; never between the two halves of a surrogate pair.
 */
function cutPoint(text: string, room: number): number {
  const line = text.lastIndexOf("\n", room - 1);
  if (line + 1 >= room / 2) return line + 1;
  for (let i = room - 1; i >= room / 2; i -= 1) {
    if (/\s/.test(text.charAt(i))) return i + 1;
  }
  return isHighSurrogate(text.charCodeAt(room - 1)) ? room - 1 : room;
}

/** The parts of `text`, each at most `max` characters; an empty text is one empty part. */
export function splitIntoParts(text: string, max: number = PART_CHARS): TextPart[] {
  if (max < 4) throw new RangeError("a part holds at least four characters");
  const texts: string[] = [];
  let current = "";
  const flush = () => {
    texts.push(current);
    current = "";
  };
  for (const paragraph of paragraphs(text)) {
    if (current.length + paragraph.length <= max) {
      current += paragraph;
      continue;
    }
    // A paragraph that fits a part of its own starts one, rather than being cut.
    if (paragraph.length <= max) {
      flush();
      current = paragraph;
      continue;
    }
    let rest = paragraph;
    while (current.length + rest.length > max) {
      // Too little room left to be worth filling: the long paragraph starts a new part.
      if (max - current.length < max / 4) flush();
      const cut = cutPoint(rest, max - current.length);
      current += rest.slice(0, cut);
      rest = rest.slice(cut);
      flush();
    }
    current += rest;
  }
  if (current !== "" || texts.length === 0) texts.push(current);
  let start = 0;
  return texts.map((t, i) => {
    const part = { index: i + 1, start, end: start + t.length, text: t };
    start += t.length;
    return part;
  });
}
