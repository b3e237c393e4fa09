/**
 * Stage store: the packet written. Only now is an id claimed (source-id.ts),
 * so a capture that failed before leaves nothing behind; the manifest is
 * built from what the earlier stages redacted, and the packet is written
 * file by file, the manifest last (packet.ts).
 */
import type { RedactionCounts } from "../safety/redact.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { CapturedDocument, SourceLabels, SourceRead, StoredPacket } from "./capture-types.ts";
import { FORMAT_EXTENSION, FORMAT_MIME } from "./extract.ts";
import {
  describeFiles,
  PACKET_VERSION,
  type PacketContent,
  type SourceManifest,
  writePacket,
} from "./packet.ts";
import { allocateSourceId } from "./source-id.ts";

/** The packet's `original.<ext>`: the file's own extension, else the format's; none for pasted text. */
export function originalName(read: SourceRead, document: CapturedDocument): string | undefined {
  if (read.kind === "text") return undefined; // `source.md` is the text itself
  return `original.${read.extension ?? FORMAT_EXTENSION[document.format]}`;
}

/** The packet's files: the redacted Markdown and, unless withheld, the original. */
export function packetContent(read: SourceRead, document: CapturedDocument): PacketContent {
  const name = originalName(read, document);
  return {
    source: document.markdown,
    ...(name && document.original !== undefined
      ? { original: { name, text: document.original } }
      : {}),
  };
}

/** What a manifest says beyond the packet's id and files. */
export interface ManifestParts {
  read: SourceRead;
  document: CapturedDocument;
  labels: SourceLabels;
  /** Every secret taken out, by kind. */
  redactions: RedactionCounts;
  now: Date;
}

/** The manifest of packet `id` holding `content`; pure. */
export function buildManifest(
  id: string,
  content: PacketContent,
  { read, document, labels, redactions, now }: ManifestParts,
): SourceManifest {
  const described = describeFiles(content);
  const withheld = originalName(read, document) !== undefined && document.original === undefined;
  return {
    packet_version: PACKET_VERSION,
    id,
    kind: read.kind,
    origin: labels.origin,
    ...(labels.finalUrl !== undefined ? { final_url: labels.finalUrl } : {}),
    ...(read.kind === "url" && labels.origin !== null ? { url: labels.origin } : {}),
    ...(read.kind === "file" && labels.origin !== null ? { file_path: labels.origin } : {}),
    title: labels.title,
    capturedAt: now.toISOString(),
    captured: now.toISOString().slice(0, 10),
    format: document.format,
    mime: read.type ?? FORMAT_MIME[document.format],
    extractor: document.extraction.extractor,
    extraction_status: "success",
    ...(document.document ? { document: document.document } : {}),
    ...(withheld ? { original_withheld: "secrets" as const } : {}),
    files: described.files,
    sizes: { input: read.inputBytes, ...described.sizes },
    hashes: described.hashes,
    redactions,
  };
}

/** Claims an id and writes the packet; on failure no half packet stays (see `writePacket`). */
export function storePacket(vault: VaultPaths, parts: ManifestParts): StoredPacket {
  const content = packetContent(parts.read, parts.document);
  const slot = allocateSourceId(vault, parts.now);
  const manifest = buildManifest(slot.id, content, parts);
  writePacket(slot, content, manifest);
  return { slot, manifest };
}
