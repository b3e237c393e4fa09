/**
 * The immutable source packet `raw/sources/SRC-YYYY-MM-DD-NNN/`: the
 * original (redacted; a PDF's bytes only when no secret was found in it),
 * `source.md` (the extracted Markdown, redacted) and
 * `manifest.json`. Every file is created exclusively (never replacing one),
 * and the manifest comes last, so a packet with a manifest is complete.
 */
import { rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { diagnostic, WikiError } from "../diagnostics.ts";
import type { RedactionCounts } from "../safety/redact.ts";
import { createFileExclusive } from "../vault/fs-safe.ts";
import { hashContent } from "../vault/page.ts";
import { redactValue } from "../vault/redaction.ts";
import type { SourceFormat } from "./extract.ts";
import type { SourceSlot } from "./source-id.ts";

/** Layout version of packets written here (older packets: `1.0`, with `extracted.md`). */
export const PACKET_VERSION = "2";

export const SOURCE_FILE = "source.md";
const MANIFEST_FILE = "manifest.json";

export type SourceKind = "text" | "file" | "url";

/** `manifest.json` of a packet. Older readers find `captured`, `format`, `url` and `file_path` as before. */
export interface SourceManifest {
  packet_version: string;
  id: string;
  kind: SourceKind;
  /** The file's absolute path or the URL as given (redacted); null for pasted text. */
  origin: string | null;
  /** The URL the content came from after redirects, when it differs from `origin`. */
  final_url?: string;
  url?: string;
  file_path?: string;
  title: string;
  /** ISO timestamp of the capture. */
  capturedAt: string;
  /** Day of the capture (`YYYY-MM-DD`). */
  captured: string;
  format: SourceFormat;
  mime: string;
  extractor: string;
  extraction_status: "success";
  /** What a document (PDF) says about itself: its own title, author, creation day, page count. */
  document?: { title?: string; author?: string; created?: string; pages?: number };
  /**
   * Why there is no original although the source had one: a PDF cannot be
   * redacted byte for byte, so one in which a secret was found is not kept.
   */
  original_withheld?: "secrets";
  files: { source: string; original?: string };
  /** Bytes received, and bytes of each file written (after redaction). */
  sizes: { input: number; source: number; original?: number };
  /** `sha256:<hex>` of each file written. */
  hashes: { source: string; original?: string };
  /** Secrets taken out before anything was written, by kind. */
  redactions: RedactionCounts;
}

/** What goes into a packet; everything here is already redacted. */
export interface PacketContent {
  source: string;
  /** Text (redacted), or the bytes of a binary document (a PDF in which no secret was found). */
  original?: { name: string; text: string | Uint8Array };
}

function create(slot: SourceSlot, name: string, content: string | Uint8Array): void {
  if (!createFileExclusive(join(slot.dir, name), content)) {
    // The folder was created empty by this capture: something else is writing into it.
    throw new WikiError(
      diagnostic(
        "capture_packet_exists",
        "error",
        `${slot.rel}/${name} appeared while capturing; the packet was left as found`,
        { path: `${slot.rel}/${name}` },
      ),
    );
  }
}

/** Sizes and hashes of the packet's files, for the manifest. */
export function describeFiles(
  content: PacketContent,
): Pick<SourceManifest, "files" | "hashes"> & { sizes: { source: number; original?: number } } {
  const sizes: { source: number; original?: number } = {
    source: Buffer.byteLength(content.source),
  };
  const hashes: SourceManifest["hashes"] = { source: `sha256:${hashContent(content.source)}` };
  const files: SourceManifest["files"] = { source: SOURCE_FILE };
  if (content.original) {
    files.original = content.original.name;
    sizes.original = Buffer.byteLength(content.original.text);
    hashes.original = `sha256:${hashContent(content.original.text)}`;
  }
  return { files, sizes, hashes };
}

/**
 * Writes the packet's files into its freshly claimed folder, the manifest
 * last. On failure it takes back what it wrote (and the folder, once empty),
 * so no half packet stays; a file it did not write is never touched.
 */
export function writePacket(
  slot: SourceSlot,
  content: PacketContent,
  manifest: SourceManifest,
): void {
  const files: Array<[name: string, text: string | Uint8Array]> = [];
  if (content.original) files.push([content.original.name, content.original.text]);
  files.push(
    [SOURCE_FILE, content.source],
    // Its fields were redacted one by one; the whole manifest once more, each
    // value beside its name, so no field added later goes out unredacted.
    [MANIFEST_FILE, `${JSON.stringify(redactValue(manifest, {}), null, 2)}\n`],
  );
  const written: string[] = [];
  try {
    for (const [name, text] of files) {
      create(slot, name, text);
      written.push(name);
    }
  } catch (error) {
    try {
      for (const name of written) rmSync(join(slot.dir, name), { force: true });
      rmdirSync(slot.dir);
    } catch {
      // Not empty (what someone else put there stays as found) or not removable:
      // the write's own failure is what gets reported.
    }
    throw error;
  }
}
