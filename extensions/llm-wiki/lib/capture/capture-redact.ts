/**
 * Stage redact, on a text source's two parts. The original is redacted
 * before it is converted: the text scan over all of it, then a keyed scan of
 * what the text scan cannot pair with its name (HTML `<meta>` name/content,
 * html-meta.ts). The converted Markdown is redacted again, since a converter
 * may decode an escaped secret (`sk-&#65;…`) or scan a value beside its key
 * (json-markdown.ts, xml-markdown.ts); whatever shows only there, the
 * original still holds, so it is withheld. A PDF is redacted where it is
 * read (pdf-source.ts): its bytes cannot be rewritten.
 */
import { diagnostic } from "../diagnostics.ts";
import { redactKeyed } from "../safety/keyed-redaction.ts";
import {
  countTotal,
  type Redacted,
  type RedactionCounts,
  redactSecrets,
} from "../safety/redact.ts";
import { sumCounts } from "../vault/redaction.ts";
import type {
  CapturedDocument,
  DecodedText,
  ExtractedText,
  RedactedOriginal,
  TextFormat,
} from "./capture-types.ts";
import { metaContents, quoteAttribute } from "./html-meta.ts";
import type { SourceKind } from "./packet.ts";

/**
 * Formats whose `<meta>` tags reach the packet: HTML, and Markdown or plain
 * text, which are stored as written (raw HTML included). JSON and XML have
 * their own keyed scan, and a tag inside one of their strings is not a tag.
 */
const META_FORMATS: ReadonlySet<TextFormat> = new Set(["html", "markdown", "text"]);

/** `text` with each `<meta>` content that is a secret beside its name replaced, quoted and escaped. */
export function redactMetaContents(text: string): Redacted {
  const metas = metaContents(text);
  if (metas.length === 0) return { text, counts: {} };
  const keyed = redactKeyed(metas);
  if (countTotal(keyed.counts) === 0) return { text, counts: {} };
  const parts: string[] = [];
  let at = 0;
  metas.forEach((meta, i) => {
    const value = keyed.values[i];
    if (value === undefined || value === meta.value) return;
    parts.push(text.slice(at, meta.start), quoteAttribute(value));
    at = meta.end;
  });
  parts.push(text.slice(at));
  return { text: parts.join(""), counts: keyed.counts };
}

/** The original redacted: the text scan, then the keyed scan of its `<meta>` tags. */
export function redactOriginal(decoded: DecodedText): RedactedOriginal {
  const scanned = redactSecrets(decoded.text);
  const meta = META_FORMATS.has(decoded.format)
    ? redactMetaContents(scanned.text)
    : { text: scanned.text, counts: {} };
  return {
    format: decoded.format,
    text: meta.text,
    counts: sumCounts(scanned.counts, meta.counts),
  };
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
