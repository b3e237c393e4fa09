/**
 * Stage decode: what the bytes read are. A PDF (its `%PDF-` bytes, or a
 * server's `application/pdf`, so a broken one is reported as a PDF) stays
 * bytes; anything else is decoded as text (binaries refused) and its format
 * told from the media type, the name and the content.
 */
import type { DecodedSource, SourceRead, TextFormat } from "./capture-types.ts";
import { decodeText, detectFormat, isPdfMediaType } from "./extract.ts";
import { isPdf } from "./pdf-extract.ts";

/** Decodes `read`; throws `WikiError` (`capture_binary`) for bytes that are not text. */
export function decodeSource(read: SourceRead): DecodedSource {
  const bytes = read.bytes;
  if (bytes !== undefined && (isPdf(bytes) || isPdfMediaType(read.type))) {
    return { format: "pdf", bytes };
  }
  const text = read.text ?? decodeText(bytes ?? new Uint8Array(), read.what, read.charset);
  // Pasted text is Markdown unless it says otherwise; a file or download, plain text.
  const format = detectFormat(
    read.name,
    read.type,
    text,
    read.kind === "text" ? "markdown" : "text",
  );
  return { format: asTextFormat(format), text };
}

/** Text never reads as a PDF (detectFormat names one by its bytes only): plain text if it did. */
function asTextFormat(format: ReturnType<typeof detectFormat>): TextFormat {
  return format === "pdf" ? "text" : format;
}
