/**
 * A PDF file from its numbered objects: the header, object 1..n in order
 * (object 1 is the catalog), the cross-reference table with each object's
 * byte offset, and the trailer. Generators of test PDFs say what the
 * objects hold; this says where they are.
 */

/** One object's body: its dictionary, or its dictionary and stream in parts (text is latin1). */
export type PdfObject = ReadonlyArray<Buffer | string>;

/** The PDF whose objects, numbered from 1, are `objects`. */
export function pdfFile(objects: readonly PdfObject[]): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const push = (chunk: Buffer | string) => {
    const b = typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk;
    parts.push(b);
    size += b.length;
  };
  push("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n");
  objects.forEach((body, i) => {
    offsets.push(size);
    push(`${i + 1} 0 obj\n`);
    for (const b of body) push(b);
    push("\nendobj\n");
  });
  const xref = size;
  const count = objects.length + 1;
  push(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (const offset of offsets) push(`${String(offset).padStart(10, "0")} 00000 n \n`);
  push(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}
