/**
 * Secret-corpus cases where several secrets share one map (YAML, JSON, TOML,
 * INI), or arrive the way logs and documents spell them: JSON-escaped on one
 * line, JSON inside a JSON string, typographic quotes from a PDF. The case's
 * `secret` is one value; its `pieces` are the others, which must not survive
 * either. Values, key spellings and order are drawn afresh from the seed.
 */
import {
  ALNUM,
  type CorpusRandom,
  DIGITS,
  host,
  LETTERS,
  LOWER,
  password,
  spell,
  user,
} from "./corpus-random.ts";
import type { Maker } from "./secret-corpus.ts";

/** A value and the secret-named key it sits under. */
interface Field {
  key: string;
  value: string;
}

/** The secret fields of one map: a password, an AWS secret key and a token, keys spelt at random. */
function secretFields(r: CorpusRandom): Field[] {
  const fields: Field[] = [
    { key: spell(r, [r.pick(["db", "smtp", "admin", "redis"]), "password"]), value: password(r) },
    {
      key: r.pick(["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "secret_access_key"]),
      value: r.mixed(`${ALNUM}/+`, 40),
    },
    { key: spell(r, [r.pick(["api", "auth", "access"]), "token"]), value: r.mixed(ALNUM, 32) },
  ];
  // Order varies: which field comes first must not matter.
  return fields.sort(() => r.int(3) - 1);
}

/** Plain fields around the secrets: a map is mostly not secret. */
function plainFields(r: CorpusRandom): Field[] {
  return [
    { key: "host", value: host(r) },
    { key: "user", value: user(r) },
    { key: "port", value: String(r.between(1024, 65535)) },
  ];
}

/** The case: one value is `secret`, the others are `pieces`. */
function mapCase(fields: Field[], text: string) {
  const [first, ...rest] = fields;
  return { kind: "", secret: first?.value ?? "", text, pieces: rest.map((f) => f.value) };
}

/** A password of letters only: a secret only beside its key, at the end of its line. */
function lettersOnly(r: CorpusRandom): string {
  return r.chars(LETTERS, r.between(10, 16));
}

export const MAP_MAKERS: Record<string, Maker> = {
  yaml_map_shared_secrets: (r) => {
    const secrets = secretFields(r);
    const fields = [...plainFields(r), ...secrets].sort(() => r.int(3) - 1);
    const parent = r.pick(["database", "production", "credentials", "service"]);
    const lines = fields.map((f) => `  ${f.key}: ${f.value}`);
    return mapCase(secrets, `${parent}:\n${lines.join("\n")}\n`);
  },
  json_map_shared_secrets: (r) => {
    const secrets = secretFields(r);
    const fields = [...plainFields(r), ...secrets].sort(() => r.int(3) - 1);
    const object = Object.fromEntries(fields.map((f) => [f.key, f.value]));
    return mapCase(secrets, JSON.stringify({ [r.chars(LOWER, 6)]: object }, null, 2));
  },
  toml_table_secrets: (r) => {
    const secrets = secretFields(r);
    const fields = [...plainFields(r), ...secrets].sort(() => r.int(3) - 1);
    const lines = fields.map((f) => `${f.key} = "${f.value}"`);
    return mapCase(secrets, `[${r.pick(["database", "smtp", "aws"])}]\n${lines.join("\n")}\n`);
  },
  ini_section_secrets: (r) => {
    const secrets = secretFields(r);
    const fields = [...plainFields(r), ...secrets].sort(() => r.int(3) - 1);
    const lines = fields.map((f) => `${f.key}=${f.value}`);
    return mapCase(secrets, `[${r.pick(["client", "default", "prod"])}]\n${lines.join("\n")}\n`);
  },
  json_log_nested_escaped: (r) => {
    // A log line whose message holds a JSON document as a string: `\"` on one line.
    const secrets = secretFields(r);
    const inner = JSON.stringify(Object.fromEntries(secrets.map((f) => [f.key, f.value])));
    const line = { level: "error", ts: `2026-11-30T12:${r.chars(DIGITS, 2)}:00Z`, config: inner };
    return mapCase(secrets, JSON.stringify(line));
  },
  log_escaped_newlines: (r) => {
    // A config dump logged on one line: its line breaks are `\n`, its password letters only.
    const secret = lettersOnly(r);
    const dump = `[smtp]\n  host = ${host(r)}\n  password = ${secret}\n  user = ${user(r)}\n`;
    return { kind: "", secret, text: `ERROR config rejected: dump=${JSON.stringify(dump)}` };
  },
  pdf_typographic_quotes: (r) => {
    // A PDF's Helvetica sets `'` as `’`; a bracket near the start cut the value before.
    const secret = `${r.chars(ALNUM, r.between(1, 5))}(${r.mixed(`${ALNUM}!@#%^*-_=+`, 44)}`;
    return { kind: "", secret, text: `SECRET_KEY = \u2019${secret}\u2019` };
  },
  yaml_numeric_password: (r) => {
    // A number to YAML, a secret beside its key all the same.
    const secret = r.chars("123456789", 1) + r.chars(DIGITS, r.between(7, 11));
    return { kind: "", secret, text: `mysql:\n  host: ${host(r)}\n  password: ${secret}\n` };
  },
};
