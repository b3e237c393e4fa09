/**
 * Text and metadata out of a PDF, with pdf.js (the serverless build that
 * unpdf ships: no worker, no canvas, nothing native). Loaded on the first
 * PDF capture only.
 *
 * A PDF is hostile input: it is read from the bytes given and nothing else
 * (no font, CMap or wasm file is fetched: no URL is configured), its
 * JavaScript and forms are never run (pdf.js's core does not execute
 * scripts; XFA is off), and this pdf.js compiles nothing with `eval`. The
 * whole extraction runs against a deadline checked at every page, and the
 * page count and text size are bounded, so a hostile file cannot keep a
 * capture busy for long or fill the vault. What its streams inflate to is
 * measured before pdf.js opens it (pdf-stream-bounds.ts), and pdf.js,
 * whose work is one long chain of microtasks, hands the event loop back
 * between pages, so a server answers pings and signals during a capture.
 */
import { diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { neutraliseLine, neutraliseText } from "../safety/text.ts";
import {
  checkPdfStreams,
  PDF_MAX_INFLATED_BYTES,
  PDF_MAX_STREAM_BYTES,
  PdfStreamTooLargeError,
} from "./pdf-stream-bounds.ts";

/** What the document says about itself (the /Info dictionary), cleaned to one line each. */
export interface PdfInfo {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  /** The creation day, `YYYY-MM-DD`, as the document records it. */
  created?: string;
  pages: number;
}

/** The text of each page (index 0 is page 1) and the document's own metadata. */
export interface PdfText {
  pages: string[];
  info: PdfInfo;
}

/** Bounds of one extraction. */
export interface PdfLimits {
  /** Deadline for opening the document and reading every page. */
  timeoutMs: number;
  maxPages: number;
  /** Most text, in bytes (UTF-8), read before giving up. */
  maxTextBytes: number;
  signal?: AbortSignal;
  /** Most bytes one compressed stream may inflate to; default `PDF_MAX_STREAM_BYTES`. */
  maxStreamBytes?: number;
  /** Most bytes all compressed streams may inflate to; default `PDF_MAX_INFLATED_BYTES`. */
  maxInflatedBytes?: number;
}

/** Most pages a capture reads. */
export const PDF_MAX_PAGES = 2_000;

/** A PDF starts with `%PDF-` within its first kilobyte (readers tolerate leading junk). */
export function isPdf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString("latin1");
  return head.includes("%PDF-");
}

function fail(code: string, message: string): WikiError {
  return new WikiError(diagnostic(code, "error", message));
}

/** `D:YYYYMMDD…` (PDF date) to `YYYY-MM-DD`, when it names a real day. */
export function pdfDay(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(?:D:)?(\d{4})(\d{2})(\d{2})/.exec(value.trim());
  if (!m) return undefined;
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(day) ? day : undefined;
}

/** One turn of the event loop: pdf.js never yields to I/O on its own. */
function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Measures the streams first; a bomb is refused before pdf.js inflates a byte of it. */
async function checkStreams(bytes: Uint8Array, limits: PdfLimits, deadline: number): Promise<void> {
  try {
    await checkPdfStreams(bytes, {
      deadline,
      maxStreamBytes: limits.maxStreamBytes ?? PDF_MAX_STREAM_BYTES,
      maxDocumentBytes: limits.maxInflatedBytes ?? PDF_MAX_INFLATED_BYTES,
      ...(limits.signal ? { signal: limits.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof PdfStreamTooLargeError)) throw error;
    throw fail("capture_too_large", `${error.message} (a compression bomb?); nothing was stored`);
  }
  if (limits.signal?.aborted) throw fail("capture_aborted", "the capture was cancelled");
}

function infoLine(value: unknown, max = 200): string | undefined {
  if (typeof value !== "string") return undefined;
  const line = neutraliseLine(value);
  if (line === "" || line === "\uFFFD") return undefined;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

type PdfModule = typeof import("unpdf");
let loaded: Promise<PdfModule> | undefined;
function pdfjs(): Promise<PdfModule> {
  loaded ??= import("unpdf");
  return loaded;
}

/** A text item of pdf.js's `getTextContent`, as far as it is read here. */
interface TextPiece {
  str?: unknown;
  hasEOL?: unknown;
}

/** The page's text: pieces joined, line ends where pdf.js saw them, controls neutralised. */
function pageText(items: readonly unknown[]): string {
  let text = "";
  for (const item of items as TextPiece[]) {
    if (typeof item.str === "string") text += item.str;
    if (item.hasEOL === true) text += "\n";
  }
  return neutraliseText(text)
    .split("\n")
    .map((line) => line.replace(/[ \t]+$/, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * Reads `bytes` as a PDF within `limits`. Throws `WikiError`:
 * `capture_pdf_encrypted`, `capture_pdf_invalid`, `capture_pdf_timeout`,
 * `capture_pdf_too_many_pages`, `capture_too_large`, `capture_aborted`.
 */
export async function extractPdf(bytes: Uint8Array, limits: PdfLimits): Promise<PdfText> {
  // One deadline for measuring the streams and reading the pages.
  const deadline = Date.now() + limits.timeoutMs;
  await checkStreams(bytes, limits, deadline);
  const { getResolvedPDFJS } = await pdfjs();
  const { getDocument } = await getResolvedPDFJS();
  let destroy: (() => Promise<void>) | undefined;
  const timedOut = () =>
    fail(
      "capture_pdf_timeout",
      `reading the PDF took longer than ${limits.timeoutMs} ms; nothing was stored`,
    );
  /** `work`, or a refusal when the deadline passes or the caller cancels first. */
  const bounded = async <T>(work: Promise<T>): Promise<T> => {
    if (limits.signal?.aborted) throw fail("capture_aborted", "the capture was cancelled");
    const left = deadline - Date.now();
    if (left <= 0) throw timedOut();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut()), left);
      onAbort = () => reject(fail("capture_aborted", "the capture was cancelled"));
      limits.signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([work, stop]);
    } finally {
      clearTimeout(timer);
      if (onAbort) limits.signal?.removeEventListener("abort", onAbort);
    }
  };
  try {
    // A copy: pdf.js may take over (detach) the buffer it is given.
    const task = getDocument({
      data: new Uint8Array(bytes),
      useSystemFonts: false,
      disableFontFace: true,
      enableXfa: false,
      useWasm: false,
      stopAtErrors: false,
      // Errors only: pdf.js logs warnings to stdout, which is the MCP channel.
      verbosity: 0,
    });
    // Destroyed however this ends, also when the deadline passes while it is still opening.
    destroy = () => task.destroy();
    // Swallowed here, reported through the race: a late rejection must not go unhandled.
    task.promise.catch(() => {});
    const doc = await bounded(task.promise);
    const pageCount = doc.numPages;
    if (pageCount > limits.maxPages) {
      throw fail(
        "capture_pdf_too_many_pages",
        `the PDF has ${pageCount} pages, over the capture limit of ${limits.maxPages}; nothing was stored`,
      );
    }
    const meta = await bounded(doc.getMetadata());
    const info = (meta.info ?? {}) as Record<string, unknown>;
    const pages: string[] = [];
    let textBytes = 0;
    for (let n = 1; n <= pageCount; n++) {
      await yieldToLoop();
      const page = await bounded(doc.getPage(n));
      const content = await bounded(page.getTextContent());
      page.cleanup();
      const text = pageText(content.items);
      textBytes += Buffer.byteLength(text);
      if (textBytes > limits.maxTextBytes) {
        throw fail(
          "capture_too_large",
          `the PDF's text is over the capture limit of ${limits.maxTextBytes} bytes (reached on page ${n}); nothing was stored`,
        );
      }
      pages.push(text);
    }
    const title = infoLine(info.Title);
    const author = infoLine(info.Author);
    const subject = infoLine(info.Subject);
    const keywords = infoLine(info.Keywords);
    const created = pdfDay(info.CreationDate);
    return {
      pages,
      info: {
        ...(title ? { title } : {}),
        ...(author ? { author } : {}),
        ...(subject ? { subject } : {}),
        ...(keywords ? { keywords } : {}),
        ...(created ? { created } : {}),
        pages: pageCount,
      },
    };
  } catch (error) {
    if (error instanceof WikiError) throw error;
    const name = error instanceof Error ? error.name : "";
    if (name === "PasswordException") {
      throw fail(
        "capture_pdf_encrypted",
        "the PDF is encrypted and needs a password; save an unlocked copy and capture that. Nothing was stored",
      );
    }
    throw fail(
      "capture_pdf_invalid",
      `the file is not a readable PDF (${neutraliseLine(errorMessage(error))}); nothing was stored`,
    );
  } finally {
    await destroy?.().catch(() => {});
  }
}

/**
 * The packet's Markdown: `## Page N` before each page's text. A PDF with
 * no text on any page (a scan without a text layer) is refused: there is
 * nothing to search, and OCR is not done here.
 */
export function pdfToMarkdown(pdf: PdfText): { markdown: string; emptyPages: number[] } {
  const emptyPages = pdf.pages.flatMap((text, i) => (text === "" ? [i + 1] : []));
  if (emptyPages.length === pdf.pages.length) {
    throw fail(
      "capture_pdf_no_text",
      `the PDF has no text layer on any of its ${pdf.pages.length} page(s) (a scan or images only); run OCR on it first (e.g. ocrmypdf) and capture the result. Nothing was stored`,
    );
  }
  const parts = pdf.pages.map(
    (text, i) => `## Page ${i + 1}\n\n${text === "" ? "_(no text on this page)_" : text}\n`,
  );
  return { markdown: parts.join("\n"), emptyPages };
}
