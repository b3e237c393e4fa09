/**
 * Runs before every test file (vitest.config.ts `setupFiles`): `toEqual`
 * and `toStrictEqual` compare two Buffers by their bytes at once. Vitest's
 * own deep equality walks a Buffer element by element (about 8 µs a byte),
 * so a spec comparing a folder's snapshot that holds a 190 KB index spent
 * seconds in the comparison alone. Equal means the same bytes either way;
 * a failure still prints Vitest's own diff.
 */
import { expect } from "vitest";

expect.addEqualityTesters([
  function buffersEqual(a: unknown, b: unknown): boolean | undefined {
    if (!Buffer.isBuffer(a) || !Buffer.isBuffer(b)) return undefined;
    return a.equals(b);
  },
]);
