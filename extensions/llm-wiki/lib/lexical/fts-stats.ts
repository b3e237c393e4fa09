/**
 * Corpus statistics of an FTS5 table read from its own records: the row
 * count and average row length come from FTS5's "averages" record (id 1 of
 * `<table>_data`, SQLite varints: rows, then terms per column), so no count
 * over the table is needed on a recall.
 */
import type { CorpusStats } from "./bm25.ts";

/** Reads one SQLite varint at `at`; returns it and the next offset. */
function varint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 9; i += 1) {
    const byte = bytes[at + i];
    if (byte === undefined) throw new Error("truncated varint");
    if (i === 8) return [value * 256 + byte, at + 9];
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at + i + 1];
  }
  return [value, at + 9];
}

/**
 * Rows and average row length from an averages record with `columns`
 * column totals, or undefined when the record does not read as one.
 */
export function statsFromAverages(block: Uint8Array, columns: number): CorpusStats | undefined {
  try {
    let [rows, at] = varint(block, 0);
    let total = 0;
    const perColumn: number[] = [];
    for (let c = 0; c < columns; c += 1) {
      const [n, next] = varint(block, at);
      total += n;
      perColumn.push(n);
      at = next;
    }
    if (!Number.isFinite(rows) || rows < 0) return undefined;
    rows = Math.floor(rows);
    const averageOf = (n: number) => (rows > 0 ? n / rows : 0);
    const [path = 0, title = 0, body = 0] = perColumn.map(averageOf);
    return {
      documents: rows,
      averageLength: averageOf(total),
      ...(columns === 3 ? { fieldAverages: [path, title, body] as const } : {}),
    };
  } catch {
    return undefined;
  }
}
