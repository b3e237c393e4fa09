/**
 * Fetching a URL for capture: http and https only, no credentials in the
 * URL, a deadline for the whole exchange (headers and body), a byte cap
 * enforced while the body streams in, and a bounded number of redirects,
 * each checked like the first URL.
 */
import { diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { isTextualMediaType, mediaType } from "./extract.ts";

/** Limits of one fetch. */
export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** The caller's cancellation, on top of the deadline. */
  signal?: AbortSignal;
}

/** A fetched body and what the server said about it. */
export interface Fetched {
  bytes: Uint8Array;
  /** The Content-Type header as sent. */
  contentType?: string;
  /** The URL the body came from, after redirects. */
  finalUrl: URL;
}

function fail(code: string, message: string): WikiError {
  return new WikiError(diagnostic(code, "error", message));
}

/**
 * Parses and checks a URL a capture may fetch. Credentials in a URL are
 * refused: they would have to be stored (or sent on to a redirect's host).
 */
export function checkCaptureUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw fail("capture_url_invalid", `not a valid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw fail(
      "capture_url_scheme",
      `only http and https URLs can be captured, not ${url.protocol.replace(/:$/, "")}:`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw fail(
      "capture_url_credentials",
      "URLs with a user name or password are not fetched; capture the page another way (save it and use --file)",
    );
  }
  return url;
}

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const ACCEPT =
  "text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.8, application/json;q=0.8, text/*;q=0.5";

async function readCapped(response: Response, maxBytes: number, url: URL): Promise<Uint8Array> {
  const tooLarge = () =>
    fail(
      "capture_too_large",
      `${url.href} is larger than the capture limit of ${maxBytes} bytes; nothing was stored`,
    );
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        // Stop the download here: a server may send far more than it declared.
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks, total);
}

/** Fetches `url` within `limits`; every failure is a `WikiError` with a capture diagnostic. */
export async function fetchForCapture(url: URL, limits: FetchLimits): Promise<Fetched> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([deadline, limits.signal]) : deadline;
  let current = url;
  try {
    for (let hop = 0; ; hop += 1) {
      const response = await fetch(current, {
        redirect: "manual",
        signal,
        headers: { accept: ACCEPT, "user-agent": "llm-wiki-capture" },
      });
      const location = response.headers.get("location");
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel();
        if (hop >= limits.maxRedirects) {
          throw fail(
            "capture_redirects",
            `${url.href} redirected more than ${limits.maxRedirects} times; nothing was stored`,
          );
        }
        current = checkCaptureUrl(new URL(location, current).href);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw fail(
          "capture_fetch_failed",
          `${current.href} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
        );
      }
      const contentType = response.headers.get("content-type") ?? undefined;
      const type = mediaType(contentType);
      // An unlabelled or generic body is sniffed after download; a declared binary is not downloaded.
      if (type !== undefined && type !== "application/octet-stream" && !isTextualMediaType(type)) {
        await response.body?.cancel();
        throw fail(
          "capture_binary",
          `${current.href} is ${type}, not text; only text, Markdown, HTML and JSON can be captured`,
        );
      }
      const bytes = await readCapped(response, limits.maxBytes, current);
      return { bytes, finalUrl: current, ...(contentType ? { contentType } : {}) };
    }
  } catch (error) {
    if (error instanceof WikiError) throw error;
    if (deadline.aborted) {
      throw fail(
        "capture_timeout",
        `${url.href} did not answer within ${limits.timeoutMs} ms; nothing was stored`,
      );
    }
    if (limits.signal?.aborted) throw fail("capture_aborted", "the capture was cancelled");
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause === undefined ? errorMessage(error) : errorMessage(cause);
    throw fail("capture_fetch_failed", `could not fetch ${url.href}: ${detail}`);
  }
}
