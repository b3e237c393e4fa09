/**
 * A PDF cannot make a capture inflate without bound. Streams that inflate
 * far past their size (one, chained, hex-wrapped, or many that are each
 * under the bound but not together) are measured before pdf.js opens the
 * file and refused with `capture_too_large`, writing nothing; an honest
 * compressed PDF is still read. Sizes, counts and shapes are drawn afresh
 * on every run.
 */
import { randomInt } from "node:crypto";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extractPdf } from "../extensions/llm-wiki/lib/capture/pdf-extract.ts";
import { lzwSize, runLengthSize } from "../extensions/llm-wiki/lib/capture/pdf-filter-sizes.ts";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import {
  ascii85,
  bombPdf,
  deflatedZeros,
  lzwZeros,
  runLengthZeros,
  zeroStream,
} from "./helpers/pdf-bomb.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

const MIB = 1024 * 1024;

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** Small bounds, so the specs inflate megabytes, not the real bounds' hundreds. */
const SMALL = { timeoutMs: 60_000, maxPages: 10, maxTextBytes: MIB };
const STREAM_LIMIT = 4 * MIB;
const DOCUMENT_LIMIT = 16 * MIB;

async function refusal(pdf: Buffer): Promise<WikiError> {
  try {
    await extractPdf(pdf, {
      ...SMALL,
      maxStreamBytes: STREAM_LIMIT,
      maxInflatedBytes: DOCUMENT_LIMIT,
    });
  } catch (error) {
    if (error instanceof WikiError) return error;
    throw error;
  }
  throw new Error("the PDF was read");
}

describe("PDF streams are measured before they are read", () => {
  it("refuses one stream that inflates past the per-stream bound", async () => {
    const pdf = bombPdf([await zeroStream(STREAM_LIMIT + randomInt(1, 8 * MIB))]);
    const error = await refusal(pdf);
    expect(error.diagnostic.code).toBe("capture_too_large");
    expect(error.diagnostic.message).toMatch(/a stream of the PDF decodes to over/);
  });

  it("refuses a stream deflated twice or three times, however small the file", async () => {
    const rounds = randomInt(2, 4);
    const pdf = bombPdf([await zeroStream(64 * MIB + randomInt(MIB), rounds)]);
    expect(pdf.length).toBeLessThan(64 * 1024);
    expect((await refusal(pdf)).diagnostic.code).toBe("capture_too_large");
  });

  it("refuses a bomb wrapped in hex", async () => {
    const pdf = bombPdf([await zeroStream(STREAM_LIMIT + randomInt(1, MIB), 1, true)]);
    expect((await refusal(pdf)).diagnostic.code).toBe("capture_too_large");
  });

  it("refuses an LZW or RunLength stream that decodes past the bound", async () => {
    const size = STREAM_LIMIT + randomInt(1, 4 * MIB);
    const lzw = lzwZeros(size);
    expect(lzw.length).toBeLessThan(size / 1_000);
    for (const stream of [
      { data: lzw, filters: ["LZWDecode"] },
      { data: runLengthZeros(size), filters: ["RunLengthDecode"] },
    ]) {
      expect((await refusal(bombPdf([stream]))).diagnostic.code).toBe("capture_too_large");
    }
  });

  it("counts LZW and RunLength output exactly, without building it", () => {
    const size = randomInt(1, 2 * MIB);
    expect(lzwSize(lzwZeros(size), Number.MAX_SAFE_INTEGER)).toBe(size);
    expect(runLengthSize(runLengthZeros(size), Number.MAX_SAFE_INTEGER)).toBe(size);
  });

  it("refuses a Flate bomb wrapped in ASCII85, and a chain it cannot measure", async () => {
    const deflated = await deflatedZeros(STREAM_LIMIT + randomInt(1, MIB));
    const wrapped = { data: ascii85(deflated), filters: ["ASCII85Decode", "FlateDecode"] };
    expect((await refusal(bombPdf([wrapped])))?.diagnostic.code).toBe("capture_too_large");
    const odd = { data: deflated, filters: ["FlateDecode", "LZWDecode"] };
    expect((await refusal(bombPdf([odd]))).diagnostic.message).toMatch(/cannot be measured/);
  });

  it("refuses many streams each under the bound that together pass the document's", async () => {
    const each = STREAM_LIMIT - randomInt(1, MIB);
    const count = Math.ceil(DOCUMENT_LIMIT / each) + randomInt(1, 4);
    const streams = await Promise.all(Array.from({ length: count }, () => zeroStream(each)));
    const error = await refusal(bombPdf(streams));
    expect(error.diagnostic.code).toBe("capture_too_large");
    expect(error.diagnostic.message).toMatch(/in all/);
  });

  it("skips the word `stream` inside other data, however often it is there", async () => {
    const words = Buffer.from("stream\n".repeat(randomInt(100_000, 300_000)), "latin1");
    const flood = { data: words, filters: ["ASCIIHexDecode"] };
    let outcome = "read";
    try {
      await extractPdf(bombPdf([flood]), {
        ...SMALL,
        maxStreamBytes: STREAM_LIMIT,
        maxInflatedBytes: DOCUMENT_LIMIT,
      });
    } catch (error) {
      outcome = error instanceof WikiError ? error.diagnostic.code : String(error);
    }
    // Whatever pdf.js makes of the page, it was not taken for streams to measure.
    expect(["read", "capture_pdf_no_text"]).toContain(outcome);
  });

  it("reads an honest PDF whose compressed streams stay within the bounds", async () => {
    const pdf = bombPdf([await zeroStream(randomInt(1, STREAM_LIMIT))]);
    const text = await extractPdf(pdf, {
      ...SMALL,
      maxStreamBytes: STREAM_LIMIT,
      maxInflatedBytes: DOCUMENT_LIMIT,
    });
    expect(text.pages.join("\n")).toContain("Hello");
  });

  it("a capture of a 1 GiB bomb is refused with the default bounds and stores nothing", async () => {
    const vault = makeTempVault();
    const home = makeTempDir("llm-wiki-home-");
    // A file of about a megabyte standing for a gibibyte (the was 9.7 KB, deflated twice).
    const pdf = bombPdf([await zeroStream(1024 * MIB + randomInt(MIB))]);
    writeFileSync(join(vault.root, "bomb.pdf"), pdf);
    const service = serviceFor(vault.root, { home });
    const result = await service.captureSource({ file: "bomb.pdf" });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["capture_too_large"]);
    const packets = join(vault.paths.raw, "sources");
    expect(existsSync(packets) ? readdirSync(packets) : []).toEqual([]);
  }, 60_000);
});
