/**
 * Capturing a source: pasted text, a local file or an http(s) URL becomes an
 * immutable packet `raw/sources/SRC-YYYY-MM-DD-NNN/` plus a skeleton source
 * page and a `source_captured` event. Text, Markdown, HTML, JSON and XML are
 * decoded and converted; a PDF's text is extracted page by page.
 *
 * Order matters: everything that can fail or reveal a secret (reading,
 * fetching, size checks, decoding, redaction, extraction) happens before
 * the id is claimed, so a failed capture leaves nothing behind and no
 * unredacted byte is ever written.
 */
import { homedir } from "node:os";
import { type Diagnostic, diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { countTotal, type RedactionCounts, redactSecrets } from "../safety/redact.ts";
import { checkSingleLine, neutraliseLine } from "../safety/text.ts";
import { recordEvents } from "../vault/events.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { sumCounts } from "../vault/redaction.ts";
import { checkBodyText } from "../writing/input.ts";
import {
  charsetOf,
  decodeText,
  detectFormat,
  type Extraction,
  FORMAT_EXTENSION,
  FORMAT_MIME,
  isPdfMediaType,
  mediaType,
  type SourceFormat,
  toMarkdown,
} from "./extract.ts";
import { checkCaptureUrl, type FetchNetwork, fetchForCapture } from "./fetch-url.ts";
import {
  describeFiles,
  PACKET_VERSION,
  type PacketContent,
  type SourceKind,
  type SourceManifest,
  writePacket,
} from "./packet.ts";
import { isPdf, PDF_MAX_PAGES, type PdfInfo } from "./pdf-extract.ts";
import { preparePdf } from "./pdf-source.ts";
import { readFileForCapture } from "./read-file.ts";
import { allocateSourceId } from "./source-id.ts";
import { createSourcePage, type SourcePageResult } from "./source-page.ts";

/** What to capture: exactly one of `text`, `file` or `url`. */
export interface CaptureSourceInput {
  /** Text to capture as is (Markdown or plain). */
  text?: string;
  /** Title of the source; by default the document's own title, file name or first line. */
  title?: string;
  /** Path of a local text, Markdown, HTML, JSON, XML or PDF file (relative to the working directory). */
  file?: string;
  /** An http or https URL. */
  url?: string;
}

/** Size and time limits of a capture. */
export interface CaptureLimits {
  /** Largest original (file or download) accepted, in bytes. */
  maxOriginalBytes: number;
  /** Largest extracted Markdown (and pasted text) accepted, in bytes. */
  maxTextBytes: number;
  /** Deadline of a URL fetch, headers and body. */
  timeoutMs: number;
  maxRedirects: number;
  /** Deadline for reading a document's text (a PDF), on top of the fetch. */
  extractTimeoutMs: number;
  /** Most pages of a PDF read. */
  maxPdfPages: number;
}

const DEFAULT_CAPTURE_LIMITS: CaptureLimits = {
  maxOriginalBytes: 5 * 1024 * 1024,
  maxTextBytes: 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 5,
  extractTimeoutMs: 30_000,
  maxPdfPages: PDF_MAX_PAGES,
};

export interface CaptureOptions {
  /** Working directory: relative file paths start here, and files below it may be captured. */
  cwd: string;
  /** The user's home folder (files below it may be captured); default: the OS home. */
  home?: string;
  /** Further folders whose files may be captured (a host's configuration, never a model's input). */
  allowedRoots?: string[];
  /** Internal hosts a URL may reach (the `captureAllowHosts` setting) and the resolver. */
  network?: FetchNetwork;
  limits?: Partial<CaptureLimits>;
  signal?: AbortSignal;
  now?: Date;
}

/** The outcome of a capture; on failure only `ok`, `diagnostics` and `redactions` (empty). */
export interface CaptureSourceResult {
  ok: boolean;
  /** `SRC-YYYY-MM-DD-NNN`. */
  id?: string;
  /** Vault-relative packet folder, `raw/sources/<id>`. */
  packet?: string;
  /** Id of the skeleton source page, e.g. `sources/rag-survey`. */
  page?: string;
  manifest?: SourceManifest;
  /** Secrets redacted, by kind. */
  redactions: RedactionCounts;
  diagnostics: Diagnostic[];
}

/** A source read and checked, not yet decoded nor redacted. */
interface Acquired {
  kind: SourceKind;
  origin: string | null;
  finalUrl?: string;
  /** Name whose extension hints at the format (file path or URL path). */
  name: string;
  /** Pasted text; a file's or download's bytes are in `bytes`. */
  text?: string;
  bytes?: Uint8Array;
  /** What the bytes are called in a diagnostic (the path or URL). */
  what: string;
  /** The charset a server declared. */
  charset?: string;
  inputBytes: number;
  /** Declared media type, for URLs. */
  type?: string;
  /** Extension of the original file, when it has a usable one. */
  extension?: string;
}

const MAX_TITLE_CHARS = 200;

function invalid(message: string): WikiError {
  return new WikiError(diagnostic("capture_invalid_input", "error", message));
}

function tooLarge(what: string, bytes: number, limit: number): WikiError {
  return new WikiError(
    diagnostic(
      "capture_too_large",
      "error",
      `${what} is ${bytes} bytes, over the capture limit of ${limit} bytes; nothing was stored`,
    ),
  );
}

function given(value: string | undefined): value is string {
  return value !== undefined && value !== "";
}

async function acquire(
  input: CaptureSourceInput,
  options: CaptureOptions,
  roots: string[],
  limits: CaptureLimits,
): Promise<Acquired> {
  const chosen = [input.text, input.file, input.url].filter(given).length;
  if (chosen !== 1) throw invalid("give exactly one of text, file or url");
  if (given(input.text)) {
    const bytes = Buffer.byteLength(input.text);
    if (bytes > limits.maxTextBytes) throw tooLarge("the text", bytes, limits.maxTextBytes);
    // Pasted text is stored as given: a NUL or an escape sequence in it would
    // make the packet binary, or act on the terminal of whoever reads it.
    checkBodyText(input.text, "text");
    return {
      kind: "text",
      origin: null,
      name: "",
      text: input.text,
      what: "the text",
      inputBytes: bytes,
    };
  }
  if (given(input.file)) {
    const read = await readFileForCapture(input.file, options.cwd, roots, limits.maxOriginalBytes);
    const extension = /\.([A-Za-z0-9]{1,10})$/.exec(read.realPath)?.[1]?.toLowerCase();
    return {
      kind: "file",
      origin: read.realPath,
      name: read.realPath,
      bytes: read.bytes,
      what: read.path,
      inputBytes: read.bytes.byteLength,
      ...(extension ? { extension } : {}),
    };
  }
  const url = checkCaptureUrl(input.url ?? "");
  const fetched = await fetchForCapture(
    url,
    {
      timeoutMs: limits.timeoutMs,
      maxBytes: limits.maxOriginalBytes,
      maxRedirects: limits.maxRedirects,
      ...(options.signal ? { signal: options.signal } : {}),
    },
    options.network,
  );
  const type = mediaType(fetched.contentType);
  return {
    kind: "url",
    origin: url.href,
    ...(fetched.finalUrl.href !== url.href ? { finalUrl: fetched.finalUrl.href } : {}),
    name: fetched.finalUrl.pathname,
    bytes: fetched.bytes,
    what: url.href,
    ...(charsetOf(fetched.contentType) ? { charset: charsetOf(fetched.contentType) } : {}),
    inputBytes: fetched.bytes.byteLength,
    ...(type !== undefined && type !== "application/octet-stream" ? { type } : {}),
  };
}

/** One line of plain text, cut to the title length. */
function titleFrom(text: string): string {
  const line = neutraliseLine(text);
  return line.length > MAX_TITLE_CHARS ? `${line.slice(0, MAX_TITLE_CHARS - 1)}…` : line;
}

/** The document's own title, else the file name, the URL or the first line of the text. */
function defaultTitle(kind: SourceKind, origin: string | null, text: string): string {
  if (kind === "file") return origin?.split(/[\\/]/).pop() ?? "";
  if (kind === "url") return origin ?? "";
  const first = text.split(/\r?\n/).find((line) => line.trim() !== "");
  return first ? first.replace(/^\s*#+\s*/, "") : "";
}

function originalName(source: Acquired, format: SourceFormat): string | undefined {
  if (source.kind === "text") return undefined; // `source.md` is the text itself
  return `original.${source.extension ?? FORMAT_EXTENSION[format]}`;
}

/** A source converted to redacted Markdown, with what the packet keeps of the original. */
interface Converted {
  format: SourceFormat;
  extraction: Extraction;
  /** The extracted Markdown, redacted. */
  markdown: { text: string };
  /** The original as text (redacted), for a title from its first line; empty for a PDF. */
  originalText: string;
  /** The packet's original: redacted text, a PDF's bytes, or undefined when withheld. */
  original?: string | Uint8Array;
  /** Secrets taken out of the original and the Markdown. */
  counts: RedactionCounts;
  /** A PDF's own metadata. */
  document?: PdfInfo;
}

async function convert(
  source: Acquired,
  limits: CaptureLimits,
  signal: AbortSignal | undefined,
): Promise<Converted> {
  const bytes = source.bytes;
  // The bytes decide (`%PDF-`); a server's `application/pdf` too, so a broken one is reported as a PDF.
  if (bytes !== undefined && (isPdf(bytes) || isPdfMediaType(source.type))) {
    const pdf = await preparePdf(bytes, {
      timeoutMs: limits.extractTimeoutMs,
      maxPages: limits.maxPdfPages,
      maxTextBytes: limits.maxTextBytes,
      ...(signal ? { signal } : {}),
    });
    return {
      format: "pdf",
      extraction: {
        markdown: pdf.markdown,
        extractor: "pdfjs",
        ...(pdf.title === undefined ? {} : { title: pdf.title }),
        diagnostics: pdf.diagnostics,
      },
      markdown: { text: pdf.markdown },
      originalText: "",
      ...(pdf.original === undefined ? {} : { original: pdf.original }),
      counts: pdf.counts,
      document: pdf.document,
    };
  }
  const text = source.text ?? decodeText(bytes ?? new Uint8Array(), source.what, source.charset);
  const format = detectFormat(
    source.name,
    source.type,
    text,
    source.kind === "text" ? "markdown" : "text",
  );
  // Redact the original first, then convert; the converter may decode an
  // entity-escaped secret (`sk-&#65;…`), so its output is redacted again.
  const original = redactSecrets(text);
  const extraction = await toMarkdown(original.text, format);
  const markdown = redactSecrets(extraction.markdown);
  // Whatever the converted text or the keyed scan still finds, the scan of the
  // original missed (an escape, a key's context): the original holds it.
  const unseen = extraction.redactions ?? {};
  const withheld = countTotal(sumCounts(unseen, markdown.counts)) > 0 && source.kind !== "text";
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
    format,
    extraction,
    markdown,
    originalText: original.text,
    ...(withheld ? {} : { original: original.text }),
    counts: sumCounts(original.counts, unseen, markdown.counts),
  };
}

/** Captures `input` into `vault`; never throws for a user-facing failure (see `diagnostics`). */
export async function captureSource(
  vault: VaultPaths,
  input: CaptureSourceInput,
  options: CaptureOptions,
): Promise<CaptureSourceResult> {
  const limits = { ...DEFAULT_CAPTURE_LIMITS, ...options.limits };
  const now = options.now ?? new Date();
  const roots = [
    vault.root,
    options.cwd,
    options.home ?? homedir(),
    ...(options.allowedRoots ?? []),
  ];
  try {
    // A title the caller gives is one line of visible text; a derived one is neutralised.
    if (given(input.title)) checkSingleLine(input.title.trim(), "title");
    const source = await acquire(input, options, roots, limits);
    const converted = await convert(source, limits, options.signal);
    const { format, extraction, markdown } = converted;
    const sourceBytes = Buffer.byteLength(markdown.text);
    if (sourceBytes > limits.maxTextBytes) {
      throw tooLarge("the extracted text", sourceBytes, limits.maxTextBytes);
    }
    // A URL's query may carry a token (`?access_token=…`): the origin is redacted too.
    const origin = source.origin === null ? undefined : redactSecrets(source.origin);
    const finalUrl = source.finalUrl === undefined ? undefined : redactSecrets(source.finalUrl);
    const asked = input.title?.trim();
    const titled = redactSecrets(
      titleFrom(
        given(asked)
          ? asked
          : (extraction.title ??
              defaultTitle(source.kind, origin?.text ?? null, converted.originalText)),
      ),
    );
    const title = titled.text === "" ? "Pasted text" : titled.text;
    const redactions = sumCounts(
      converted.counts,
      origin?.counts ?? {},
      finalUrl?.counts ?? {},
      titled.counts,
    );

    const name = originalName(source, format);
    const content: PacketContent = {
      source: markdown.text,
      ...(name && converted.original !== undefined
        ? { original: { name, text: converted.original } }
        : {}),
    };
    const slot = allocateSourceId(vault, now);
    const described = describeFiles(content);
    const manifest: SourceManifest = {
      packet_version: PACKET_VERSION,
      id: slot.id,
      kind: source.kind,
      origin: origin?.text ?? null,
      ...(finalUrl ? { final_url: finalUrl.text } : {}),
      ...(source.kind === "url" && origin ? { url: origin.text } : {}),
      ...(source.kind === "file" && origin ? { file_path: origin.text } : {}),
      title,
      capturedAt: now.toISOString(),
      captured: now.toISOString().slice(0, 10),
      format,
      mime: source.type ?? FORMAT_MIME[format],
      extractor: extraction.extractor,
      extraction_status: "success",
      ...(converted.document ? { document: converted.document } : {}),
      ...(name && converted.original === undefined
        ? { original_withheld: "secrets" as const }
        : {}),
      files: described.files,
      sizes: { input: source.inputBytes, ...described.sizes },
      hashes: described.hashes,
      redactions,
    };
    // On failure it takes back only the files it wrote: no half packet stays.
    writePacket(slot, content, manifest);

    // The packet is the record; a page that cannot be made is reported, not fatal.
    let page: SourcePageResult;
    try {
      page = createSourcePage(vault, manifest, markdown.text, now);
    } catch (error) {
      page = {
        diagnostics: [
          diagnostic(
            "capture_page_failed",
            "warning",
            `captured ${slot.id}, but its source page could not be created: ${errorMessage(error)}`,
            { path: slot.rel },
          ),
        ],
      };
    }
    // The packet is stored: a log that cannot take its event is a warning, not a failure.
    const logged = recordEvents(
      vault,
      [
        {
          kind: "source_captured",
          id: slot.id,
          source_kind: source.kind,
          origin: manifest.origin,
          packet: slot.rel,
          ...(page.id ? { page: page.id } : {}),
          // By kind, never the values; the log redacts the line once more.
          redactions,
        },
      ],
      now,
    );
    const diagnostics = [
      ...(extraction.diagnostics ?? []),
      ...page.diagnostics,
      ...logged.diagnostics,
    ];
    if (countTotal(redactions) > 0) {
      diagnostics.push(
        diagnostic(
          "capture_redacted",
          "info",
          `${countTotal(redactions)} secret(s) redacted before writing: ${Object.entries(redactions)
            .map(([kind, n]) => `${kind} ${n}`)
            .join(", ")}`,
          { path: slot.rel },
        ),
      );
    }
    return {
      ok: true,
      id: slot.id,
      packet: slot.rel,
      ...(page.id ? { page: page.id } : {}),
      manifest,
      redactions,
      diagnostics,
    };
  } catch (error) {
    if (error instanceof WikiError) {
      return { ok: false, redactions: {}, diagnostics: [error.diagnostic] };
    }
    return {
      ok: false,
      redactions: {},
      diagnostics: [
        diagnostic("capture_failed", "error", `capture failed: ${errorMessage(error)}`),
      ],
    };
  }
}
