/**
 * Redaction of structured values fails closed (`lib/vault/redaction.ts`):
 * every secret-named key of a map is redacted, however many share the map;
 * and where the redacted text of a record would no longer parse, the field
 * that holds the secret is masked whole, or the write refused, never kept as
 * it was. Values are drawn afresh on each run.
 */
import { randomBytes, randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import {
  JSON_LINE,
  pageFormat,
  type RecordFormat,
  redactRecord,
  redactValue,
} from "../extensions/llm-wiki/lib/vault/redaction.ts";

/** A password as people type them: letters, digits, a symbol. */
function password(): string {
  return `${randomBytes(9).toString("base64url").replace(/[-_]/g, "x")}${randomInt(10, 99)}!`;
}

/** A 40-character AWS-style secret access key. */
function awsSecret(): string {
  return `${randomBytes(30).toString("base64").slice(0, 38)}${randomInt(10, 99)}`;
}

/** Every string in `value`, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value === "number") return [String(value)];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  }
  return [];
}

describe("redactValue", () => {
  it("redacts every secret-named key of one map, in nested maps and lists, numbers included", () => {
    const secrets = {
      pw: password(),
      aws: awsSecret(),
      token: randomBytes(24).toString("hex"),
      pin: randomInt(10_000_000, 99_999_999),
      nested: password(),
    };
    const host = `db-${randomBytes(3).toString("hex")}.internal`;
    const value = {
      db_password: secrets.pw,
      aws_secret_access_key: secrets.aws,
      host,
      service: { api_token: secrets.token, smtp: { password: secrets.pin } },
      history: [{ admin_password: secrets.nested }],
    };
    const counts: Record<string, number> = {};
    const out = redactValue(value, counts);
    const all = strings(out).join("\n");
    for (const secret of Object.values(secrets)) expect(all).not.toContain(String(secret));
    // Keys and ordinary values stay; each secret became a mark.
    expect(Object.keys(out)).toEqual(Object.keys(value));
    expect(out.host).toBe(host);
    expect(out.db_password).toMatch(/^\[REDACTED:[a-z0-9_]+\]$/);
    expect(out.aws_secret_access_key).toMatch(/^\[REDACTED:[a-z0-9_]+\]$/);
    expect(Object.values(counts).reduce((n, k) => n + k, 0)).toBeGreaterThanOrEqual(5);
  });

  it("redacts a JSON document inside a string value, escaped once or twice", () => {
    const pw = password();
    const inner = JSON.stringify({ db_password: pw, user: "svc" });
    const out = redactValue({ args: inner, log: JSON.stringify({ msg: inner }) }, {});
    expect(strings(out).join("\n")).not.toContain(pw);
    // Still JSON inside: the mark took none of its quotes.
    expect(JSON.parse(out.args)).toMatchObject({ user: "svc" });
  });
});

/** A strict `key = value` format: a value may not hold `[` (as a picky parser might refuse). */
const STRICT: RecordFormat = {
  render: (fields) =>
    Object.entries(fields)
      .map(([k, v]) => `${k} = ${String(v)}`)
      .join("\n"),
  parse: (text) => {
    const out: Record<string, unknown> = {};
    for (const line of text.split("\n")) {
      const m = /^([\w[\]:-]+) = ([^[]*)$/.exec(line);
      if (m === null) return undefined;
      out[m[1] ?? ""] = m[2];
    }
    return out;
  },
};

describe("redactRecord", () => {
  it("takes the whole-text redaction when the record still parses with the same fields", () => {
    const pw = password();
    const counts: Record<string, number> = {};
    const line = redactRecord({ kind: "login", db_password: pw }, JSON_LINE, counts);
    expect(line).not.toContain(pw);
    expect(Object.keys(JSON.parse(line))).toEqual(["kind", "db_password"]);
    expect(Object.keys(counts).length).toBeGreaterThan(0);
  });

  it("masks a field whole when the redacted text would not parse, and never keeps it", () => {
    const pw = password();
    const plain = `note-${randomBytes(4).toString("hex")}`;
    const counts: Record<string, number> = {};
    // Redacting `db_password = <pw>` in place gives `[REDACTED:…]`, which STRICT refuses.
    const text = redactRecord({ note: plain, db_password: pw }, STRICT, counts);
    expect(text).not.toContain(pw);
    expect(text).toContain(`note = ${plain}`);
    expect(text).toMatch(/^db_password = \[REDACTED:[a-z0-9_]+\]$/m);
    expect(Object.keys(counts).length).toBeGreaterThan(0);
  });

  it("refuses the write when not even masked fields give a clean text (a secret in a field's name)", () => {
    const token = `ghp_${randomBytes(27).toString("base64url").replace(/[-_]/g, "a")}`;
    let thrown: unknown;
    try {
      redactRecord({ [token]: password() }, STRICT, {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WikiError);
    expect((thrown as WikiError).diagnostic.code).toBe("redaction_failed");
    expect((thrown as WikiError).message).not.toContain(token);
  });

  it("writes a page whose front matter keeps every key, parses, and holds none of its secrets", () => {
    const secrets = [password(), awsSecret()];
    const body = `Notes ${randomBytes(4).toString("hex")}\n`;
    const text = redactRecord(
      { type: "concept", db_password: secrets[0], aws_secret_access_key: secrets[1] },
      pageFormat(body),
      {},
    );
    for (const s of secrets) expect(text).not.toContain(s);
    expect(Object.keys(pageFormat(body).parse(text) ?? {})).toEqual([
      "type",
      "db_password",
      "aws_secret_access_key",
    ]);
    expect(text.endsWith(body)).toBe(true);
  });
});
