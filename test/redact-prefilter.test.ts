/**
 * The secret detector's prefilter (each rule skips a text without one of its
 * literals: `hint`/`need` in redact-rules.ts, redact-preset-hints.ts) is a
 * shortcut only: on every text the prefiltered detector finds exactly the
 * spans the full one (every rule on every text) finds. Checked on the secret
 * corpus (every kind, as pasted in many ways), on near misses built around
 * the very literals the prefilter looks for (in every case, cut, glued, in
 * markup, JSON-escaped), and on the repo's own secret specs and fixtures.
 * Each run draws new texts; the seed is printed on failure.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectSecrets } from "../extensions/llm-wiki/lib/safety/redact.ts";
import { literalFinder } from "../extensions/llm-wiki/lib/safety/redact-literals.ts";
import { PRESET_HINTS } from "../extensions/llm-wiki/lib/safety/redact-preset-hints.ts";
import { GENERIC_RULES } from "../extensions/llm-wiki/lib/safety/redact-rules.ts";
import { ALNUM, B64, DIGITS, HEX } from "./helpers/corpus-random.ts";
import { filesUnder } from "./helpers/files-under.ts";
import { CorpusRandom, corpusSeed, corpusSeedNote, secretCorpus } from "./helpers/secret-corpus.ts";

const ROOT = join(import.meta.dirname, "..");
const SEED = corpusSeed();
const NOTE = corpusSeedNote(SEED);
const rand = new CorpusRandom(SEED + 7);

/** Every literal the prefilter looks for, as written and with its case flipped. */
const LITERALS = [
  ...GENERIC_RULES.flatMap((r) => (r.hint === undefined ? [] : [r.hint].flat())),
  ...[...PRESET_HINTS.values()].flatMap((h) => h.any),
  // Written out here, not read from the rules, so a literal dropped from a rule is still drawn.
  ...["password", "passwd", "pwd", "pw", "pass", "passphrase", "passcode", "token", "secret"],
  ...["api_key", "apikey", "api.key", "access_key", "access_key_id", "secret_key", "private_key"],
  ...["account_key", "shared_access_key", "sharedaccesssignature", "auth_key", "signing_key"],
  ...["encryption_key", "master_key", "session_key", "credential", "credentials", "auth"],
  ...["authorization", "dsn", "sig", "signature", "client_key_data", "client-certificate-data"],
  ...[
    "AKIA",
    "ASIA",
    "AIza",
    "sk-",
    "ghp_",
    "xoxb-",
    "glpat-",
    "npm_",
    "hf_",
    "SG.",
    "eyJ",
    "key-",
  ],
  ...["mongodb://", "mysql://", "postgres://", "Bearer ", "Basic ", "sshpass -p", "mysql -p"],
  ...[
    "x-amz-signature=",
    "?sig=",
    "&key=",
    "AccountKey=",
    '"auth"',
    "PRIVATE KEY",
    "LS0tLS1CRUdJTi",
  ],
  "Authorization",
  "localhost:5432:",
  ":5432:",
  "://",
  "-----BEGIN ",
  "machine ",
];

/** Characters whose case mapping changes length or lands in ASCII. */
const ODD = ["İ", "ı", "ſ", "K", "ß", "Σ", "ς", "ﬃ", "’", "“", "\u00a0", "\u200b"];
const GLUE = [
  " ",
  "",
  "=",
  ": ",
  ":",
  "=>",
  "\n",
  "\t",
  '"',
  "'",
  "`",
  "@",
  "/",
  "?",
  "&",
  ";",
  ".",
  "-",
  "_",
  "\\n",
  '\\"',
  "<code>",
  "</code>",
  "://",
  " -p",
  " --password ",
  " -u ",
];

function flipCase(s: string): string {
  return Array.from(s, (c) =>
    rand.int(2) === 0 ? c : c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase(),
  ).join("");
}

/** A run of word characters a secret could be made of. */
function run(): string {
  const alphabet = rand.pick([ALNUM, HEX, B64, DIGITS, `${ALNUM}-_`]);
  return rand.chars(alphabet, rand.pick([1, 4, 8, 12, 16, 20, 24, 32, 36, 40, 48, 64, 100]));
}

/** A near miss: literals of the prefilter, cased at random, glued to runs and odd characters. */
function nearMiss(): string {
  let out = "";
  // One piece alone a third of the time: a literal with no other literal beside it.
  for (let i = rand.int(3) === 0 ? 1 : rand.between(2, 12); i > 0; i--) {
    const piece = rand.int(7);
    if (piece === 0) out += run();
    else if (piece === 5) out += colonFields();
    else if (piece === 6)
      // A literal as a key (or a prefix) with a value: most rules' shape.
      out += `${rand.pick(["", "x_", "my", "DB_"])}${rand.pick(LITERALS)}${rand.pick(["=", ": ", '="', " = '", "", "_"])}${run()}`;
    else if (piece === 1) out += rand.pick(ODD);
    else {
      const literal = rand.pick(LITERALS);
      out += rand.int(3) === 0 ? flipCase(literal) : literal;
    }
    out += rand.pick(GLUE);
  }
  return out;
}

/**
 * `text` with some of the prefilter's literals broken wherever they occur
 * (a character put in, or its case changed), so a rule whose other literals
 * are still there is tried on a text its own literal is gone from.
 */
function breakLiterals(text: string): string {
  let out = text;
  for (const literal of LITERALS) {
    if (rand.int(2) === 0 || !out.toLowerCase().includes(literal.toLowerCase())) continue;
    const at = rand.between(1, Math.max(1, literal.length - 1));
    const broken =
      rand.int(2) === 0
        ? `${literal.slice(0, at)}${rand.pick(ODD)}${literal.slice(at)}`
        : flipCase(literal);
    out = out.split(literal).join(broken);
  }
  return out;
}

/** A colon-separated line of fields (a .pgpass entry, a clock, an address), field lengths at random. */
function colonFields(): string {
  const fields = Array.from({ length: rand.between(3, 6) }, () =>
    rand.chars(rand.pick([DIGITS, ALNUM, "abc.-", "*"]), rand.between(1, 7)),
  );
  return `${rand.pick(["", "- ", "> ", "echo '", "x="])}${rand.pick(["localhost", "db.example.com", run()])}:${fields.join(":")}`;
}

/** A corpus text changed the ways pages change it: cut, case flipped, glued to another. */
function mutate(text: string, other: string): string {
  switch (rand.int(7)) {
    case 6:
      return breakLiterals(text);
    case 0:
      return flipCase(text);
    case 1: {
      const at = rand.int(text.length + 1);
      return text.slice(0, at) + rand.pick(ODD) + text.slice(at);
    }
    case 2: {
      const cut = rand.int(text.length + 1);
      return text.slice(0, cut) + other.slice(rand.int(other.length + 1));
    }
    case 3:
      return `<p>${text.replace(/\n/g, "</p>\n<p>")}</p>`;
    case 4:
      return JSON.stringify({ note: text });
    default:
      return `${nearMiss()}\n${text}\n${nearMiss()}`;
  }
}

function expectSameVerdict(text: string, what: string): void {
  const full = detectSecrets(text, false);
  const fast = detectSecrets(text, true);
  // The text itself in the message would print a secret: the seed replays it.
  expect(fast, `${what}; ${NOTE}`).toEqual(full);
}

describe("literalFinder", () => {
  it("finds exactly the literals a scan per literal finds, overlapping, nested and in any case", () => {
    // A small alphabet makes literals overlap and contain one another often.
    // Outside ASCII: İ and ſ, and the Kelvin sign, which lower-cases into "k".
    const alphabet = "abkAB-_.İſ\u212a";
    for (let round = 0; round < 400; round++) {
      // ASCII literals (as the secret rules' are) half the time, found by another matcher.
      const letters = rand.pick([alphabet, "abkAB-_."]);
      const exact = Array.from({ length: rand.between(1, 8) }, () =>
        rand.chars(letters, rand.between(1, 4)),
      );
      const folded = Array.from({ length: rand.between(0, 8) }, () =>
        rand.chars(letters, rand.between(1, 4)).toLowerCase(),
      );
      const find = literalFinder(exact, folded);
      for (let k = 0; k < 10; k++) {
        const text = rand.chars(alphabet, rand.between(0, 40));
        const found = find(text);
        for (const l of exact)
          expect(found.has(l), `${JSON.stringify([text, l])}; ${NOTE}`).toBe(text.includes(l));
        for (const l of folded)
          expect(found.has(l, true), `${JSON.stringify([text, l])}; ${NOTE}`).toBe(
            text.toLowerCase().includes(l),
          );
      }
    }
  });

  it("finds literals of every ASCII character, in any case, cut from the text itself", () => {
    const printable = String.fromCharCode(...Array.from({ length: 95 }, (_, k) => 32 + k));
    const flip = (t: string) =>
      [...t].map((ch) => (rand.int(2) === 0 ? ch.toUpperCase() : ch.toLowerCase())).join("");
    for (let round = 0; round < 300; round++) {
      const source = rand.chars(printable, rand.between(1, 60));
      const cut = () => {
        const from = rand.int(source.length);
        return source.slice(from, from + rand.between(1, 5));
      };
      const exact = Array.from({ length: rand.between(1, 6) }, () =>
        rand.int(2) === 0 ? cut() : flip(cut()),
      );
      const folded = Array.from({ length: rand.between(1, 6) }, () => cut().toLowerCase());
      const text = flip(source);
      const found = literalFinder(exact, folded)(text);
      for (const l of exact)
        expect(found.has(l), `${JSON.stringify([text, l])}; ${NOTE}`).toBe(text.includes(l));
      for (const l of folded)
        expect(found.has(l, true), `${JSON.stringify([text, l])}; ${NOTE}`).toBe(
          text.toLowerCase().includes(l),
        );
    }
  });
});

describe("the secret detector's prefilter", () => {
  it("finds what the full detector finds in every kind of the secret corpus, however pasted", () => {
    const corpus = secretCorpus(SEED);
    let found = 0;
    for (const [i, c] of corpus.entries()) {
      const other = corpus[(i + 1 + rand.int(corpus.length - 1)) % corpus.length]?.text ?? "";
      expectSameVerdict(c.text, `case ${c.kind} as generated`);
      found += detectSecrets(c.text).length > 0 ? 1 : 0;
      for (let k = 0; k < 10; k++)
        expectSameVerdict(mutate(c.text, other), `case ${c.kind}, variant ${k}`);
    }
    // Each literal of the prefilter broken alone, in every case it occurs in:
    // the rules that still see one of theirs run, the others must find nothing.
    for (const c of corpus) {
      for (const literal of new Set(LITERALS.map((l) => l.toLowerCase()))) {
        if (!c.text.toLowerCase().includes(literal) || literal.length < 2) continue;
        const escaped = literal.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
        const at = rand.between(1, literal.length - 1);
        const broken = c.text.replace(
          new RegExp(escaped, "gi"),
          (m) => `${m.slice(0, at)}${rand.pick(ODD)}${m.slice(at)}`,
        );
        expectSameVerdict(broken, `case ${c.kind} without ${JSON.stringify(literal)}`);
      }
    }
    // The corpus is made of secrets: a prefilter that skipped everything would fail above, not here.
    expect(found, NOTE).toBeGreaterThan(corpus.length * 0.9);
  });

  it("finds what the full detector finds in near misses built around its own literals", () => {
    for (let i = 0; i < 1500; i++) expectSameVerdict(nearMiss(), `near miss ${i}`);
    // Each literal alone, as the key or prefix of a machine-made value, in every case.
    for (const literal of LITERALS) {
      for (const connector of ["=", ": ", '="', " = '", "", "_", "-", "."]) {
        const value = rand.mixed(ALNUM, rand.pick([8, 16, 24, 36, 40, 64]));
        for (const spelled of [literal, literal.toUpperCase(), flipCase(literal)])
          expectSameVerdict(`${spelled}${connector}${value}`, `${literal}${connector}`);
      }
    }
  });

  it("finds every assignment the whole scan finds, in prose and in code dense with operators", () => {
    // The assignment rule reads a prefiltered text from its operators (and
    // scans the rest whole once they are many): keys long and short, quoted,
    // blank before the operator, values holding operators, on one line or many.
    const names = [
      "password",
      "DB_PASS",
      "pw",
      "x.passphrase",
      "token",
      "client_certificate_data",
      "Shared-Access-Key",
      "sharedaccesssignature",
      "secret_key_base",
      "my.api.key",
      "sessid",
      "authorization",
      "bypass",
      "max_tokens",
    ];
    const operators = ["=", ":", ":=", "=>", ": ", " = ", "\t:\t", "://", "==", "="];
    const piece = (): string => {
      switch (rand.int(6)) {
        case 0:
          return `${rand.pick(["", '"', "'"])}${flipCase(rand.pick(names))}${rand.pick(["", '"', "'"])}${rand.pick(["", " ", "\t", "   "])}${rand.pick(operators)}${rand.pick(["", " ", '"', "'", "`"])}${rand.int(2) === 0 ? run() : `${run()}=${run()}:${run()}`}${rand.pick(["", '"', "'", "`"])}`;
        case 1:
          return `${rand.pick(["x", "i", "title", "a.b", "n"])}${rand.pick(operators)}${rand.pick(["1", "y", "f(x)", run()])}`;
        case 2:
          return rand.pick(LITERALS);
        case 3:
          return run();
        case 4:
          return colonFields();
        default:
          return rand.pick([
            "if (a == b) {",
            "}",
            "const x = { a: 1, b: 2 };",
            "key: value",
            "- item",
          ]);
      }
    };
    for (let i = 0; i < 200; i++) {
      const pieces = Array.from({ length: rand.pick([1, 3, 10, 40, 200]) }, piece);
      const glue = () => rand.pick([" ", "\n", "; ", ", ", "\t", "", "\n\n"]);
      const text = pieces.map((p) => p + glue()).join("");
      expectSameVerdict(text, `assignments ${i}`);
      // Prose around them: the same assignments, few operators for the text's length.
      const prose = pieces
        .map((p) => `${p}\n${run()} ${rand.pick(LITERALS)} words and more words. `)
        .join("");
      expectSameVerdict(prose, `assignments in prose ${i}`);
    }
  });

  it("finds what the full detector finds in the repo's secret specs, fixtures and example pages, whole and line by line", () => {
    const files = [
      ...["secret-redaction", "secret-write-paths", "redaction-fail-closed"].map((n) =>
        join(ROOT, "test", `${n}.test.ts`),
      ),
      ...filesUnder(join(ROOT, "test", "helpers"), ".ts").filter((f) => /secret|corpus/.test(f)),
      ...filesUnder(join(ROOT, "examples", "acme-notes", ".llm-wiki", "wiki"), ".md"),
      ...filesUnder(join(ROOT, "test", "fixtures", "retrieval"), ".md"),
    ];
    let withSecrets = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      expectSameVerdict(text, file);
      for (const [n, line] of text.split("\n").entries()) {
        expectSameVerdict(line, `${file}:${n + 1}`);
        if (detectSecrets(line).length > 0) withSecrets++;
      }
    }
    expect(withSecrets).toBeGreaterThan(0);
  });
});
