/**
 * `llm-wiki models pull`: the one place llm-wiki downloads anything. It
 * fetches the `hf:` models of the chosen roles from Hugging Face (or the
 * mirror in `HF_ENDPOINT`) into QMD's model cache, under the file names QMD
 * looks for (`hfCacheFileNames`), so availability checks and QMD itself find
 * them afterwards. Every download goes to a `.part` file renamed into place
 * only once complete and checked to be GGUF: an interrupted, stalled or
 * refused download leaves nothing a later run would mistake for a model.
 * Nothing else calls this; no automatic path ever downloads.
 */
import { createWriteStream, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { refuseLinkOnTheWay } from "../vault/fs-safe.ts";
import {
  hfCacheFileNames,
  MODEL_ROLES,
  type ModelRole,
  modelFileAvailability,
  type ResolvedModels,
  splitParts,
} from "./models.ts";

export const HF_ENDPOINT = "https://huggingface.co";
/** A download that receives no byte for this long is abandoned. */
export const DEFAULT_STALL_MS = 60_000;

/** One role's outcome. */
export interface PullResult {
  role: ModelRole;
  uri: string;
  status: "present" | "downloaded" | "failed" | "not-pullable";
  /** The cached file, when present or downloaded. */
  path?: string;
  bytes?: number;
  reason?: string;
}

export interface PullOptions {
  roles?: readonly ModelRole[];
  /** Base URL of the Hugging Face API (`HF_ENDPOINT`); default huggingface.co. */
  endpoint?: string;
  stallMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: { role: ModelRole; file: string; done: number; total: number }) => void;
}

/** Files of an `hf:user/repo/[dir/]file.gguf[#branch]` URI: the download URL and the cache name. */
interface PullFile {
  url: string;
  cacheName: string;
}

/** The files to fetch for `uri`, or why it cannot be pulled. */
export function pullPlan(uri: string, endpoint: string): PullFile[] | string {
  const body = uri.replace(/^(hf|huggingface):(\/\/)?/i, "");
  const [user, repo, ...rest] = body.split("/");
  const path = rest.join("/");
  if (!user || !repo || !path || repo.includes(":")) {
    return "only hf:<user>/<repo>/<file>.gguf URIs name one file to download";
  }
  const [filePath = "", branch = "main"] = path.split("#");
  if (!/\.gguf$/i.test(filePath)) return "the URI does not name a .gguf file";
  const files = splitParts(filePath);
  const base = endpoint.replace(/\/+$/, "");
  const out: PullFile[] = [];
  for (const file of files) {
    const suffix = branch === "main" ? "" : `#${branch}`;
    const cacheName = hfCacheFileNames(`hf:${user}/${repo}/${file}${suffix}`)[0];
    if (!cacheName) return "not a Hugging Face model URI QMD understands";
    const encoded = file.split("/").map(encodeURIComponent).join("/");
    out.push({
      url: `${base}/${encodeURIComponent(user)}/${encodeURIComponent(repo)}/resolve/${encodeURIComponent(branch)}/${encoded}`,
      cacheName,
    });
  }
  return out;
}

/**
 * What went wrong reaching `url`, in words: undici says only "fetch failed"
 * and keeps the reason (DNS, refused, TLS, timeout) in `cause`.
 */
export function fetchFailure(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (message !== "fetch failed") return message;
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown }) : undefined;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  const detail = typeof cause?.message === "string" ? cause.message : undefined;
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // Keep the whole URL.
  }
  const why: Record<string, string> = {
    ENOTFOUND: "the host name does not resolve (offline, or DNS blocked)",
    EAI_AGAIN: "the host name could not be resolved right now (offline, or DNS blocked)",
    ECONNREFUSED: "the connection was refused",
    ECONNRESET: "the connection was reset",
    ETIMEDOUT: "the connection timed out",
    ENETUNREACH: "the network is unreachable (offline)",
    EHOSTUNREACH: "the host is unreachable",
  };
  const reason = (code && why[code]) ?? detail ?? "the request failed before any answer";
  return `cannot download from ${host}: ${reason}${code ? ` (${code})` : ""}`;
}

/** Downloads one file to `target` through `target.part`; throws with a plain reason. */
async function download(
  file: PullFile,
  target: string,
  stallMs: number,
  signal: AbortSignal | undefined,
  onBytes: (done: number, total: number) => void,
): Promise<number> {
  const part = `${target}.part`;
  // A link at either name would send the download (or the rename) where it points.
  refuseLinkOnTheWay(part);
  refuseLinkOnTheWay(target);
  const stall = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => stall.abort(), stallMs);
  };
  const aborted = signal ? AbortSignal.any([signal, stall.signal]) : stall.signal;
  arm();
  try {
    const response = await fetch(file.url, { signal: aborted, redirect: "follow" });
    if (!response.ok || !response.body) {
      throw new Error(`HTTP ${response.status} ${response.statusText} from ${file.url}`);
    }
    const total = Number(response.headers.get("content-length") ?? 0);
    let done = 0;
    let magic = "";
    const counted = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    counted.on("data", (chunk: Buffer) => {
      if (magic.length < 4) magic += chunk.subarray(0, 4 - magic.length).toString("latin1");
      done += chunk.length;
      arm();
      onBytes(done, total);
    });
    await pipeline(counted, createWriteStream(part), { signal: aborted });
    if (magic !== "GGUF") throw new Error(`${file.url} is not a GGUF file`);
    if (total > 0 && done !== total) throw new Error(`incomplete: ${done} of ${total} bytes`);
    renameSync(part, target);
    return done;
  } catch (error) {
    rmSync(part, { force: true });
    if (signal?.aborted) throw new Error("cancelled");
    if (stall.signal.aborted) throw new Error(`no data for ${Math.round(stallMs / 1000)} s`);
    throw new Error(fetchFailure(error, file.url));
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/**
 * Makes the chosen roles' models available offline: `hf:` models not yet in
 * QMD's cache are downloaded; local files and cached models are reported as
 * they are. Roles run one after another; a failed one does not stop the rest.
 */
export async function pullModels(
  models: ResolvedModels,
  options: PullOptions = {},
): Promise<PullResult[]> {
  const roles = options.roles ?? MODEL_ROLES;
  const endpoint = options.endpoint ?? HF_ENDPOINT;
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  const before = modelFileAvailability(models);
  const results: PullResult[] = [];
  for (const role of roles) {
    const model = models[role];
    const status = before[role];
    const base = { role, uri: model.uri };
    if (status.available) {
      results.push({ ...base, status: "present", ...(status.path ? { path: status.path } : {}) });
      continue;
    }
    if (model.kind !== "hf") {
      results.push({
        ...base,
        status: "not-pullable",
        reason: `${status.reason ?? "unavailable"}; only hf: models are downloaded`,
      });
      continue;
    }
    const plan = pullPlan(model.uri, endpoint);
    if (typeof plan === "string") {
      results.push({ ...base, status: "not-pullable", reason: plan });
      continue;
    }
    if (options.signal?.aborted) {
      results.push({ ...base, status: "failed", reason: "cancelled" });
      continue;
    }
    mkdirSync(models.cacheDir, { recursive: true });
    let bytes = 0;
    try {
      for (const file of plan) {
        bytes += await download(
          file,
          join(models.cacheDir, file.cacheName),
          stallMs,
          options.signal,
          (done, total) =>
            options.onProgress?.({ role, file: file.cacheName, done, total: total || done }),
        );
      }
    } catch (error) {
      results.push({
        ...base,
        status: "failed",
        reason: error instanceof Error ? error.message : String(error),
      });
      continue;
    }
    const after = modelFileAvailability(models)[role];
    results.push(
      after.available
        ? { ...base, status: "downloaded", bytes, ...(after.path ? { path: after.path } : {}) }
        : { ...base, status: "failed", reason: after.reason ?? "not found after download" },
    );
  }
  return results;
}
