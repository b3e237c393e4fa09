/**
 * A PDF made ready for its packet: the text extracted and redacted, the
 * document's metadata redacted, and the decision whether its bytes may be
 * kept. Text can be redacted; a PDF's bytes cannot (the text sits in
 * compressed streams, the metadata in several places), so the original is
 * kept only when no secret was found anywhere the capture can see: in the
 * extracted text, in the metadata and in the raw bytes read as Latin-1
 * (uncompressed streams, the /Info dictionary, XMP). Otherwise the
 * redacted `source.md` is the packet's only copy, and the manifest says so.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { countTotal, type RedactionCounts, redactSecrets } from "../safety/redact.ts";
import { redactValue, sumCounts } from "../vault/redaction.ts";
import { extractPdf, type PdfInfo, type PdfLimits, pdfToMarkdown } from "./pdf-extract.ts";

/** A PDF read, redacted and judged. */
export interface PreparedPdf {
  /** `## Page N` sections, redacted. */
  markdown: string;
  /** The document's title, when it names one (redaction happens with the other titles). */
  title?: string;
  /** Metadata for the manifest and the source page, every field redacted. */
  document: PdfInfo;
  /** The bytes to keep, or undefined when a secret was found somewhere in the file. */
  original?: Uint8Array;
  /** Secrets taken out of the text and the metadata. */
  counts: RedactionCounts;
  diagnostics: Diagnostic[];
}

/** Extracts, redacts and judges `bytes`; throws `WikiError` as `extractPdf` does. */
export async function preparePdf(bytes: Uint8Array, limits: PdfLimits): Promise<PreparedPdf> {
  const pdf = await extractPdf(bytes, limits);
  const { markdown, emptyPages } = pdfToMarkdown(pdf);
  const text = redactSecrets(markdown);
  // Every field of the /Info dictionary (author, subject, keywords, …) goes to
  // the manifest and the source page: each is redacted, beside its name too.
  // The title is counted where the capture redacts its titles.
  const { title: rawTitle, ...rest } = pdf.info;
  const infoCounts: RedactionCounts = {};
  const info = redactValue(rest, infoCounts);
  const title = rawTitle === undefined ? undefined : redactSecrets(rawTitle);
  // Only the counts: the bytes are never rewritten, they are kept whole or not at all.
  const raw = redactSecrets(Buffer.from(bytes).toString("latin1")).counts;
  const counts = sumCounts(text.counts, infoCounts);
  const seen = countTotal(counts) + countTotal(raw) + countTotal(title?.counts ?? {});

  const diagnostics: Diagnostic[] = [];
  if (emptyPages.length > 0) {
    diagnostics.push(
      diagnostic(
        "capture_pdf_pages_without_text",
        "warning",
        `page(s) ${emptyPages.join(", ")} of ${pdf.pages.length} have no text layer (scanned or images only); their text is missing from the packet`,
      ),
    );
  }
  if (seen > 0) {
    diagnostics.push(
      diagnostic(
        "capture_original_withheld",
        "warning",
        "a secret was found in the PDF, whose bytes cannot be redacted: the original was not kept, only the redacted text",
      ),
    );
  }
  const document: PdfInfo = { ...info, ...(title === undefined ? {} : { title: title.text }) };
  return {
    markdown: text.text,
    ...(pdf.info.title === undefined ? {} : { title: pdf.info.title }),
    document,
    ...(seen === 0 ? { original: bytes } : {}),
    counts,
    diagnostics,
  };
}
