/**
 * An order-independent fingerprint of a set of strings: the count and two
 * sums of two structurally different 32-bit hashes of each member. Two sets
 * get the same mark only if they are the same set, save for a chance near
 * 2^-64 per comparison, so a mark can stand in for a comparison of the sets
 * themselves (a startup check compares ten thousand files in one string).
 * Order-independent, so members can be fed in whatever order they are at hand.
 */

/** The 32-bit finaliser of MurmurHash3: every input bit reaches every output bit. */
function mix(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The two member hashes: FNV-1a and a multiply-xorshift hash, in one pass over the code units. */
function hashes(member: string): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x2545f491;
  for (let i = 0; i < member.length; i += 1) {
    const c = member.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
  }
  return [mix(h1), mix(h2 ^ member.length)];
}

/**
 * Accumulates members; `mark()` is the same whatever the order of `add`
 * calls. A member can be taken out again, so a mark follows a set's changes
 * without visiting the whole set.
 */
export class SetMark {
  private count = 0;
  private a = 0;
  private b = 0;

  /** Starts from a mark made earlier (an empty set when `mark` is not one). */
  static from(mark: string): SetMark {
    const acc = new SetMark();
    const m = /^(\d+)-([0-9a-f]{1,8})-([0-9a-f]{1,8})$/.exec(mark);
    if (m) {
      acc.count = Number(m[1]);
      acc.a = Number.parseInt(m[2] as string, 16);
      acc.b = Number.parseInt(m[3] as string, 16);
    }
    return acc;
  }

  add(member: string): void {
    const [h1, h2] = hashes(member);
    this.a = (this.a + h1) >>> 0;
    this.b = (this.b + h2) >>> 0;
    this.count += 1;
  }

  /** Takes out a member that was added. */
  remove(member: string): void {
    const [h1, h2] = hashes(member);
    this.a = (this.a - h1) >>> 0;
    this.b = (this.b - h2) >>> 0;
    this.count -= 1;
  }

  /** `count-hex-hex`. */
  mark(): string {
    return `${this.count}-${this.a.toString(16)}-${this.b.toString(16)}`;
  }
}

/** The mark of `members` (see `SetMark`). */
export function setMark(members: Iterable<string>): string {
  const acc = new SetMark();
  for (const member of members) acc.add(member);
  return acc.mark();
}
