/**
 * The capture fetcher's handling of compressed bodies: it asks for gzip,
 * deflate and brotli, decodes what it gets, holds the byte cap on the
 * decoded size (a small compressed body can expand a thousandfold), and
 * refuses an encoding it cannot decode instead of storing the raw bytes.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { type FetchLimits, fetchForCapture } from "../extensions/llm-wiki/lib/capture/fetch-url.ts";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { randomWords } from "./helpers/random-text.ts";

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const ENCODERS: Record<string, (text: string) => Buffer> = {
  gzip: (text) => gzipSync(text),
  "x-gzip": (text) => gzipSync(text),
  deflate: (text) => deflateSync(text),
  br: (text) => brotliCompressSync(text),
};

/** A loopback server sending `body` with `encoding`; the Accept-Encoding it was asked with is kept. */
async function serveEncoded(
  encoding: string,
  body: Buffer,
): Promise<{ url: URL; acceptEncoding: string[] }> {
  const acceptEncoding: string[] = [];
  const server = createServer((req, res) => {
    acceptEncoding.push(String(req.headers["accept-encoding"]));
    res.writeHead(200, { "content-type": "text/plain", "content-encoding": encoding }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/text`), acceptEncoding };
}

const LIMITS: FetchLimits = { timeoutMs: 30_000, maxBytes: 100_000, maxRedirects: 0 };
const LOOPBACK = { allowHosts: ["127.0.0.1"] };

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WikiError) return error.diagnostic.code;
    throw error;
  }
  throw new Error("the fetch succeeded");
}

describe("fetchForCapture: content encodings", () => {
  for (const [encoding, encode] of Object.entries(ENCODERS)) {
    it(`decodes a ${encoding} body`, async () => {
      const text = randomWords(200 + Math.floor(Math.random() * 500));
      const { url, acceptEncoding } = await serveEncoded(encoding, encode(text));
      const fetched = await fetchForCapture(url, LIMITS, LOOPBACK);
      expect(Buffer.from(fetched.bytes).toString("utf8")).toBe(text);
      expect(acceptEncoding).toEqual(["gzip, deflate, br"]);
    });

    it(`holds the byte cap on the decoded size of a ${encoding} body`, async () => {
      const bomb = encode("a".repeat(LIMITS.maxBytes + 1 + Math.floor(Math.random() * 1e6)));
      expect(bomb.byteLength).toBeLessThan(LIMITS.maxBytes);
      const { url } = await serveEncoded(encoding, bomb);
      expect(await failure(fetchForCapture(url, LIMITS, LOOPBACK))).toBe("capture_too_large");
    });
  }

  it("refuses an encoding it cannot decode rather than store compressed bytes", async () => {
    const encoding = ["zstd", "compress", "x-custom"][Math.floor(Math.random() * 3)] ?? "zstd";
    const { url } = await serveEncoded(encoding, Buffer.from(randomWords(50)));
    expect(await failure(fetchForCapture(url, LIMITS, LOOPBACK))).toBe("capture_fetch_failed");
  });
});
