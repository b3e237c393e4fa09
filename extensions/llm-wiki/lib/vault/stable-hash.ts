/**
 * FNV-1a (32-bit) of a string's UTF-16 code units: a small, fast, stable
 * hash for spreading paths and ids over shards. Not for integrity checks.
 */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
