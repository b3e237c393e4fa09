/**
 * What a PDF's compressed streams inflate to, measured before pdf.js sees
 * the file (Flate here, LZW and RunLength in pdf-filter-sizes.ts). pdf.js inflates in JavaScript on the event loop and keeps what
 * it inflated: a 9.7 KB file whose one stream inflates to 1 GiB held a
 * capture (and the MCP server) for three minutes and 2.27 GB. Here every
 * FlateDecode stream (chained ones too, e.g. `[/FlateDecode /FlateDecode]`
 * or behind `/ASCIIHexDecode`) is inflated by zlib off the event loop, its
 * output counted and dropped, and the file is refused as soon as one
 * stream or all of them together pass their bound. Memory stays that of a
 * few zlib buffers whatever the ratio.
 *
 * Streams are found by their `stream` keyword, not through the
 * cross-reference table, so a stream the table hides is measured too; each
 * is inflated from its first byte to the end of its deflate data (the
 * `/Length` is not trusted), which is at least what any reader can get out
 * of it.
 */
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createInflate } from "node:zlib";
import { fromAscii85, lzwSize, runLengthSize } from "./pdf-filter-sizes.ts";

export interface PdfStreamLimits {
  /** Most bytes one stream may inflate to. */
  maxStreamBytes: number;
  /** Most bytes all streams together may inflate to. */
  maxDocumentBytes: number;
  signal?: AbortSignal;
  /** When to stop measuring (`Date.now()` time); the caller reports the timeout. */
  deadline?: number;
}

/** Generous for real documents (page contents, fonts, Flate images); far below a bomb. */
export const PDF_MAX_STREAM_BYTES = 32 * 1024 * 1024;
export const PDF_MAX_INFLATED_BYTES = 128 * 1024 * 1024;

/** A stream over a bound: what was found, for the refusal's message. */
export class PdfStreamTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PdfStreamTooLargeError";
  }
}

/** The `stream` keyword that starts stream data: after a dictionary, before an end of line. */
const STREAM_START = /stream(?:\r\n|\n|\r)/g;
/** Longest dictionary looked at before a `stream` keyword. */
const DICT_WINDOW = 4096;

/** The filter names of the dictionary that ends just before `at`, in order. */
function filtersBefore(text: string, at: number): string[] {
  const from = Math.max(0, at - DICT_WINDOW);
  const window = text.slice(from, at);
  // The stream's own dictionary starts after the last `obj` keyword.
  const dict = window.slice(window.lastIndexOf("obj") + 1);
  const match = /\/Filter\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+)/.exec(dict);
  if (!match?.[1]) return [];
  return [...match[1].matchAll(/\/([^\s/[\]<>()]+)/g)].map((m) => m[1] ?? "");
}

const FLATE = new Set(["FlateDecode", "Fl"]);
const HEX = new Set(["ASCIIHexDecode", "AHx"]);

/** `/ASCIIHexDecode` of `data` (whitespace skipped, up to `>`); undefined when it is not hex. */
function fromHex(data: Uint8Array): Uint8Array | undefined {
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const end = view.indexOf(0x3e);
  const digits = view
    .subarray(0, end === -1 ? view.length : end)
    .toString("latin1")
    .replace(/\s+/g, "");
  if (!/^[0-9a-fA-F]*$/.test(digits)) return undefined;
  return Buffer.from(digits.length % 2 === 0 ? digits : `${digits}0`, "hex");
}

/**
 * Inflates `data` through `rounds` chained inflates, counting the last
 * one's output and stopping past `budget`. Returns the bytes counted (over
 * `budget` when it stopped there); a broken deflate stream counts what came
 * before the break, as a reader would get.
 */
async function inflatedSize(
  data: Uint8Array,
  rounds: number,
  budget: number,
  signal: AbortSignal | undefined,
): Promise<number> {
  let counted = 0;
  const stop = new AbortController();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      counted += chunk.length;
      if (counted > budget) stop.abort();
      done();
    },
  });
  const onAbort = () => stop.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  const stages = Array.from({ length: rounds }, () => createInflate());
  try {
    // A view, not a copy: the data runs to the end of the file.
    const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    await pipeline([Readable.from([view]), ...stages, sink], { signal: stop.signal });
  } catch {
    // Over the budget, cancelled, or not valid deflate data: the count so far stands.
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  return counted;
}

/** Filters whose output can be far larger than their input. */
const AMPLIFYING = new Set(["FlateDecode", "Fl", "LZWDecode", "LZW", "RunLengthDecode", "RL"]);
const A85 = new Set(["ASCII85Decode", "A85"]);

/** `/EarlyChange` of an LZW stream's parameters (1 unless the dictionary says 0). */
function earlyChange(text: string, at: number): number {
  const window = text.slice(Math.max(0, at - DICT_WINDOW), at);
  return /\/EarlyChange\s+0\b/.test(window.slice(window.lastIndexOf("obj") + 1)) ? 0 : 1;
}

/**
 * The decoded size of the stream whose data starts at `start`, under
 * `filters`, or undefined when no filter of it amplifies. Throws when an
 * amplifying filter sits where it cannot be measured (behind another).
 */
async function streamSize(
  bytes: Uint8Array,
  text: string,
  at: number,
  start: number,
  budget: number,
  signal: AbortSignal | undefined,
): Promise<number | undefined> {
  const filters = filtersBefore(text, at);
  if (!filters.some((f) => AMPLIFYING.has(f))) return undefined;
  let data: Uint8Array | undefined = bytes.subarray(start);
  let next = 0;
  // An ASCII wrapper first is undone here (its output is smaller than its input).
  const first = filters[0] ?? "";
  if (HEX.has(first) || A85.has(first)) {
    data = HEX.has(first) ? fromHex(data) : fromAscii85(data);
    next = 1;
  }
  if (data === undefined) return undefined;
  const head = filters[next] ?? "";
  let size: number;
  let after: number;
  if (FLATE.has(head)) {
    let flates = 0;
    while (FLATE.has(filters[next + flates] ?? "")) flates += 1;
    size = await inflatedSize(data, flates, budget, signal);
    after = next + flates;
  } else if (head === "LZWDecode" || head === "LZW") {
    size = lzwSize(data, budget, earlyChange(text, at));
    after = next + 1;
  } else if (head === "RunLengthDecode" || head === "RL") {
    size = runLengthSize(data, budget);
    after = next + 1;
  } else {
    size = 0;
    after = next;
  }
  if (filters.slice(after).some((f) => AMPLIFYING.has(f))) {
    throw new PdfStreamTooLargeError(
      `a stream of the PDF chains its filters (${filters.join(" ")}) so that what it inflates to cannot be measured`,
    );
  }
  return size;
}

/**
 * Measures every stream of `bytes` that an amplifying filter decodes.
 * Throws `PdfStreamTooLargeError` when one stream decodes past
 * `maxStreamBytes`, all of them past `maxDocumentBytes`, or one cannot be
 * measured; returns the total decoded bytes otherwise.
 */
export async function checkPdfStreams(bytes: Uint8Array, limits: PdfStreamLimits): Promise<number> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  let total = 0;
  for (const match of text.matchAll(STREAM_START)) {
    if (limits.signal?.aborted) return total;
    if (limits.deadline !== undefined && Date.now() > limits.deadline) return total;
    const at = match.index;
    // Stream data follows its dictionary's `>>`; the word inside other data is skipped cheaply.
    if (!/>>\s*$/.test(text.slice(Math.max(0, at - 64), at))) continue;
    const budget = Math.min(limits.maxStreamBytes, limits.maxDocumentBytes - total);
    const start = at + match[0].length;
    const size = await streamSize(bytes, text, at, start, budget, limits.signal);
    if (size === undefined) continue;
    if (size > limits.maxStreamBytes) {
      throw new PdfStreamTooLargeError(
        `a stream of the PDF decodes to over ${limits.maxStreamBytes} bytes`,
      );
    }
    total += size;
    if (total > limits.maxDocumentBytes) {
      throw new PdfStreamTooLargeError(
        `the PDF's streams decode to over ${limits.maxDocumentBytes} bytes in all`,
      );
    }
  }
  return total;
}
