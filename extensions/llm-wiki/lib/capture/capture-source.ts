/**
 * Capturing a source: pasted text, a local file or an http(s) URL becomes an
 * immutable packet `raw/sources/SRC-YYYY-MM-DD-NNN/` plus a skeleton source
 * page and a `source_captured` event. One pipeline of named stages, each its
 * own module with a typed input and output (types in capture-types.ts):
 *
 *   read      capture-read.ts      input checked; text, file or URL acquired   → SourceRead
 *   decode    capture-decode.ts    PDF bytes, or text and its format           → DecodedSource
 *   redact    capture-redact.ts    the original: text scan, keyed <meta> scan  → RedactedOriginal
 *   extract   capture-extract.ts   Markdown (a PDF: read and redacted there)   → ExtractedText | CapturedDocument
 *   redact    capture-redact.ts    the Markdown again; keep or withhold        → CapturedDocument
 *   label     capture-label.ts     title and origin, redacted                  → SourceLabels
 *   dedupe    capture-dedupe.ts    the same Markdown already in a packet: its id → CapturedPacket
 *   store     capture-store.ts     id claimed, manifest, packet written        → StoredPacket
 *   page      capture-page.ts      the skeleton source page                    → SourcePageResult
 *   record    capture-record.ts    the `source_captured` event                 → Diagnostic[]
 *
 * Order matters: everything that can fail or reveal a secret (reading,
 * fetching, size checks, decoding, redaction, extraction) happens before
 * the id is claimed, so a failed capture leaves nothing behind and no
 * unredacted byte is ever written. Indexing is the host's: the page write
 * marks the vault changed, and Pi reindexes at once, the CLI and MCP at the
 * next search.
 */
import { hashContent } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { sumCounts } from "../vault/redaction.ts";
import { decodeSource } from "./capture-decode.ts";
import { findCapturedPacket } from "./capture-dedupe.ts";
import { checkExtractedSize, extractPdf, extractText } from "./capture-extract.ts";
import { labelSource } from "./capture-label.ts";
import { pageForPacket } from "./capture-page.ts";
import { readContext, readSource } from "./capture-read.ts";
import { recordCapture } from "./capture-record.ts";
import { redactExtracted, redactOriginal } from "./capture-redact.ts";
import { captureFailure, captureReport, duplicateReport } from "./capture-report.ts";
import { storePacket } from "./capture-store.ts";
import {
  type CapturedDocument,
  type CaptureLimits,
  type CaptureOptions,
  type CaptureSourceInput,
  type CaptureSourceResult,
  DEFAULT_CAPTURE_LIMITS,
} from "./capture-types.ts";

export type {
  CaptureLimits,
  CaptureOptions,
  CaptureSourceInput,
  CaptureSourceResult,
} from "./capture-types.ts";

/**
 * The PDF deadline a spec asked for: `LLM_WIKI_CAPTURE_PDF_TIMEOUT_MS`, read
 * only when `LLM_WIKI_TEST` is set (as crash-points.ts reads its steps), so
 * no user setting reaches it. A spec of what happens at the deadline then
 * need not keep two processes reading for the 30 s users are given.
 */
function testDeadline(): Partial<CaptureLimits> {
  if (process.env.LLM_WIKI_TEST !== "1") return {};
  const ms = Number(process.env.LLM_WIKI_CAPTURE_PDF_TIMEOUT_MS);
  return Number.isInteger(ms) && ms > 0 ? { extractTimeoutMs: ms } : {};
}

/** Captures `input` into `vault`; never throws for a user-facing failure (see `diagnostics`). */
export async function captureSource(
  vault: VaultPaths,
  input: CaptureSourceInput,
  options: CaptureOptions,
): Promise<CaptureSourceResult> {
  const limits = { ...DEFAULT_CAPTURE_LIMITS, ...testDeadline(), ...options.limits };
  const now = options.now ?? new Date();
  try {
    const read = await readSource(input, readContext(vault, options, limits));
    const decoded = decodeSource(read);
    let document: CapturedDocument;
    if (decoded.format === "pdf") {
      document = await extractPdf(decoded, limits, options.signal);
    } else {
      const original = redactOriginal(decoded);
      document = redactExtracted(read.kind, await extractText(original));
    }
    checkExtractedSize(document, limits);
    const labels = labelSource(input.title, read, document);
    const redactions = sumCounts(document.counts, labels.counts);
    // The key is what the packet's `source.md` would hold (its manifest's `hashes.source`).
    const existing = findCapturedPacket(vault, `sha256:${hashContent(document.markdown)}`);
    if (existing !== undefined) return duplicateReport(existing, redactions);
    const stored = storePacket(vault, { read, document, labels, redactions, now });
    const page = pageForPacket(vault, stored, document.markdown, now);
    const logged = recordCapture(vault, stored, page, redactions, now);
    return captureReport({ document, stored, page, logged, redactions });
  } catch (error) {
    return captureFailure(error);
  }
}
