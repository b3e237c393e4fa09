/**
 * Randomness and small generators for the secret corpus: a seeded
 * SHA-256 counter generator (so a failing run replays from its seed), and
 * the passwords, hosts, key spellings, PEM blocks and config shapes the
 * corpus's cases are built from.
 */
import { createHash } from "node:crypto";

/** Deterministic random source (SHA-256 in counter mode over the seed). */
export class CorpusRandom {
  private counter = 0;
  private pool: Buffer = Buffer.alloc(0);

  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed;
  }

  /** `n` random bytes. */
  bytes(n: number): Buffer {
    while (this.pool.length < n) {
      const block = createHash("sha256")
        .update(`${this.seed}:${this.counter++}`)
        .digest();
      this.pool = Buffer.concat([this.pool, block]);
    }
    const out = this.pool.subarray(0, n);
    this.pool = this.pool.subarray(n);
    return Buffer.from(out);
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return this.bytes(4).readUInt32BE(0) % n;
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  /** `n` characters drawn from `alphabet`. */
  chars(alphabet: string, n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  /** Like `chars`, but with at least one digit and one letter (looks machine-made). */
  mixed(alphabet: string, n: number): string {
    for (;;) {
      const s = this.chars(alphabet, n);
      if (/[0-9]/.test(s) && /[A-Za-z]/.test(s)) return s;
    }
  }
}

export const LOWER = "abcdefghijklmnopqrstuvwxyz";
export const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
export const DIGITS = "0123456789";
export const ALNUM = LOWER + UPPER + DIGITS;
export const HEX = "0123456789abcdef";
export const B64 = `${ALNUM}+/`;
export const B64URL = `${ALNUM}-_`;
export const LETTERS = LOWER + UPPER;
export const PW_SYMBOLS = "!#%^*-_+.~";

/** A password people type: letters, digits and a symbol. */
export function password(r: CorpusRandom, n = r.between(12, 20)): string {
  for (;;) {
    const s = r.chars(ALNUM + PW_SYMBOLS, n);
    if (/[0-9]/.test(s) && /[A-Za-z]/.test(s) && /^[A-Za-z0-9]/.test(s)) return s;
  }
}

export function base64(r: CorpusRandom, bytes: number): string {
  return r.bytes(bytes).toString("base64");
}

export function hex(r: CorpusRandom, n: number): string {
  return r.chars(HEX, n);
}

export function host(r: CorpusRandom): string {
  return `${r.pick(["db", "api", "cache", "mq", "build", "git"])}-${r.chars(LOWER, 5)}.${r.pick(["internal", "example.com", "corp.example.net"])}`;
}

export function user(r: CorpusRandom): string {
  return `${r.pick(["app", "deploy", "svc", "ci", "admin"])}_${r.chars(LOWER, 4)}`;
}

/** Random spelling of a key made of words: UPPER_SNAKE, lower_snake, camelCase, kebab-case. */
export function spell(r: CorpusRandom, words: string[]): string {
  const style = r.int(4);
  if (style === 0) return words.join("_").toUpperCase();
  if (style === 1) return words.join("_").toLowerCase();
  if (style === 2)
    return words
      .map((w, i) => (i === 0 ? w.toLowerCase() : w[0]?.toUpperCase() + w.slice(1).toLowerCase()))
      .join("");
  return words.join("-").toLowerCase();
}

/** Env-style key (UPPER_SNAKE or lower_snake only: shells reject the others). */
export function envKey(r: CorpusRandom, words: string[]): string {
  const key = words.join("_");
  return r.int(2) === 0 ? key.toUpperCase() : key.toLowerCase();
}

/** A PEM block whose DER body starts with `der` and goes on at random; lines of 64. */
export function pem(
  r: CorpusRandom,
  label: string,
  der: number[],
  bytes: number,
): { block: string; lines: string[] } {
  const body = Buffer.concat([Buffer.from(der), r.bytes(bytes)]).toString("base64");
  const lines = body.match(/.{1,64}/g) ?? [];
  return {
    block: `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----`,
    lines,
  };
}

export function rsaKey(r: CorpusRandom) {
  return pem(r, "RSA PRIVATE KEY", [0x30, 0x82, 0x04, 0xa4, 0x02, 0x01, 0x00, 0x02, 0x82], 600);
}

export function pkcs8Key(r: CorpusRandom) {
  return pem(r, "PRIVATE KEY", [0x30, 0x82, 0x04, 0xbe, 0x02, 0x01, 0x00, 0x30, 0x0d], 600);
}

export const prose = (r: CorpusRandom, line: string) =>
  r.pick([
    line,
    `Notes from the incident call:\n\n${line}\n\nRotate after the migration.`,
    `# deploy\n${line}\n`,
  ]);

/** `key` set to `value` in a config format picked at random. */
export function inShape(r: CorpusRandom, key: string, value: string): string {
  const shapes = [
    () => `${key}=${value}`,
    () => `export ${key}="${value}"`,
    () => `settings:\n  ${key}: ${value}\n`,
    () => `settings:\n  ${key}: "${value}"\n`,
    () => `{"name": "svc", "${key}": "${value}"}`,
    () => `[service]\n${key} = ${value}\n`,
    () => `${key} = "${value}"`,
    () => `'${key}' => '${value}',`,
    () => `${key} := "${value}"`,
    () => `<add ${key}="${value}" />`,
  ];
  return r.pick(shapes)();
}
