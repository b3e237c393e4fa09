/**
 * From captured bytes to Markdown: decoding (text only; binaries are
 * refused), format detection from the name, media type and content, and
 * conversion: HTML through node-html-markdown, JSON and XML to headings and
 * lists (json-markdown.ts, xml-markdown.ts), Markdown and plain text passed
 * through. PDFs are binary and go their own way (pdf-extract.ts).
 */
import { extname } from "node:path";
import { TextDecoder } from "node:util";
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";
import type { RedactionCounts } from "../safety/redact.ts";
import { jsonToMarkdown } from "./json-markdown.ts";
import { xmlToMarkdown } from "./xml-markdown.ts";

/** What a captured source is, as far as extraction goes. */
export type SourceFormat = "text" | "markdown" | "html" | "json" | "xml" | "pdf";

/** Extracted Markdown and how it was made. */
export interface Extraction {
  markdown: string;
  /** Name of the extractor, recorded in the manifest. */
  extractor: string;
  /** The document's own title (HTML `<title>`, else the first heading), when it has one. */
  title?: string;
  /** What the conversion could not do as usual (a fallback, a DTD not processed). */
  diagnostics?: Diagnostic[];
  /**
   * Secrets the converter found that the scan of the original text did not
   * (seen only beside their key, or behind an escape): the original still
   * holds them, so it must not be kept.
   */
  redactions?: RedactionCounts;
}

/** Media type per format, for sources that did not name one. */
export const FORMAT_MIME: Record<SourceFormat, string> = {
  text: "text/plain",
  markdown: "text/markdown",
  html: "text/html",
  json: "application/json",
  xml: "application/xml",
  pdf: "application/pdf",
};

/** Extension of the packet's `original.<ext>` per format. */
export const FORMAT_EXTENSION: Record<SourceFormat, string> = {
  text: "txt",
  markdown: "md",
  html: "html",
  json: "json",
  xml: "xml",
  pdf: "pdf",
};

const EXTENSION_FORMAT: Record<string, SourceFormat> = {
  ".md": "markdown",
  ".markdown": "markdown",
  ".mdx": "markdown",
  ".html": "html",
  ".htm": "html",
  ".xhtml": "html",
  ".json": "json",
  ".xml": "xml",
  ".rss": "xml",
  ".atom": "xml",
  ".pdf": "pdf",
};

/** Media type without parameters, lowercased (`text/html; charset=utf-8` → `text/html`). */
export function mediaType(contentType: string | undefined): string | undefined {
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  return type ? type : undefined;
}

/** The `charset` parameter of a Content-Type header, if any. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "");
  return m?.[1]?.toLowerCase();
}

/** Media types a capture accepts: text of any kind, JSON, XHTML and XML. */
export function isTextualMediaType(type: string): boolean {
  return (
    type.startsWith("text/") ||
    type === "application/json" ||
    type.endsWith("+json") ||
    type === "application/xhtml+xml" ||
    type === "application/xml" ||
    type.endsWith("+xml") ||
    type === "application/x-ndjson"
  );
}

/** Media types a capture accepts: the textual ones and PDF. */
export function isCapturableMediaType(type: string): boolean {
  return isTextualMediaType(type) || isPdfMediaType(type);
}

/** `application/pdf` and its old alias. */
export function isPdfMediaType(type: string | undefined): boolean {
  return type === "application/pdf" || type === "application/x-pdf";
}

function binaryRefusal(what: string, detail: string): WikiError {
  return new WikiError(
    diagnostic(
      "capture_binary",
      "error",
      `${what} is not text (${detail}); only text, Markdown, HTML, JSON, XML and PDF can be captured`,
    ),
  );
}

/**
 * Decodes `bytes` as text in `charset` (UTF-8 unless told otherwise). NUL
 * bytes or bytes that are not valid in the charset mean a binary file,
 * which is refused rather than stored as mojibake.
 */
export function decodeText(bytes: Uint8Array, what: string, charset = "utf-8"): string {
  if (bytes.includes(0)) throw binaryRefusal(what, "it contains NUL bytes");
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    throw binaryRefusal(what, `unknown charset "${charset}"`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw binaryRefusal(what, `it is not valid ${charset}`);
  }
}

/**
 * Format from the media type, the file or URL path's extension, then the
 * content itself; `fallback` when nothing tells (pasted text is Markdown).
 */
export function detectFormat(
  name: string,
  type: string | undefined,
  text: string,
  fallback: SourceFormat = "text",
): SourceFormat {
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "text/markdown" || type === "text/x-markdown") return "markdown";
  if (type === "application/json" || type?.endsWith("+json")) return "json";
  if (type === "application/xml" || type === "text/xml" || type?.endsWith("+xml")) return "xml";
  const byName = EXTENSION_FORMAT[extname(name).toLowerCase()];
  // A PDF is recognised by its bytes before decoding; a text file named `.pdf` is not one.
  if (byName && byName !== "pdf") return byName;
  if (/^\s*(?:<!doctype html|<html[\s>])/i.test(text)) return "html";
  const head = text.slice(0, 2048);
  if (/^\uFEFF?\s*<\?xml[\s?]/.test(head)) return /<html[\s>]/i.test(head) ? "html" : "xml";
  return fallback;
}

// Page chrome that is not the document.
const HTML_IGNORE = ["nav", "footer", "form", "button", "svg", "iframe", "noscript", "template"];
// Without escaping, a title is plain text: `my_module` must not read `my\_module`.
const NO_ESCAPE = [/(?!)/g, ""] as const;

/** node-html-markdown and its HTML parser, loaded on the first HTML capture only (hosts start faster). */
type Converter = typeof import("node-html-markdown")["NodeHtmlMarkdown"];
let converter: Promise<Converter> | undefined;
function htmlConverter(): Promise<Converter> {
  converter ??= import("node-html-markdown").then((m) => {
    // A CommonJS package: Node's loader exposes its named exports, a bundle only `default`.
    const named: Partial<Pick<typeof m, "NodeHtmlMarkdown">> = m;
    const bundled: Partial<Pick<typeof m, "default">> = m;
    const found = named.NodeHtmlMarkdown ?? bundled.default?.NodeHtmlMarkdown;
    if (typeof found?.translate !== "function") {
      throw new Error("node-html-markdown loaded without its NodeHtmlMarkdown export");
    }
    return found;
  });
  return converter;
}

function plainText(NodeHtmlMarkdown: Converter, html: string): string {
  return NodeHtmlMarkdown.translate(html, { globalEscape: NO_ESCAPE, lineStartEscape: NO_ESCAPE })
    .replace(/\s+/g, " ")
    .trim();
}

function htmlTitle(NodeHtmlMarkdown: Converter, html: string): string | undefined {
  const inner = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1];
  const title = inner === undefined ? "" : plainText(NodeHtmlMarkdown, `<span>${inner}</span>`);
  return title === "" ? undefined : title;
}

function firstHeading(markdown: string): string | undefined {
  const m = /^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(markdown);
  return m?.[1]?.replace(/\\([\\`*_{}[\]()#+\-.!|])/g, "$1");
}

/** Converts decoded text of `format` to Markdown. */
export async function toMarkdown(text: string, format: SourceFormat): Promise<Extraction> {
  const body = text.replace(/^\uFEFF/, "");
  switch (format) {
    case "html": {
      const NodeHtmlMarkdown = await htmlConverter();
      const markdown = NodeHtmlMarkdown.translate(body, { ignore: HTML_IGNORE }).trim();
      const title = htmlTitle(NodeHtmlMarkdown, body) ?? firstHeading(markdown);
      return {
        markdown: `${markdown}\n`,
        extractor: "node-html-markdown",
        ...(title ? { title } : {}),
      };
    }
    case "json":
      return jsonToMarkdown(body);
    case "xml":
      return xmlToMarkdown(body);
    default: {
      const title = format === "markdown" ? firstHeading(body) : undefined;
      return {
        markdown: body.endsWith("\n") || body === "" ? body : `${body}\n`,
        extractor: "passthrough",
        ...(title ? { title } : {}),
      };
    }
  }
}
