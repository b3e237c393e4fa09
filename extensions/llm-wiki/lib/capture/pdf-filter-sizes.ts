/**
 * The decoded size of a PDF stream under the filters zlib does not cover,
 * measured without building the output. LZW can stand for about 2,700
 * times its size (each 12-bit code one byte longer than the last, up to
 * 4,096 bytes) and RunLength for 64 times: as much a bomb as Flate. The
 * LZW walk mirrors pdf.js's LZWStream (code widths, early change, clear
 * and end codes), so it counts what pdf.js would produce. The ASCII
 * decoders build their (smaller) output, for a filter that may follow.
 */

/** Bytes LZW-decoding `data` yields, stopping once past `budget`. */
export function lzwSize(data: Uint8Array, budget: number, earlyChange = 1): number {
  const lengths = new Uint16Array(8192);
  let codeLength = 9;
  let nextCode = 258;
  let prevCode = -1;
  let total = 0;
  let bits = 0;
  let bitCount = 0;
  let at = 0;
  const lengthOf = (code: number) => (code < 256 ? 1 : (lengths[code] ?? 0));
  while (total <= budget) {
    while (bitCount < codeLength && at < data.length) {
      bits = ((bits << 8) | (data[at] ?? 0)) & 0xffffff;
      bitCount += 8;
      at += 1;
    }
    if (bitCount < codeLength) break;
    bitCount -= codeLength;
    const code = (bits >>> bitCount) & ((1 << codeLength) - 1);
    let length: number;
    if (code < 256) length = 1;
    else if (code >= 258 && code < nextCode) length = lengthOf(code);
    else if (code === nextCode && prevCode >= 0) length = lengthOf(prevCode) + 1;
    else if (code === 256) {
      codeLength = 9;
      nextCode = 258;
      prevCode = -1;
      continue;
    } else break;
    total += length;
    if (prevCode >= 0) {
      if (nextCode < lengths.length) lengths[nextCode] = lengthOf(prevCode) + 1;
      nextCode += 1;
      const n = nextCode + earlyChange;
      if ((n & (n - 1)) === 0) codeLength = Math.min(Math.log2(n) + 1, 12);
    }
    prevCode = code;
  }
  return total;
}

/** Bytes RunLength-decoding `data` yields, stopping once past `budget`. */
export function runLengthSize(data: Uint8Array, budget: number): number {
  let total = 0;
  let at = 0;
  while (at < data.length && total <= budget) {
    const n = data[at] ?? 128;
    if (n === 128) break;
    if (n < 128) {
      total += n + 1;
      at += n + 2;
    } else {
      total += 257 - n;
      at += 2;
    }
  }
  return total;
}

/** `/ASCII85Decode` of `data` up to `~>`; undefined when it is not ASCII85. */
export function fromAscii85(data: Uint8Array): Uint8Array | undefined {
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const end = view.indexOf("~>", 0, "latin1");
  const text = view
    .subarray(0, end === -1 ? view.length : end)
    .toString("latin1")
    .replace(/\s+/g, "");
  const out: number[] = [];
  let group: number[] = [];
  for (const ch of text) {
    if (ch === "z" && group.length === 0) {
      out.push(0, 0, 0, 0);
      continue;
    }
    const digit = ch.charCodeAt(0) - 33;
    if (digit < 0 || digit > 84) return undefined;
    group.push(digit);
    if (group.length === 5) {
      out.push(...ascii85Group(group, 4));
      group = [];
    }
  }
  if (group.length > 1) {
    const kept = group.length - 1;
    while (group.length < 5) group.push(84);
    out.push(...ascii85Group(group, kept));
  }
  return Uint8Array.from(out);
}

function ascii85Group(digits: number[], keep: number): number[] {
  let value = 0;
  for (const d of digits) value = value * 85 + d;
  const bytes = [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
  return bytes.slice(0, keep);
}
