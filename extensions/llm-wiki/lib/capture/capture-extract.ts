/**
 * Stage extract: the document's text as Markdown. A text source is
 * converted from its redacted original (extract.ts: HTML, JSON, XML;
 * Markdown and plain text passed through); a PDF's pages are read under the
 * extraction's deadline and page limit (pdf-source.ts), which also redacts
 * them, since a PDF's bytes cannot be redacted and must be judged whole.
 */
import { captureTooLarge } from "./capture-refusals.ts";
import type {
  CapturedDocument,
  CaptureLimits,
  DecodedPdf,
  ExtractedText,
  RedactedOriginal,
} from "./capture-types.ts";
import { toMarkdown } from "./extract.ts";
import { preparePdf } from "./pdf-source.ts";

/** Converts a redacted original to Markdown (to be redacted again by `redactExtracted`). */
export async function extractText(original: RedactedOriginal): Promise<ExtractedText> {
  return { original, extraction: await toMarkdown(original.text, original.format) };
}

/** Reads a PDF's text and metadata, redacted, and keeps its bytes only when no secret was seen. */
export async function extractPdf(
  pdf: DecodedPdf,
  limits: CaptureLimits,
  signal: AbortSignal | undefined,
): Promise<CapturedDocument> {
  const prepared = await preparePdf(pdf.bytes, {
    timeoutMs: limits.extractTimeoutMs,
    maxPages: limits.maxPdfPages,
    maxTextBytes: limits.maxTextBytes,
    ...(signal ? { signal } : {}),
  });
  return {
    format: "pdf",
    extraction: {
      markdown: prepared.markdown,
      extractor: "pdfjs",
      ...(prepared.title === undefined ? {} : { title: prepared.title }),
      diagnostics: prepared.diagnostics,
    },
    markdown: prepared.markdown,
    originalText: "",
    ...(prepared.original === undefined ? {} : { original: prepared.original }),
    counts: prepared.counts,
    document: prepared.document,
  };
}

/** Refuses Markdown over the text limit (`capture_too_large`): a packet is read whole. */
export function checkExtractedSize(document: CapturedDocument, limits: CaptureLimits): void {
  const bytes = Buffer.byteLength(document.markdown);
  if (bytes > limits.maxTextBytes) {
    throw captureTooLarge("the extracted text", bytes, limits.maxTextBytes);
  }
}
