/**
 * Stage redact, on a text source's two parts. The original is redacted
 * before it is converted. The converted Markdown is redacted again, since a converter
 * may decode an escaped secret (`sk-&#65;…`) or scan a value beside its key
 * (json-markdown.ts, xml-markdown.ts); whatever shows only there, the
 * original still holds, so it is withheld. A PDF is redacted where it is
 * read (pdf-source.ts): its bytes cannot be rewritten.
 */
import { diagnostic } from "../diagnostics.ts";
import { countTotal, type RedactionCounts, redactSecrets } from "../safety/redact.ts";
import { sumCounts } from "../vault/redaction.ts";
import type {
  CapturedDocument,
  DecodedText,
  ExtractedText,
  RedactedOriginal,
} from "./capture-types.ts";
import type { SourceKind } from "./packet.ts";

/** The original redacted by the text scan. */
export function redactOriginal(decoded: DecodedText): RedactedOriginal {
  const scanned = redactSecrets(decoded.text);
  return { format: decoded.format, text: scanned.text, counts: scanned.counts };
}

/**
 * The converted Markdown redacted, and the judgement on the original: kept
 * (redacted) unless the conversion found a secret its scan missed. Pasted
 * text has no original apart from its Markdown.
 */
export function redactExtracted(kind: SourceKind, extracted: ExtractedText): CapturedDocument {
  const { original, extraction } = extracted;
  const markdown = redactSecrets(extraction.markdown);
  // Whatever the converted text or the keyed scan still finds, the scan of the
  // original missed (an escape, a key's context): the original holds it.
  const unseen: RedactionCounts = extraction.redactions ?? {};
  const withheld = countTotal(sumCounts(unseen, markdown.counts)) > 0 && kind !== "text";
  if (withheld) {
    extraction.diagnostics = [
      ...(extraction.diagnostics ?? []),
      diagnostic(
        "capture_original_withheld",
        "warning",
        "a secret showed only once the document was read (behind an escape or beside its key), so the original still holds it: the original was not kept, only the redacted Markdown",
      ),
    ];
  }
  return {
    format: original.format,
    extraction,
    markdown: markdown.text,
    originalText: original.text,
    ...(withheld ? {} : { original: original.text }),
    counts: sumCounts(original.counts, unseen, markdown.counts),
  };
}
