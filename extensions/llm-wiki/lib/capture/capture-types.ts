/**
 * What a capture takes and answers, as every host sees it, and what each of
 * its stages hands the next (capture-source.ts runs them in order). Types
 * and the default limits only; the stages live beside this.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { RedactionCounts } from "../safety/redact.ts";
import type { Extraction, SourceFormat } from "./extract.ts";
import type { FetchNetwork } from "./fetch-url.ts";
import type { SourceKind, SourceManifest } from "./packet.ts";
import { PDF_MAX_PAGES, type PdfInfo } from "./pdf-extract.ts";
import type { SourceSlot } from "./source-id.ts";

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

/** The limits a capture runs under unless its options say otherwise. */
export const DEFAULT_CAPTURE_LIMITS: CaptureLimits = {
  maxOriginalBytes: 5 * 1024 * 1024,
  maxTextBytes: 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 5,
  extractTimeoutMs: 30_000,
  maxPdfPages: PDF_MAX_PAGES,
};

/** How and where a capture runs (the host's side, never a model's input). */
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
  /**
   * True when the same content (the Markdown after extraction and redaction)
   * was already captured: `id` is that packet's, and nothing was written
   * (`redactions` still counts what this capture took out before comparing).
   */
  deduplicated?: true;
  /** Secrets redacted, by kind. */
  redactions: RedactionCounts;
  diagnostics: Diagnostic[];
}

/** Stage read's output: a source read and checked, not yet decoded nor redacted. */
export interface SourceRead {
  kind: SourceKind;
  /** The file's real path or the URL as given; null for pasted text. */
  origin: string | null;
  /** The URL after redirects, when it differs from `origin`. */
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

/** The formats that reach the packet as text (everything but a PDF). */
export type TextFormat = Exclude<SourceFormat, "pdf">;

/** Stage decode's output for a PDF: its bytes, untouched (they cannot be redacted). */
export interface DecodedPdf {
  format: "pdf";
  bytes: Uint8Array;
}

/** Stage decode's output for everything else: the text and its format. */
export interface DecodedText {
  format: TextFormat;
  text: string;
}

/** Stage decode's output. */
export type DecodedSource = DecodedPdf | DecodedText;

/** The redact stage's output for an original: its text with every secret found taken out. */
export interface RedactedOriginal {
  format: TextFormat;
  text: string;
  counts: RedactionCounts;
}

/** Stage extract's output for a text source: Markdown from the redacted original, not yet redacted again. */
export interface ExtractedText {
  original: RedactedOriginal;
  extraction: Extraction;
}

/** A source converted to redacted Markdown, with what the packet keeps of the original. */
export interface CapturedDocument {
  format: SourceFormat;
  /** How the Markdown was made: extractor, the document's own title, diagnostics. */
  extraction: Extraction;
  /** The extracted Markdown, redacted. */
  markdown: string;
  /** The original as text (redacted), for a title from its first line; empty for a PDF. */
  originalText: string;
  /** The packet's original: redacted text, a PDF's bytes, or undefined when withheld. */
  original?: string | Uint8Array;
  /** Secrets taken out of the original and the Markdown. */
  counts: RedactionCounts;
  /** A PDF's own metadata, redacted. */
  document?: PdfInfo;
}

/** Stage label's output: the words that name the source, redacted. */
export interface SourceLabels {
  title: string;
  /** The origin (a URL's query may carry a token), redacted; null for pasted text. */
  origin: string | null;
  finalUrl?: string;
  counts: RedactionCounts;
}

/** Stage store's output: the packet on disk. */
export interface StoredPacket {
  slot: SourceSlot;
  manifest: SourceManifest;
}
