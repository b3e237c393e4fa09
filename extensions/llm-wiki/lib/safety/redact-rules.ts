/**
 * Generic secret rules: what secretlint's preset misses. Provider formats it
 * does not know (Google API keys, JWTs, PyPI, DigitalOcean, …), and shapes
 * rather than formats — values assigned to secret-looking keys in env, shell,
 * YAML, JSON, INI and TOML; `.netrc` and `.pgpass` lines; kubeconfig and
 * docker `config.json` fields; credentials in URLs and signed query strings;
 * password flags on command lines; `Authorization` headers; base64 blobs that
 * decode to a private key.
 *
 * Precision on prose and code matters as much as recall: a value counts only
 * when it looks machine-made (letters and digits, long enough) or when the
 * key says it is a password and the value is not code (`getPassword()`,
 * `process.env.X`, `${SECRET}`, `<your-token>`, `********`, a type name).
 */
import { isRedactionMark, type SecretSpan } from "./redact-kinds.ts";
import type { FoundLiterals } from "./redact-literals.ts";
import { mysqlCommandBefore } from "./redact-mysql.ts";

/** Machine-made values mix letters and digits; words and prose do not. */
function looksRandom(value: string): boolean {
  return /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

/** A typed password: a digit or a symbol somewhere. */
function hasDigitOrSymbol(value: string): boolean {
  return /[0-9]/.test(value) || /[^A-Za-z]/.test(value);
}

/** Words that sit where a value goes in code and docs but are not values. */
const NOT_VALUES = new Set([
  "string",
  "str",
  "number",
  "boolean",
  "bool",
  "null",
  "none",
  "nil",
  "undefined",
  "true",
  "false",
  "required",
  "optional",
  "secret",
  "password",
  "passwd",
  "token",
  "redacted",
  "hidden",
  "masked",
  "empty",
  "example",
  "changeme",
  "placeholder",
  "object",
  "any",
  "unknown",
  "void",
  "bytes",
  "text",
  "int",
  "integer",
  "array",
  "list",
  "dict",
  "map",
  "env",
  "default",
]);

/** A file path (`~/.ssh/id_rsa`, `./certs/key.pem`): where a secret lives, not the secret. */
function isPath(value: string): boolean {
  if (/^[\w.-]+\.(?:pem|key|crt|cer|json|p12|pfx|txt|env|ya?ml|gpg|asc)$/i.test(value)) return true;
  if (!/^(?:~|\.{1,2})?\/(?:[\w.-]+\/)*[\w.-]+\/?$/.test(value)) return false;
  // Random base64 may look like `/Ab3/x9Q…`; paths are mostly lower-case words.
  const letters = value.replace(/[^A-Za-z]/g, "");
  const upper = value.replace(/[^A-Z]/g, "").length;
  return upper <= letters.length * 0.25;
}

/**
 * Whether `value` is a stand-in rather than a value: a reference to a variable
 * (`$X`, `${X}`, `{{ x }}`, `%(x)s`, `process.env.X`), a placeholder
 * (`<token>`, `your-key-here`, `xxxx`, `****`, `...`), a path, a type or keyword.
 */
function isStandIn(value: string): boolean {
  const v = value.trim();
  if (v.length === 0) return true;
  if (isRedactionMark(v)) return true;
  if (/^\$[A-Za-z_{(]|^%\(|^\{\{|^<[^<>]*>$|^\[[^[\]]*\]$/.test(v)) return true;
  if (/\$\{|\{\{/.test(v)) return true;
  if (/^(.)\1+$/.test(v) || /^[*x.•]+$/i.test(v) || /^x{3,}(?:[-_.]x+)*$/i.test(v)) return true;
  // `your-api-key`, `my_token_here`, `example-secret`, `REPLACE_ME`: words, not a
  // value. Only words: `MY.VTPi5zT3.4ate…` starts like one and is a real token,
  // and so is `your-LfhtmJ-iTtHcH…` (random base64 without a digit): a word is
  // lower, UPPER or Capitalized, never mixed at random.
  const words = v.toLowerCase().replace(/[_.-]+/g, " ");
  const onlyWords = v
    .split(/[_.-]+/)
    .every((w) => w.length <= 12 && /^(?:[a-z]*|[A-Z]+|[A-Z][a-z]+)$/.test(w));
  if (
    onlyWords &&
    /^(?:your|my|example|sample|dummy|placeholder|changeme|replace|insert|enter|put|fake) /.test(
      words,
    )
  )
    return true;
  if (
    (onlyWords && / (?:here|placeholder|example)$/.test(words)) ||
    /^(?:replace ?me|changeme|redacted)$/.test(words)
  )
    return true;
  if (
    /^(?:process\.env|os\.environ|env|import\.meta\.env|config|settings|self|this|req|request|args|opts|options|props|params|secrets|vars|context|ctx)\b[.[]/i.test(
      v,
    )
  )
    return true;
  // AWS's documented examples (`AKIAIOSFODNN7EXAMPLE`, `…EXAMPLEKEY`) fill every tutorial.
  if (/EXAMPLE(?:KEY)?$/.test(v)) return true;
  if (isPath(v)) return true;
  return NOT_VALUES.has(v.toLowerCase());
}

/** One name of a dotted path in code: lower, camel, Pascal or UPPER_SNAKE — not random mixed case. */
const CODE_NAME =
  /^(?:[a-z_$][a-z0-9_$]*(?:[A-Z][a-z0-9]+)*|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)*|[A-Z][A-Z_]*)$/;

/** Dotted or called identifiers in code (`user.password`, `getToken()`), not values. */
function isCodeReference(value: string): boolean {
  if (/[()]/.test(value)) return true;
  const names = value.split(".");
  // A digit inside a name (`i3xs.o`) is a typed value; code has `v2`, `sha256` at most.
  if (/[0-9][A-Za-z]/.test(value)) return false;
  return names.length > 1 && names.every((n) => CODE_NAME.test(n));
}

/**
 * Whether a match's value is a secret. `taken` are the spans this rule took
 * earlier in the same text, in order: a rule whose context they change reads
 * them as the marks they become, so a second redaction finds nothing new.
 */
type Check = (value: string, match: RegExpExecArray, taken: readonly SecretSpan[]) => boolean;

interface Rule {
  kind: string;
  /**
   * Literals one of which every match contains: the rule is skipped on texts
   * with none of them (most texts). Lower case and looked for in the
   * lower-cased text when `anyCase` (the pattern ignores case).
   */
  hint?: string | readonly string[];
  anyCase?: boolean;
  /** A cheap pattern every match contains a match of, where no literal is shared. */
  need?: RegExp;
  /** Global pattern with the `d` flag; the `secret` group (or the whole match) is what is redacted. */
  pattern: RegExp;
  check?: Check;
  /**
   * The matches `text.matchAll(pattern)` gives, in order, found a quicker
   * way; used with the prefilter (the spec holds the two to the same spans).
   */
  matches?: (text: string) => Iterable<RegExpExecArray>;
}

// ---------------------------------------------------------------------------
// Key names whose values are secrets. The name must END with one of these
// (so `tokenizer`, `secretary`, `max_tokens` are not keys of secrets).

const PASSWORD_NAME = "(?:pass(?:w(?:or)?d|phrase|code)?|pwd|pw)";
const TOKEN_NAME = String.raw`(?:token|secret|secret[_.\-]?key[_.\-]?base|cookie|session[_.\-]?id|sessid|connection[_.\-]?string|conn[_.\-]?str|webhook(?:[_.\-]?url)?|jwt|api[_.\-]?key|apikey|access[_.\-]?key(?:[_.\-]?id)?|secret[_.\-]?key|private[_.\-]?key|account[_.\-]?key|shared[_.\-]?access[_.\-]?key|sharedaccesssignature|auth[_.\-]?key|signing[_.\-]?key|encryption[_.\-]?key|master[_.\-]?key|session[_.\-]?key|credentials?|auth|authorization|dsn|sig|signature|client[_.\-]?key[_.\-]?data|client[_.\-]?certificate[_.\-]?data)`;
const TOKEN_KEY = new RegExp(`${TOKEN_NAME}$`, "i");

/** Whether a key names a password: `password`, `passwd`, `DB_PASS`, `dbPass`, `pwd` — not `bypass`. */
function isPasswordKey(key: string): boolean {
  return (
    /(?:passw(?:or)?d|passphrase|passcode)$/i.test(key) ||
    /(?:^|[_.-])(?:pass|pwd|pw)$/i.test(key) ||
    /[a-z0-9](?:Pass|Pwd|Pw|PASS|PWD)$/.test(key)
  );
}

/** Keys whose value is secret whatever it looks like, once it is long enough. */
const ALWAYS_KEY =
  /(?:client[_.-]?key[_.-]?data|client[_.-]?certificate[_.-]?data|private[_.-]?key|accountkey|account[_.-]key|sharedaccesskey|shared[_.-]access[_.-]key|sharedaccesssignature|x-amz-signature|x-goog-signature|x-amz-credential|x-amz-security-token|^sig|signature)$/i;

/** Whether nothing but spaces follows the match on its line. */
function endsLine(match: RegExpExecArray): boolean {
  const end = match.index + match[0].length;
  const newline = match.input.indexOf("\n", end);
  return /^[ \t\r]*$/.test(match.input.slice(end, newline === -1 ? undefined : newline));
}

/**
 * The whole key of an assignment match: the pattern starts at the secret's
 * name (`password`), the key is the run of name characters ending there
 * (`spring.datasource.password`, `SMTP_PASSWORD`).
 */
function keyOf(match: RegExpExecArray): { key: string; before: string; start: number } {
  let start = match.index;
  while (start > 0 && /[A-Za-z0-9_.-]/.test(match.input[start - 1] ?? "")) start--;
  return {
    key: match.input.slice(start, match.index) + (match.groups?.name ?? ""),
    before: match.input[start - 1] ?? "",
    start,
  };
}

/**
 * Whether what stands before `start` (since the last space) is a search
 * tool's prefix, `file:` or `file:12:` (`grep -n`, `rg`), so
 * `.env:3:DB_PASSWORD=…` is an assignment, also once lines were joined.
 */
function searchPrefix(input: string, start: number): boolean {
  return /(?:^|[\s"'`])[^\s:"'`]+:(?:\d+:){0,2}$/.test(
    input.slice(Math.max(0, start - 300), start),
  );
}

/** Value of an assignment to a key named like a secret. */
function assignmentCheck(value: string, match: RegExpExecArray): boolean {
  const { key, before, start } = keyOf(match);
  // Inside a URN, URL or path (`urn:ietf:params:oauth:token-type:jwt`), not a
  // key; but a search tool's `file:line:` before a line is not a path.
  if (/[:/\\@]/.test(before) && !(before === ":" && searchPrefix(match.input, start))) return false;
  const quoted = (match.groups?.quote ?? "") !== "";
  if (isStandIn(value)) return false;
  // `PGPASSWORD=a.b psql`: a shell assignment holds a value, never code.
  const shell = /^[A-Z][A-Z0-9_]*$/.test(key) && match[0].startsWith(`${match.groups?.name}=`);
  if (!quoted && !shell && isCodeReference(value)) return false;
  const passwordKey = isPasswordKey(key);
  if (!passwordKey && !TOKEN_KEY.test(key)) return false;
  if (ALWAYS_KEY.test(key)) return value.length >= 12 && !/\s/.test(value);
  if (passwordKey) {
    if (value.length < 6 || /\s/.test(value)) return false;
    // A sample value that says what it is (`dbpassword`, `my_secret`, `DbPass`) —
    // in words, not random letters that happen to hold `Pwd`.
    if (
      /^[A-Za-z_-]+$/.test(value) &&
      /pass|pwd|secret|token/i.test(value) &&
      value.split(/[_-]+/).every((w) => w === "" || CODE_NAME.test(w))
    )
      return false;
    if (hasDigitOrSymbol(value)) return true;
    // Letters only (`hunter` + more): a password when quoted, or when the line is
    // nothing but the assignment (env, YAML, INI) — not `password = userInput;`.
    if (quoted) return value.toLowerCase() !== key.toLowerCase();
    return endsLine(match) || /^[A-Z][A-Z0-9_]*$/.test(key);
  }
  // What a key named `secret` (`client_secret`, `appSecret`) holds is the
  // secret itself, however short: a 12-character one is as real as a 16.
  if (SECRET_KEY.test(key) && value.length >= 8 && looksRandom(value) && !/\s/.test(value)) {
    return true;
  }
  return value.length >= 16 && looksRandom(value) && !/\s/.test(value);
}

const SECRET_KEY = /secret$/i;

/** The hints of ASSIGNMENT: every name it knows starts with one. */
const NAME_STARTS =
  "pass pw token secret api access private account shared auth sig encryption master session sessid cookie connection conn webhook jwt credential dsn client".split(
    " ",
  );

const ASSIGNMENT_PATTERN = String.raw`(?<name>${PASSWORD_NAME}|${TOKEN_NAME})["']?[ \t]*(?::=|=>|:(?!//)|=)[ \t]*(?:(?<quote>["'\x60])(?<qsecret>(?:(?!\k<quote>)[^\n])*)\k<quote>|(?<secret>[^\s"'\x60,;&<>(){}[\]]+))`;

/** The assignment pattern tried at one position only (`lastIndex`). */
const ASSIGNMENT_AT = new RegExp(ASSIGNMENT_PATTERN, "dimy");

/**
 * Longer than any name ASSIGNMENT_PATTERN knows (the longest,
 * `client_certificate_data`, is 23 characters; without the `u` flag an
 * ignore-case letter matches only an ASCII letter, one code unit).
 */
const NAME_MAX = 32;

/** 1 for the ASCII letters (either case) a name can start with. */
const NAME_START = new Uint8Array(128);
for (const hint of NAME_STARTS) {
  const c = hint.charCodeAt(0);
  NAME_START[c] = 1;
  NAME_START[c - 32] = 1;
}

/** A name, a quote and blanks ending the text: what stands before an assignment's operator. */
const NAME_BEFORE = new RegExp(String.raw`(?:${PASSWORD_NAME}|${TOKEN_NAME})["']?[ \t]*$`, "i");

/** The assignment pattern scanning on from `lastIndex`, as `matchAll` does. */
const ASSIGNMENT_ON = new RegExp(ASSIGNMENT_PATTERN, "dgim");

/**
 * The matches of the assignment pattern in `text`, as `matchAll` finds
 * them, read from the operators rather than tried at every position of the
 * text: a match is a name (2 to NAME_MAX letters), an optional quote, blanks
 * and then `:` or `=`, so it can only start a little before an operator.
 * The positions before each operator that could start a name are tried in
 * order, each once, none before the end of the last match: the first to
 * match is where the global scan would have matched next. A position can
 * only match with the first operator after it, so an operator no name stands
 * before (one look with NAME_BEFORE) has no position to try. Where the looks
 * outnumber the text's length / CHARS_PER_TRY (code, dense with operators),
 * the rest of the text is scanned whole, which is then as cheap.
 */
function* assignmentMatches(text: string): Generator<RegExpExecArray> {
  let budget = text.length / CHARS_PER_TRY;
  /** No match starts before this: the end of the last one. */
  let cursor = 0;
  /** Positions before this were tried, or can only match with an operator before this one. */
  let tried = 0;
  let colon = text.indexOf(":");
  let equals = text.indexOf("=");
  while (colon !== -1 || equals !== -1) {
    const op = colon === -1 ? equals : equals === -1 ? colon : Math.min(colon, equals);
    // The name ends before the blanks (and a quote) in front of the operator.
    let end = op;
    while (end > 0 && (text[end - 1] === " " || text[end - 1] === "\t")) end -= 1;
    const from = Math.max(cursor, tried, end - 1 - NAME_MAX);
    tried = Math.max(tried, end - 1);
    // Most operators follow no name at all (`title:`, `x = 1`): one look at what precedes them.
    budget -= 1;
    if (from <= end - 2 && NAME_BEFORE.test(text.slice(from, op))) {
      for (let at = from; at <= end - 2; at += 1) {
        if (NAME_START[text.charCodeAt(at)] !== 1) continue;
        budget -= 1;
        ASSIGNMENT_AT.lastIndex = at;
        const match = ASSIGNMENT_AT.exec(text);
        if (match === null) continue;
        yield match;
        cursor = at + match[0].length;
        break;
      }
    }
    if (budget < 0) {
      // Code, dense with operators: the rest is scanned whole. Positions
      // tried since `cursor` are tried again, and fail again.
      ASSIGNMENT_ON.lastIndex = cursor;
      for (let m = ASSIGNMENT_ON.exec(text); m !== null; m = ASSIGNMENT_ON.exec(text)) yield m;
      return;
    }
    // The next operators: none inside the match just found (nothing can start there).
    const next = Math.max(op + 1, cursor);
    if (colon !== -1 && colon < next) colon = text.indexOf(":", next);
    if (equals !== -1 && equals < next) equals = text.indexOf("=", next);
  }
}

/**
 * Characters of text per look (an operator's, a position's) past which the
 * whole scan is cheaper; at 32, the two cost about the same on the repo's TypeScript.
 */
const CHARS_PER_TRY = 32;

const ASSIGNMENT: Rule = {
  kind: "secret_assignment",
  // `key = value`, `key: value`, `"key": "value"`, `key => 'value'`, `key := v`,
  // `export KEY="v"`. The match starts at the secret's name (matching from every
  // start of a word and backtracking costs four times more on long texts); the
  // check reads the whole key backwards. `://` after a colon is a URL, not a value.
  // The first letters of every alternative of the two names.
  hint: NAME_STARTS,
  anyCase: true,
  pattern: new RegExp(ASSIGNMENT_PATTERN, "dgim"),
  check: assignmentCheck,
  matches: assignmentMatches,
};

// ---------------------------------------------------------------------------

/** Standard base64 that decodes to `user:password` (HTTP Basic credentials). */
function isBasicCredential(value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  const decoded = Buffer.from(value, "base64").toString("utf8");
  return /^[\x21-\x7e]*:[\x20-\x7e]+$/.test(decoded);
}

/** Base64 (standard or URL-safe, possibly wrapped) that decodes to a PEM private key. */
function decodesToPrivateKey(value: string): boolean {
  const decoded = Buffer.from(value.replace(/\s+/g, ""), "base64").toString("latin1");
  return /-----BEGIN[A-Z0-9 ]*PRIVATE KEY/.test(decoded);
}

const PREFIXED: Rule[] = [
  { kind: "google_api_key", hint: "AIza", pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/dg },
  {
    kind: "aws_access_key",
    hint: ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA"],
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}(?![0-9A-Za-z])/dg,
    check: (v) => !isStandIn(v),
  },
  {
    kind: "anthropic_key",
    hint: "sk-ant-",
    pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/dg,
    check: looksRandom,
  },
  {
    kind: "openai_key",
    hint: "sk-",
    pattern: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/dg,
    check: looksRandom,
  },
  {
    kind: "github_token",
    hint: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_[A-Za-z0-9_]{22,})(?![A-Za-z0-9_])/dg,
  },
  {
    kind: "slack_token",
    hint: "xox",
    pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/dg,
    check: looksRandom,
  },
  { kind: "slack_token", hint: "xapp-", pattern: /\bxapp-[0-9]-[A-Za-z0-9-]{10,}/dg },
  {
    kind: "jwt",
    hint: "eyJ",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/dg,
  },
  { kind: "pypi_token", hint: "pypi-AgE", pattern: /\bpypi-AgE[A-Za-z0-9_-]{50,}/dg },
  {
    kind: "stripe_key",
    hint: ["whsec_", "sk_live_", "rk_live_", "sk_test_", "rk_test_", "pk_live_"],
    pattern: /\b(?:whsec|sk_live|rk_live|sk_test|rk_test|pk_live)_[A-Za-z0-9]{16,}/dg,
  },
  { kind: "digitalocean_token", hint: "_v1_", pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/dg },
  { kind: "atlassian_token", hint: "ATATT3", pattern: /\bATATT3[A-Za-z0-9_=-]{100,}/dg },
  {
    kind: "age_secret_key",
    hint: "AGE-SECRET-KEY-1",
    pattern: /\bAGE-SECRET-KEY-1[0-9A-Z]{50,}\b/dg,
  },
  {
    kind: "terraform_token",
    hint: ".atlasv1.",
    pattern: /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}/dg,
  },
  { kind: "mailgun_key", hint: "key-", pattern: /\bkey-[0-9a-f]{32}\b/dg },
  {
    kind: "gitlab_token",
    hint: [
      "glpat-",
      "gldt-",
      "glrt-",
      "glptt-",
      "glcbt-",
      "gloas-",
      "glsoat-",
      "glft-",
      "glimt-",
      "glagent-",
    ],
    pattern: /\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}/dg,
  },
  {
    kind: "npm_token",
    hint: "npm_",
    pattern: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36,}(?![A-Za-z0-9])/dg,
  },
  {
    kind: "huggingface_token",
    hint: "hf_",
    pattern: /(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])/dg,
  },
  { kind: "sendgrid_key", hint: "SG.", pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/dg },
  {
    kind: "shopify_token",
    hint: ["shpat_", "shpca_", "shppa_", "shpss_"],
    pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,}/dg,
  },
  {
    kind: "vault_token",
    hint: ["hvs.", "hvb.", "hvr."],
    pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/dg,
  },
];

const KEYS: Rule[] = [
  {
    // A block cut off before its END line: the header and the base64 lines after
    // it, raw or inside a JSON string (`\n` escapes).
    kind: "private_key",
    hint: "PRIVATE KEY",
    pattern:
      /-----BEGIN ?[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?:\\r|\\n|\s)+(?:(?:Proc-Type|DEK-Info|Comment|Version):[^\n\\]*|=?[A-Za-z0-9+/=]{4,}))*/dg,
  },
  {
    // `LS0tLS1CRUdJTi` is base64 for `-----BEGIN`: a key pasted as base64.
    kind: "private_key",
    hint: "LS0tLS1CRUdJTi",
    pattern: /(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/=_-]{40,}/dg,
    check: decodesToPrivateKey,
  },
];

const SHAPES: Rule[] = [
  {
    // `scheme://user:password@host`: the password only, the rest stays readable.
    kind: "url_password",
    hint: "://",
    pattern:
      /(?<=(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*):\/\/[^\s:@/?#"'<>]*:(?<secret>[^\s@/"'<>]+)@(?=[A-Za-z0-9[\]_.-])/dg,
    check: (v) => !isStandIn(v),
  },
  {
    // `https://<token>@host` with no password: a token used as the user name.
    kind: "url_token",
    hint: "://",
    pattern: /(?<=(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*):\/\/(?<secret>[A-Za-z0-9_-]{20,})@/dg,
    check: looksRandom,
  },
  {
    // Signed URLs in query strings, and a bare `key=`; `token=`, `access_token=`,
    // `password=` and other secret names are assignments (below).
    kind: "url_signature",
    hint: ["sig", "key=", "x-amz-", "x-goog-"],
    anyCase: true,
    pattern:
      /[?&;](?<key>x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|sig|signature|sign|key)=(?<secret>[^&\s#"'<>]+)/dgi,
    check: (v, m) => {
      if (isStandIn(v)) return false;
      const key = (m.groups?.key ?? "").toLowerCase();
      if (/signature|credential|security-token|^sig$/.test(key)) return v.length >= 8;
      return v.length >= 16 && looksRandom(v);
    },
  },
  {
    // Azure connection strings: `AccountKey=…;`, `SharedAccessKey=…`, `SharedAccessSignature=…`.
    kind: "azure_key",
    hint: ["AccountKey=", "SharedAccessKey=", "SharedAccessSignature="],
    pattern: /\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=(?<secret>[^;\s"']+)/dg,
    check: (v) => v.length >= 12 && !isStandIn(v),
  },
  {
    // .netrc: `machine host login user password secret` (one line or several).
    kind: "netrc_password",
    hint: "password",
    pattern:
      // A value stops at a quote or at JSON's `,` `}` `]` after one: a netrc
      // line inside a tool call's JSON arguments must not swallow the next field.
      /\b(?:machine[ \t]+[^\s"'`]+|default)(?:\s+(?:login|account|port|protocol)\s+[^\s"'`]+){0,4}\s+password\s+(?<secret>[^\s"'`]+?)(?=[,}\]]*(?:["'`\s]|$))/dg,
    check: (v) => !isStandIn(v),
  },
  {
    // .pgpass: `host:port:database:user:password`, the whole line; also as a
    // Markdown list item or quote (`- host:…`, `> host:…`), as notes paste it.
    kind: "pgpass_password",
    need: /:(?:\d{1,5}|\*):/,
    pattern:
      /^[ \t]*(?:(?:[-*+]|\d{1,3}[.)]|>)[ \t]+)?(?:[A-Za-z0-9*][A-Za-z0-9_.*-]*|\[[0-9a-fA-F:]+\]):(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:(?<secret>(?:\\:|[^\s:])+)[ \t]*$/dgm,
    check: (v, m) =>
      !isStandIn(v) &&
      !/^[0-9a-f:]+$/i.test(m[0].trim().replace(/^(?:[-*+]|\d{1,3}[.)]|>)[ \t]+/, "")),
  },
  {
    // A .pgpass entry inside a longer line — a command that appends one
    // (`echo 'db.example.com:5432:app:alice:…' >> ~/.pgpass`), a tool's
    // one-line output — when the host names a host (a letter and a dot, or
    // localhost) and the port is a number: clock times and addresses don't.
    kind: "pgpass_password",
    need: /:\d{1,5}:/,
    pattern:
      /(?<=^|[\s'"`=(])(?:localhost|[A-Za-z0-9-]*[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)+):\d{1,5}:[^:\s'"`]+:[^:\s'"`]+:(?<secret>(?:\\:|[^\s:'"`])+)(?=$|[\s'"`)])/dgm,
    check: (v) => !isStandIn(v),
  },
  {
    // docker config.json: `"auth": "<base64 user:password>"`.
    kind: "docker_auth",
    hint: '"auth"',
    pattern: /"auth"\s*:\s*"(?<secret>[A-Za-z0-9+/=]{8,})"/dg,
    check: (v) => isBasicCredential(v) || (v.length >= 16 && looksRandom(v)),
  },
  {
    kind: "bearer_token",
    hint: "bearer",
    anyCase: true,
    pattern: /\bBearer\s+(?<secret>[A-Za-z0-9\-._~+/]{16,}=*)/dgi,
    check: looksRandom,
  },
  {
    kind: "basic_auth",
    hint: "Basic",
    pattern: /\bBasic\s+(?<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/dg,
    check: isBasicCredential,
  },
  {
    // After the two above, so `Bearer x` and `Basic x` keep their own kinds.
    kind: "authorization_header",
    hint: "Authorization",
    pattern:
      /\b(?:Proxy-)?Authorization\s*[:=]\s*["']?(?:Bearer|Token|Bot|token|bearer|Basic|basic|ApiKey|Key|SSWS|GenieKey)\s+(?<secret>[A-Za-z0-9\-._~+/=:]{8,})/dg,
    check: (v) => !isStandIn(v),
  },
];

/** Password flags on command lines. */
const CLI: Rule[] = [
  {
    // MySQL/MariaDB clients take the password glued to `-p`: `-pSECRET`, `-p'SECRET'`,
    // after one of their commands on the same shell segment (`redact-mysql.ts`).
    kind: "cli_password",
    hint: ["mysql", "mariadb"],
    pattern: /[ \t]-p(?:'(?<q1>[^'\n]+)'|"(?<q2>[^"\n]+)"|(?<secret>[^\s'"]+))/dg,
    check: (v, m, taken) => !isStandIn(v) && mysqlCommandBefore(m, taken),
  },
  {
    // `-p 'secret'` / `-p"secret"` with quotes, whatever the command.
    kind: "cli_password",
    hint: "-p",
    pattern: /(?<=\s)-p[ \t]*(?:'(?<q1>[^'\n]{4,})'|"(?<q2>[^"\n]{4,})")/dg,
    // Not `mkdir -p '/a b'`, `ssh -p "22"`, `git commit -p "a message"`.
    check: (v) => !isStandIn(v) && !v.includes("/") && !/^\d+$/.test(v) && !/\s/.test(v),
  },
  {
    kind: "cli_password",
    hint: "sshpass",
    pattern: /\bsshpass\s+-p[ \t]*(?:'(?<q1>[^'\n]+)'|"(?<q2>[^"\n]+)"|(?<secret>\S+))/dg,
    check: (v) => !isStandIn(v),
  },
  {
    // `--password=x`, `--password x`, `--db-password x`, `--token x`, `--api-key=x`.
    kind: "cli_password",
    hint: "--",
    pattern:
      /(?<![\w-])--(?<key>(?:[a-z0-9]+-)*(?:password|passwd|pass|pwd|token|api-key|apikey|secret|client-secret|auth-token|access-token|authkey|auth-key|private-key))(?:=|[ \t]+)(?:'(?<q1>[^'\n]+)'|"(?<q2>[^"\n]+)"|(?<secret>[^\s'"|;&]+))/dg,
    check: (v, m) => {
      if (v.startsWith("-") || isStandIn(v) || isCodeReference(v)) return false;
      const key = m.groups?.key ?? "";
      if (/pass|pwd/.test(key)) return v.length >= 4;
      return v.length >= 12 && looksRandom(v);
    },
  },
  {
    // curl/httpie `-u user:password`, `--user 'api:key'`.
    kind: "cli_password",
    hint: "-u",
    pattern: /(?<=\s)(?:-u|--user)[ \t]+["']?[^\s:'"]+:(?<secret>[^\s'"]+)/dg,
    // Not `docker run -u 1000:1000`.
    check: (v) => !isStandIn(v) && !/^\d+$/.test(v),
  },
];

/** Every generic rule, in the order they are tried (overlaps are merged afterwards). */
export const GENERIC_RULES: readonly Rule[] = [...KEYS, ...PREFIXED, ...SHAPES, ...CLI, ASSIGNMENT];

const PEM_BEGIN = /-----BEGIN ?[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END ?[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Whole PEM private-key blocks, BEGIN line to the next END line. Done in
 * code, not with a lazy regex: a text full of BEGIN lines without an END
 * would make a regex scan to the end once per line (quadratic).
 */
function pemBlockSpans(text: string): SecretSpan[] {
  if (!text.includes("PRIVATE KEY")) return [];
  const ends = [...text.matchAll(PEM_END)].map((m) => m.index + m[0].length);
  const spans: SecretSpan[] = [];
  let next = 0;
  for (const begin of text.matchAll(PEM_BEGIN)) {
    while (next < ends.length && (ends[next] ?? 0) <= begin.index) next++;
    const end = ends[next];
    if (end !== undefined) spans.push({ start: begin.index, end, kind: "private_key" });
  }
  return spans;
}

const hintsOf = (rule: Rule): readonly string[] =>
  rule.hint === undefined ? [] : typeof rule.hint === "string" ? [rule.hint] : rule.hint;

/** The literals the generic rules are looked up by: as written, and in lower case. */
export const GENERIC_LITERALS = {
  exact: GENERIC_RULES.flatMap((r) => (r.anyCase ? [] : hintsOf(r))),
  anyCase: GENERIC_RULES.flatMap((r) => (r.anyCase ? hintsOf(r) : [])),
};

/**
 * Whether `rule` cannot match `text`: none of its literals is there, or its
 * needed pattern is not. Only ever a shortcut; `genericSpans(text)` without
 * literals runs every rule, and a spec holds both to the same answers.
 */
function ruledOut(rule: Rule, text: string, found: FoundLiterals): boolean {
  if (rule.need !== undefined && !rule.need.test(text)) return true;
  if (rule.hint === undefined) return false;
  return !hintsOf(rule).some((h) => found.has(h, rule.anyCase));
}

/**
 * Every secret the generic rules find in `text`. With `found` (the
 * literals of GENERIC_LITERALS in `text`), the rules `text` rules out are
 * skipped; without, every rule runs, for the spec.
 */
export function genericSpans(text: string, found?: FoundLiterals): SecretSpan[] {
  const spans: SecretSpan[] = pemBlockSpans(text);
  for (const rule of GENERIC_RULES) {
    if (found !== undefined && ruledOut(rule, text, found)) continue;
    const taken: SecretSpan[] = [];
    rule.pattern.lastIndex = 0;
    const matches =
      found !== undefined && rule.matches !== undefined
        ? rule.matches(text)
        : text.matchAll(rule.pattern);
    for (const match of matches) {
      const groups = match.groups ?? {};
      const indices = match.indices?.groups ?? {};
      const name = ["secret", "qsecret", "q1", "q2"].find((g) => groups[g] !== undefined);
      const value = name === undefined ? match[0] : (groups[name] ?? "");
      const range = name === undefined ? match.indices?.[0] : indices[name];
      if (range === undefined) continue;
      // A sentence or a Markdown code span may end right after an unquoted
      // value; what is trimmed is punctuation, never part of a secret's letters.
      const [start, end0] = range;
      let end = end0;
      let secret = value;
      if (name === "secret") {
        // In JSON-escaped text an unquoted value ends where an escape begins
        // (`\"`, `\n`; a lone `\` where the rule stopped at `"`) or where its
        // string's closing quote is: taking those along would break the JSON
        // around the mark. The unescaped reading (`redact-views.ts`) still
        // sees a value that truly goes on.
        const cutAt = secret.search(/\\(?:[nrt"\\/u]|$)|"[\]},]*$/);
        const unescaped = cutAt > 0 ? secret.slice(0, cutAt) : secret;
        const trimmed = unescaped.replace(/[.:,`…]+$/, "");
        end -= secret.length - trimmed.length;
        secret = trimmed;
      }
      if (!/[A-Za-z0-9]/.test(secret) || isRedactionMark(secret)) continue;
      if (rule.check !== undefined && !rule.check(secret, match as RegExpExecArray, taken))
        continue;
      taken.push({ start, end, kind: rule.kind });
    }
    spans.push(...taken);
  }
  return spans;
}
