/**
 * Fetching a URL for capture: http and https only, no credentials in the
 * URL, only public addresses unless the user allows a host (checked on every
 * hop and pinned against DNS rebinding, see pinned-request.ts), a deadline
 * for the whole exchange (headers and body), a byte cap enforced while the
 * body streams in, and a bounded number of redirects, each checked like the
 * first URL.
 */
import type { IncomingMessage } from "node:http";
import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { compileAllowList } from "../safety/address-policy.ts";
import { isCapturableMediaType, mediaType } from "./extract.ts";
import { checkedAddresses, type LookupHost, pinnedGet, systemLookup } from "./pinned-request.ts";

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
const HEADERS = {
  accept:
    "text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.8, application/json;q=0.8, application/xml;q=0.8, application/pdf;q=0.8, text/*;q=0.5",
  "accept-encoding": "gzip, deflate, br",
  "user-agent": "llm-wiki-capture",
};

/** Which hosts a fetch may reach besides public addresses, and how names resolve. */
export interface FetchNetwork {
  /** Host names, `*.suffix` patterns and CIDR ranges allowed although internal (`captureAllowHosts`). */
  allowHosts?: readonly string[];
  /** The resolver; default the system's `dns.lookup`. Tests inject their own. */
  lookup?: LookupHost;
}

/** The body, decoded as its Content-Encoding says. */
function decodedBody(response: IncomingMessage, url: URL): Readable {
  const encoding = (response.headers["content-encoding"] ?? "").trim().toLowerCase();
  if (encoding === "" || encoding === "identity") return response;
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) {
    response.destroy();
    throw fail("capture_fetch_failed", `${url.href} sent an unsupported encoding: ${encoding}`);
  }
  // Errors of either stream end the iteration below; the callback only keeps them handled.
  return pipeline(response, decoder, () => {});
}

async function readCapped(
  response: IncomingMessage,
  maxBytes: number,
  url: URL,
): Promise<Uint8Array> {
  const tooLarge = () =>
    fail(
      "capture_too_large",
      `${url.href} is larger than the capture limit of ${maxBytes} bytes; nothing was stored`,
    );
  const declared = Number(response.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const body = decodedBody(response, url);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      // Stop the download here: a server may send far more than it declared (or decompress to it).
      body.destroy();
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** Fetches `url` within `limits`; every failure is a `WikiError` with a capture diagnostic. */
export async function fetchForCapture(
  url: URL,
  limits: FetchLimits,
  network: FetchNetwork = {},
): Promise<Fetched> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([deadline, limits.signal]) : deadline;
  const allow = compileAllowList(network.allowHosts ?? []);
  const lookup = network.lookup ?? systemLookup;
  let current = url;
  try {
    for (let hop = 0; ; hop += 1) {
      const addresses = await checkedAddresses(current, allow, lookup, signal);
      const response = await pinnedGet(current, addresses, HEADERS, signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location !== undefined) {
        response.destroy();
        if (hop >= limits.maxRedirects) {
          throw fail(
            "capture_redirects",
            `${url.href} redirected more than ${limits.maxRedirects} times; nothing was stored`,
          );
        }
        current = checkCaptureUrl(new URL(location, current).href);
        continue;
      }
      if (status < 200 || status > 299) {
        response.destroy();
        throw fail(
          "capture_fetch_failed",
          `${current.href} answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ""}`,
        );
      }
      const contentType = response.headers["content-type"];
      const type = mediaType(contentType);
      // An unlabelled or generic body is sniffed after download; a declared binary is not downloaded.
      if (
        type !== undefined &&
        type !== "application/octet-stream" &&
        !isCapturableMediaType(type)
      ) {
        response.destroy();
        throw fail(
          "capture_binary",
          `${current.href} is ${type}, not text; only text, Markdown, HTML, JSON, XML and PDF can be captured`,
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
