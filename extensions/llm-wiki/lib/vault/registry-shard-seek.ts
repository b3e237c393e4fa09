/**
 * One record of a registry shard file found by bisecting the file's bytes,
 * not by reading it whole: at 100k pages a shard is 2.5 MB, and a first
 * recall that shows a page from most of the 32 shards read (and searched)
 * about 80 MB for a few dozen records. `saveCache` writes each shard with
 * its keys sorted, so a key found at any byte offset says on which side the
 * wanted one lies; a few small reads find it.
 *
 * A record's key is found from an arbitrary offset as json-slice.ts finds a
 * member: `,"wiki/…":{`. An unescaped quote after a comma opens a string
 * (a closing one is never followed by a letter), and a string followed by
 * `:{` is a member whose value is an object; records have no members of
 * their own named like a path, so every such member is a record.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { memberValue } from "./json-slice.ts";

/** Below this many bytes left to search, the rest is read at once. */
const WINDOW = 32 * 1024;
/** The first read of a record's value; doubled while the value runs past it. */
const FIRST_VALUE_READ = 8 * 1024;
/** The prefix of every key: vault-relative paths under `wiki/`. */
const KEY_PREFIX = '"wiki/';
const PREFIX = Buffer.from(KEY_PREFIX);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const COLON = 0x3a;

function readAt(fd: number, pos: number, len: number, size: number): Buffer {
  const n = Math.max(0, Math.min(len, size - pos));
  const buf = Buffer.allocUnsafe(n);
  let got = 0;
  while (got < n) {
    const r = readSync(fd, buf, got, n - got, pos + got);
    if (r === 0) break;
    got += r;
  }
  return got === n ? buf : buf.subarray(0, got);
}

/** A key found in the file: where its opening quote is, and the key itself. */
interface FoundKey {
  start: number;
  /** Just past the key's closing quote. */
  end: number;
  key: string;
}

/**
 * The first record key whose opening quote lies in [`from`, `limit`), or
 * undefined. Reads forward in small pieces; a key cut by a piece's end is
 * read again whole.
 */
function keyFrom(fd: number, from: number, limit: number, size: number): FoundKey | undefined {
  let pos = Math.max(1, from);
  let piece = 4096;
  while (pos < limit && pos < size) {
    // One byte before `pos` too, to see what precedes a key found at `pos`.
    const base = pos - 1;
    const buf = readAt(fd, base, piece + 1, size);
    const whole = base + buf.length >= size;
    let next: number | undefined;
    for (let at = buf.indexOf(PREFIX, 1); at !== -1; at = buf.indexOf(PREFIX, at + 1)) {
      if (base + at >= limit) return undefined;
      const before = buf[at - 1];
      if (before !== COMMA && before !== OPEN_BRACE) continue;
      let i = at + 1;
      for (; i < buf.length && buf[i] !== QUOTE; i += 1) {
        if (buf[i] === BACKSLASH) i += 1;
      }
      if (i + 2 >= buf.length) {
        if (whole) return undefined;
        // The key runs past this piece: read again from it, longer.
        next = base + at;
        piece *= 2;
        break;
      }
      if (buf[i + 1] !== COLON || buf[i + 2] !== OPEN_BRACE) continue;
      try {
        return {
          start: base + at,
          end: base + i + 1,
          key: JSON.parse(buf.toString("utf8", at, i + 1)),
        };
      } catch {
        // Not a key after all; look further.
      }
    }
    if (next !== undefined) {
      pos = next;
      continue;
    }
    if (whole) return undefined;
    // The prefix may straddle the piece's end: the next piece overlaps it.
    pos = base + buf.length - PREFIX.length + 1;
  }
  return undefined;
}

/** The parsed value of the record keyed `rel` whose key's quote is at `start`. */
function valueAt(fd: number, start: number, rel: string, size: number): unknown {
  for (let len = FIRST_VALUE_READ; ; len *= 2) {
    const buf = readAt(fd, start - 1, len + 1, size);
    const value = memberValue(buf, rel, "{");
    if (value !== undefined || start - 1 + buf.length >= size) return value;
  }
}

/**
 * The parsed record keyed `rel` in the sorted shard file `path`, whose text
 * starts with `head` (else undefined, as for an absent file or key).
 */
export function seekShardRecord(path: string, head: string, rel: string): unknown {
  if (!rel.startsWith(KEY_PREFIX.slice(1))) return undefined;
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    if (readAt(fd, 0, head.length, size).toString("utf8") !== head) return undefined;
    const needle = Buffer.from(`${JSON.stringify(rel)}:{`);
    // The wanted key's opening quote, if it is there, lies in [lo, hi).
    let lo = head.length;
    let hi = size;
    while (hi - lo > WINDOW) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const found = keyFrom(fd, mid, hi, size);
      if (!found) {
        hi = mid;
      } else if (found.key === rel) {
        return valueAt(fd, found.start, rel, size);
      } else if (found.key < rel) {
        lo = found.end;
      } else {
        hi = found.start;
      }
    }
    // What is left is read at once, with room for the needle at its end.
    const buf = readAt(fd, lo - 1, hi - lo + needle.length + 1, size);
    for (let at = buf.indexOf(needle); at !== -1; at = buf.indexOf(needle, at + 1)) {
      if (lo - 1 + at >= hi) break;
      const before = buf[at - 1];
      if (before === COMMA || before === OPEN_BRACE) return valueAt(fd, lo - 1 + at, rel, size);
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
