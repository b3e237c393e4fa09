/**
 * One value of a JSON file read without parsing the rest: the derived files
 * a cold recall reads (registry shards, name buckets) are written by
 * `JSON.stringify`, so `"<key>":{` or `"<key>":[` marks exactly one member
 * of an object (a JSON string cannot hold an unescaped quote), and the value
 * ends at its matching bracket. Searching the bytes costs a fraction of
 * parsing a whole file for a few of its members.
 */

/**
 * Where the JSON value starting at `start` (an object or array) ends,
 * strings skipped. On UTF-8 bytes: no byte of a multi-byte character is
 * below 0x80, so quotes, backslashes and brackets are never mistaken.
 */
function valueEnd(bytes: Uint8Array, start: number, to: number): number {
  let depth = 0;
  for (let i = start; i < to; i += 1) {
    const c = bytes[i];
    if (c === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      for (i += 1; i < to && bytes[i] !== 0x22; i += 1) {
        if (bytes[i] === 0x5c) i += 1;
      }
    } else if (c === 0x7b || c === 0x5b) depth += 1;
    else if (c === 0x7d || c === 0x5d) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * The parsed value of the member `key` whose value opens with `open`,
 * searched in `bytes` from `from` to `to`; undefined when there is none (or
 * it does not parse). The caller knows the file's shape: that such a member
 * can only sit where it looks for it.
 */
export function memberValue(
  bytes: Buffer,
  key: string,
  open: "{" | "[",
  from = 0,
  to = bytes.length,
): unknown {
  const needle = Buffer.from(`${JSON.stringify(key)}:${open}`);
  const at = bytes.indexOf(needle, from);
  if (at === -1 || at + needle.length > to) return undefined;
  // A member follows the object's `{` or the previous member's `,`.
  const before = bytes[at - 1];
  if (before !== 0x7b && before !== 0x2c) return undefined;
  const start = at + needle.length - 1;
  const end = valueEnd(bytes, start, to);
  if (end === -1) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8", start, end));
  } catch {
    return undefined;
  }
}
