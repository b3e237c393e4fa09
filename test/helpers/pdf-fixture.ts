/**
 * Minimal PDFs written byte by byte, so capture specs need no binary
 * fixture and no PDF library of their own: pages of text in the standard
 * Helvetica font, a page with only an image (a scan without a text layer),
 * an /Info dictionary, and a document locked with a user password.
 */

/** What goes into a generated PDF. */
export interface PdfSpec {
  /** Lines of text on each page (one entry per page); an empty list makes an image-only page. */
  pages: string[][];
  info?: {
    title?: string;
    author?: string;
    subject?: string;
    keywords?: string;
    creationDate?: string;
  };
  /** Adds an /Encrypt dictionary whose user password is not empty: no reader opens it without one. */
  locked?: boolean;
}

/** A PDF literal string: backslash, parentheses escaped; non-ASCII stays Latin-1 (PDFDocEncoding). */
function literal(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

function textStream(lines: string[]): string {
  const ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"];
  for (const line of lines) ops.push(`${literal(line)} Tj`, "T*");
  ops.push("ET");
  return ops.join("\n");
}

/** A 2×2 grey image drawn over the page: pixels, no glyphs. */
const IMAGE_STREAM = "q 200 0 0 200 100 400 cm /Im1 Do Q";

/** PDF date `D:YYYYMMDDHHmmSSZ` of an ISO date. */
export function pdfDate(iso: string): string {
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, "0");
  return `D:${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
}

/** The bytes of a PDF as `spec` describes, with a correct cross-reference table. */
export function makePdf(spec: PdfSpec): Buffer {
  const objects: string[] = [];
  const add = (body: string): number => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add("");
  const pagesId = add("");
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const pixels = "\x80\xc0\x40\xff";
  const image = add(
    `<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${pixels.length} >>\nstream\n${pixels}\nendstream`,
  );
  const kids: number[] = [];
  for (const lines of spec.pages) {
    const content = lines.length === 0 ? IMAGE_STREAM : textStream(lines);
    const stream = add(
      `<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`,
    );
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 612 792] /Contents ${stream} 0 R /Resources << /Font << /F1 ${font} 0 R >> /XObject << /Im1 ${image} 0 R >> >> >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesId} 0 R >>`;
  objects[pagesId - 1] =
    `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  let infoId: number | undefined;
  if (spec.info) {
    const fields = [
      spec.info.title === undefined ? "" : `/Title ${literal(spec.info.title)}`,
      spec.info.author === undefined ? "" : `/Author ${literal(spec.info.author)}`,
      spec.info.subject === undefined ? "" : `/Subject ${literal(spec.info.subject)}`,
      spec.info.keywords === undefined ? "" : `/Keywords ${literal(spec.info.keywords)}`,
      spec.info.creationDate === undefined
        ? ""
        : `/CreationDate ${literal(spec.info.creationDate)}`,
    ];
    infoId = add(`<< ${fields.join(" ")} >>`);
  }
  let encryptId: number | undefined;
  if (spec.locked) {
    // RC4-40 with /O and /U that match no password: the empty password fails, so it stays locked.
    const hex = "7".repeat(64);
    encryptId = add(`<< /Filter /Standard /V 1 /R 2 /O <${hex}> /U <${hex}> /P -4 >>`);
  }

  let out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  const id = "<0123456789abcdef0123456789abcdef>";
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${infoId ? ` /Info ${infoId} 0 R` : ""}${encryptId ? ` /Encrypt ${encryptId} 0 R` : ""} /ID [${id} ${id}] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
