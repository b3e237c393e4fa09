/**
 * Secret redaction for captured text. Every byte a capture writes (original,
 * extracted Markdown, title, origin, page, event) passes through here first,
 * so a pasted API key never reaches the vault. Each secret becomes
 * `[REDACTED:<kind>]`; the counts by kind go into the packet's manifest.
 *
 * The patterns lean towards precision on prose: generic shapes (bearer
 * tokens, `key = value` assignments) are redacted only when the value looks
 * machine-made (long, letters and digits), so ordinary words and hashes
 * mentioned in a paragraph stay as written.
 */

/** Number of redactions by kind, e.g. `{ openai_key: 1, jwt: 2 }`. */
export type RedactionCounts = Record<string, number>;

/** Redacted text and what was taken out of it. */
export interface Redacted {
  text: string;
  counts: RedactionCounts;
}

const MARK = "[REDACTED:";

/** The placeholder a secret of `kind` is replaced with. */
function redactionMark(kind: string): string {
  return `${MARK}${kind}]`;
}

/** Machine-made values mix letters and digits; words and prose do not. */
function looksRandom(value: string): boolean {
  return /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

/** A password needs a digit or a symbol: `required` or `os.environ` are not passwords. */
function looksLikePassword(value: string): boolean {
  if (/^(.)\1*$/.test(value)) return false; // `********`: already masked
  return /[0-9]/.test(value) || /[^A-Za-z0-9._-]/.test(value);
}

/** Standard base64 that decodes to `user:password` (HTTP Basic credentials). */
function isBasicCredential(value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  const decoded = Buffer.from(value, "base64").toString("utf8");
  return /^[\x21-\x7e]+:[\x20-\x7e]+$/.test(decoded);
}

interface Rule {
  kind: string;
  pattern: RegExp;
  /** Replacement for one match, or undefined to leave it (not a secret after all). */
  replace(
    match: string,
    groups: Record<string, string | undefined>,
    kind: string,
  ): string | undefined;
}

type Replace = Rule["replace"];

/** Redacts the whole match (when it passes `check`). */
const whole =
  (check?: (secret: string) => boolean): Replace =>
  (match, _groups, kind) =>
    check === undefined || check(match) ? redactionMark(kind) : undefined;

/** Keeps the `prefix` group (`Bearer `, `user:`) and redacts the `secret` group. */
const keepPrefix =
  (check: (secret: string) => boolean): Replace =>
  (_match, groups, kind) =>
    check(groups.secret ?? "") ? `${groups.prefix ?? ""}${redactionMark(kind)}` : undefined;

// Key names whose values are secrets; the name must END with one of these, so
// `tokenizer` or `secretary` are not mistaken for one.
const SECRET_KEY =
  "(?:api[_-]?key|apikey|secret(?:[_-]?access)?(?:[_-]?key)?|access[_-]?key(?:[_-]?id)?|private[_-]?key|token|passw(?:or)?d|passphrase|pwd)";
const PASSWORD_KEY = /(?:passw(?:or)?d|passphrase|pwd)$/i;

const RULES: Rule[] = [
  {
    kind: "private_key",
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g,
    replace: whole(),
  },
  {
    // A block cut off before its END line: the header and the base64 lines after it.
    kind: "private_key",
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[ \t]*\r?\n(?:(?:Proc-Type|DEK-Info|Comment|Version):[^\n]*|[A-Za-z0-9+/=]{16,}))*/g,
    replace: whole(),
  },
  {
    kind: "url_password",
    pattern:
      /(?<![a-z0-9+.-])(?<prefix>[a-z][a-z0-9+.-]*:\/\/[^\s:@/?#]+:)(?<secret>[^\s@/?#]+)(?=@)/gi,
    replace: keepPrefix((secret) => !secret.startsWith(MARK)),
  },
  {
    kind: "anthropic_key",
    pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g,
    replace: whole(looksRandom),
  },
  {
    kind: "openai_key",
    pattern: /\bsk-[A-Za-z0-9_-]{20,}/g,
    replace: whole(looksRandom),
  },
  {
    kind: "github_token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})(?![A-Za-z0-9_])/g,
    replace: whole(),
  },
  {
    kind: "aws_access_key",
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![0-9A-Za-z])/g,
    replace: whole(),
  },
  {
    kind: "slack_token",
    pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
    replace: whole(looksRandom),
  },
  {
    kind: "google_api_key",
    pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
    replace: whole(),
  },
  {
    kind: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
    replace: whole(),
  },
  {
    kind: "bearer_token",
    pattern: /(?<prefix>\bBearer\s+)(?<secret>[A-Za-z0-9\-._~+/]{16,}=*)/gi,
    replace: keepPrefix(looksRandom),
  },
  {
    kind: "basic_auth",
    pattern: /(?<prefix>\bBasic\s+)(?<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g,
    replace: keepPrefix(isBasicCredential),
  },
  {
    kind: "secret_assignment",
    // `key = value`, `key: value`, `"key": "value"`, `?key=value`. The key is a
    // whole run of name characters (the look-behind keeps matching linear on
    // long blobs) that ends with a secret's name (the second look-behind); the
    // value runs to whitespace, a quote or a delimiter (`&` ends a query
    // parameter). `https://` is a scheme, not a `key: value`.
    pattern: new RegExp(
      `(?<![A-Za-z0-9_.-])(?<prefix>["']?(?<key>[A-Za-z0-9_.-]+)(?<=${SECRET_KEY})["']?\\s*(?::=|=>|:(?!//)|=)\\s*["']?)(?<secret>[^\\s"'\`,;&<>()[\\]{}]+)`,
      "gi",
    ),
    replace: (_match, groups, kind) => {
      const key = groups.key ?? "";
      // A sentence may end right after the value.
      const raw = groups.secret ?? "";
      const secret = raw.replace(/[.:]+$/, "");
      if (secret.startsWith(MARK) || secret.startsWith("$")) return undefined;
      const secretLike = PASSWORD_KEY.test(key)
        ? secret.length >= 8 && looksLikePassword(secret)
        : secret.length >= 16 && looksRandom(secret);
      if (!secretLike) return undefined;
      return `${groups.prefix ?? ""}${redactionMark(kind)}${raw.slice(secret.length)}`;
    },
  },
];

/** Replaces every secret in `text` with `[REDACTED:<kind>]` and counts them by kind. */
export function redactSecrets(text: string): Redacted {
  const counts: RedactionCounts = {};
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.pattern, (...args: unknown[]) => {
      const match = String(args[0]);
      const last = args[args.length - 1];
      const groups =
        last !== null && typeof last === "object"
          ? (last as Record<string, string | undefined>)
          : {};
      const replacement = rule.replace(match, groups, rule.kind);
      if (replacement === undefined) return match;
      counts[rule.kind] = (counts[rule.kind] ?? 0) + 1;
      return replacement;
    });
  }
  return { text: out, counts };
}

/** Sum of several redaction counts, keys sorted so manifests compare stably. */
export function addCounts(...all: RedactionCounts[]): RedactionCounts {
  const sum: RedactionCounts = {};
  for (const counts of all) {
    for (const [kind, n] of Object.entries(counts)) sum[kind] = (sum[kind] ?? 0) + n;
  }
  return Object.fromEntries(Object.entries(sum).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Total number of redactions. */
export function countTotal(counts: RedactionCounts): number {
  return Object.values(counts).reduce((n, k) => n + k, 0);
}
