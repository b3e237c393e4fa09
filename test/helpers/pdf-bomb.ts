/**
 * PDFs whose compressed streams inflate far past their size ("zip bombs"),
 * written byte by byte: one page whose contents are the given streams, each
 * a FlateDecode (optionally chained, optionally hex-wrapped) run of zeros.
 * The deflate data is made by streaming, so a 1 GiB stream costs a few
 * seconds and no memory to build.
 */
import { createDeflate, deflateSync, constants as zlib } from "node:zlib";
import { pdfFile } from "./pdf-file.ts";

/** The deflate data of `size` zero bytes, built in 1 MiB steps. */
export async function deflatedZeros(size: number): Promise<Buffer> {
  const deflate = createDeflate({ level: zlib.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on("end", resolve);
    deflate.on("error", reject);
  });
  const step = Buffer.alloc(1024 * 1024);
  for (let left = size; left > 0; left -= step.length) {
    const piece = left >= step.length ? step : step.subarray(0, left);
    if (!deflate.write(piece)) await new Promise((r) => deflate.once("drain", r));
  }
  deflate.end();
  await done;
  return Buffer.concat(out);
}

/** One stream of a bomb: its raw data and the filters that undo it, in order. */
export interface BombStream {
  data: Buffer;
  filters: string[];
}

/** A stream of `size` zeros deflated `rounds` times (`[/FlateDecode …]` once per round). */
export async function zeroStream(size: number, rounds = 1, hex = false): Promise<BombStream> {
  let data = await deflatedZeros(size);
  for (let i = 1; i < rounds; i += 1) data = deflateSync(data, { level: 9 });
  const filters = Array<string>(rounds).fill("FlateDecode");
  if (hex) {
    data = Buffer.from(`${data.toString("hex")}>`, "latin1");
    filters.unshift("ASCIIHexDecode");
  }
  return { data, filters };
}

/**
 * `size` zero bytes as `/LZWDecode` data (early change 1): codes standing
 * for 1, 2, 3… zeros, a clear code whenever the table fills. The most an
 * LZW stream can stand for: about 2,700 times its size.
 */
export function lzwZeros(size: number): Buffer {
  const out: number[] = [];
  let acc = 0;
  let accBits = 0;
  const emit = (code: number, width: number) => {
    acc = (acc << width) | code;
    accBits += width;
    while (accBits >= 8) {
      accBits -= 8;
      out.push((acc >>> accBits) & 0xff);
    }
    acc &= (1 << accBits) - 1;
  };
  let width = 9;
  let nextCode = 258;
  let run = 0;
  for (let left = size; left > 0; ) {
    // The next longer run when it fits, else a lone zero (after a clear, or near the end).
    const length = run > 0 && run + 1 <= left ? run + 1 : 1;
    if (length > 1) {
      emit(nextCode, width);
      nextCode += 1;
      const n = nextCode + 1;
      if ((n & (n - 1)) === 0) width = Math.min(Math.log2(n) + 1, 12);
    } else {
      emit(0, width);
      if (run > 0) {
        nextCode += 1;
        const n = nextCode + 1;
        if ((n & (n - 1)) === 0) width = Math.min(Math.log2(n) + 1, 12);
      }
    }
    left -= length;
    run = length;
    if (nextCode >= 4000) {
      emit(256, width);
      width = 9;
      nextCode = 258;
      run = 0;
    }
  }
  emit(257, width);
  if (accBits > 0) out.push((acc << (8 - accBits)) & 0xff);
  return Buffer.from(out);
}

/** `size` zero bytes as `/RunLengthDecode` data: 2 bytes per 128. */
export function runLengthZeros(size: number): Buffer {
  const out: number[] = [];
  for (let left = size; left > 0; left -= 128) {
    const n = Math.min(128, left);
    if (n === 1) out.push(0, 0);
    else out.push(257 - n, 0);
  }
  out.push(128);
  return Buffer.from(out);
}

/** `data` as `/ASCII85Decode` text, `~>` at the end. */
export function ascii85(data: Buffer): Buffer {
  let text = "";
  for (let i = 0; i < data.length; i += 4) {
    const chunk = data.subarray(i, i + 4);
    const padded = Buffer.concat([chunk, Buffer.alloc(4 - chunk.length)]);
    let value = padded.readUInt32BE(0);
    if (value === 0 && chunk.length === 4) {
      text += "z";
      continue;
    }
    const digits: string[] = [];
    for (let k = 0; k < 5; k += 1) {
      digits.unshift(String.fromCharCode((value % 85) + 33));
      value = Math.floor(value / 85);
    }
    text += digits.slice(0, chunk.length + 1).join("");
  }
  return Buffer.from(`${text}~>`, "latin1");
}

/** A one-page PDF whose /Contents are `streams` (a readable text stream first, so it is otherwise valid). */
export function bombPdf(streams: BombStream[]): Buffer {
  const text = "BT /F1 12 Tf 72 720 Td (Hello) Tj ET";
  const firstStream = 5;
  const fontId = firstStream + streams.length;
  const contents = [4, ...streams.map((_, i) => firstStream + i)].map((id) => `${id} 0 R`);
  return pdfFile([
    ["<< /Type /Catalog /Pages 2 0 R >>"],
    ["<< /Type /Pages /Kids [3 0 R] /Count 1 >>"],
    [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${contents.join(" ")}] /Resources << /Font << /F1 ${fontId} 0 R >> >> >>`,
    ],
    [`<< /Length ${text.length} >>\nstream\n${text}\nendstream`],
    ...streams.map((s) => {
      const filter =
        s.filters.length === 1
          ? `/${s.filters[0]}`
          : `[${s.filters.map((f) => `/${f}`).join(" ")}]`;
      return [`<< /Length ${s.data.length} /Filter ${filter} >>\nstream\n`, s.data, "\nendstream"];
    }),
    ["<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"],
  ]);
}
