/**
 * Stage read: the caller's input checked and the source acquired — pasted
 * text as given, a local file inside the allowed roots (read-file.ts), or a
 * URL through the address policy (fetch-url.ts) — each within its size
 * limit. Nothing is decoded or redacted here, and nothing is written.
 */
import { homedir } from "node:os";
import { checkSingleLine } from "../safety/text.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { checkBodyText } from "../writing/input.ts";
import { captureInvalid, captureTooLarge } from "./capture-refusals.ts";
import type {
  CaptureLimits,
  CaptureOptions,
  CaptureSourceInput,
  SourceRead,
} from "./capture-types.ts";
import { charsetOf, mediaType } from "./extract.ts";
import { checkCaptureUrl, type FetchNetwork, fetchForCapture } from "./fetch-url.ts";
import { readFileForCapture } from "./read-file.ts";

/** Where a read may look and how long it may take. */
export interface ReadContext {
  /** Relative file paths start here. */
  cwd: string;
  /** Folders whose files may be captured. */
  roots: string[];
  limits: CaptureLimits;
  network?: FetchNetwork;
  signal?: AbortSignal;
}

/** The read context of a capture into `vault`: the vault, the working folder, home and the host's roots. */
export function readContext(
  vault: VaultPaths,
  options: CaptureOptions,
  limits: CaptureLimits,
): ReadContext {
  return {
    cwd: options.cwd,
    roots: [vault.root, options.cwd, options.home ?? homedir(), ...(options.allowedRoots ?? [])],
    limits,
    ...(options.network ? { network: options.network } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

function given(value: string | undefined): value is string {
  return value !== undefined && value !== "";
}

/** Reads the one source `input` names; throws `WikiError` for a refusal. */
export async function readSource(
  input: CaptureSourceInput,
  context: ReadContext,
): Promise<SourceRead> {
  const { limits } = context;
  // A title the caller gives is one line of visible text; a derived one is neutralised later.
  if (given(input.title)) checkSingleLine(input.title.trim(), "title");
  const chosen = [input.text, input.file, input.url].filter(given).length;
  if (chosen !== 1) throw captureInvalid("give exactly one of text, file or url");
  if (given(input.text)) {
    const bytes = Buffer.byteLength(input.text);
    if (bytes > limits.maxTextBytes) throw captureTooLarge("the text", bytes, limits.maxTextBytes);
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
    const read = await readFileForCapture(
      input.file,
      context.cwd,
      context.roots,
      limits.maxOriginalBytes,
    );
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
      ...(context.signal ? { signal: context.signal } : {}),
    },
    context.network,
  );
  const type = mediaType(fetched.contentType);
  const charset = charsetOf(fetched.contentType);
  return {
    kind: "url",
    origin: url.href,
    ...(fetched.finalUrl.href !== url.href ? { finalUrl: fetched.finalUrl.href } : {}),
    name: fetched.finalUrl.pathname,
    bytes: fetched.bytes,
    what: url.href,
    ...(charset ? { charset } : {}),
    inputBytes: fetched.bytes.byteLength,
    ...(type !== undefined && type !== "application/octet-stream" ? { type } : {}),
  };
}
