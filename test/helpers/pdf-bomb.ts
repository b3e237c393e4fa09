/**
 * PDFs whose compressed streams inflate far past their size ("zip bombs"),
 * written byte by byte: one page whose contents are the given streams, each
 * a FlateDecode (optionally chained, optionally hex-wrapped) run of zeros.
 * The deflate data is made by streaming, so a 1 GiB stream costs a few
 * seconds and no memory to build.
 */
import { createDeflate, deflateSync, constants as zlib } from "node:zlib";

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

/** A one-page PDF whose /Contents are `streams` (a readable text stream first, so it is otherwise valid). */
export function bombPdf(streams: BombStream[]): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const push = (chunk: Buffer | string) => {
    const b = typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk;
    parts.push(b);
    size += b.length;
  };
  const object = (n: number, body: (Buffer | string)[]) => {
    offsets[n - 1] = size;
    push(`${n} 0 obj\n`);
    for (const b of body) push(b);
    push("\nendobj\n");
  };
  push("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n");
  const text = "BT /F1 12 Tf 72 720 Td (Hello) Tj ET";
  const firstStream = 5;
  const contentIds = [4, ...streams.map((_, i) => firstStream + i)];
  object(1, ["<< /Type /Catalog /Pages 2 0 R >>"]);
  object(2, ["<< /Type /Pages /Kids [3 0 R] /Count 1 >>"]);
  object(3, [
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${contentIds.map((id) => `${id} 0 R`).join(" ")}] /Resources << /Font << /F1 ${firstStream + streams.length} 0 R >> >> >>`,
  ]);
  object(4, [`<< /Length ${text.length} >>\nstream\n${text}\nendstream`]);
  streams.forEach((s, i) => {
    const filter =
      s.filters.length === 1 ? `/${s.filters[0]}` : `[${s.filters.map((f) => `/${f}`).join(" ")}]`;
    object(firstStream + i, [
      `<< /Length ${s.data.length} /Filter ${filter} >>\nstream\n`,
      s.data,
      "\nendstream",
    ]);
  });
  const fontId = firstStream + streams.length;
  object(fontId, ["<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]);
  const xref = size;
  push(`xref\n0 ${fontId + 1}\n0000000000 65535 f \n`);
  for (const offset of offsets) push(`${String(offset).padStart(10, "0")} 00000 n \n`);
  push(`trailer\n<< /Size ${fontId + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}
