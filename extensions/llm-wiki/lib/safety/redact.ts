/**
 * The one secret-redaction step every write path and every host passes
 * through. Each secret becomes `[REDACTED:<kind>]`; callers get the counts by
 * kind (never the values) for the write's result and the event log.
 *
 * Detection is secretlint's recommended preset (a kept, maintained set of
 * provider formats, run synchronously by `redact-preset.ts`) plus the generic
 * rules of `redact-rules.ts` for what the preset misses (shapes: secret keys,
 * URLs, command lines, netrc/pgpass/kubeconfig/docker files).
 */
import { markSpans, RUN, redactionMark, type SecretSpan } from "./redact-kinds.ts";
import { literalFinder } from "./redact-literals.ts";
import { presetSpans } from "./redact-preset.ts";
import { PRESET_LITERALS } from "./redact-preset-hints.ts";
import { GENERIC_LITERALS, genericSpans } from "./redact-rules.ts";
import { plainQuotes, textViews } from "./redact-views.ts";

/** Number of redactions by kind, e.g. `{ openai_key: 1, jwt: 2 }`; never values. */
export type RedactionCounts = Record<string, number>;

/** Redacted text and what was taken out of it. */
export interface Redacted {
  text: string;
  counts: RedactionCounts;
}

/** Preset kinds that report a whole URL; a generic span for just its password is preferred. */
const WHOLE_URL_KINDS = new Set(["database_url", "url_password"]);

/**
 * Spans grow to the whole run of word characters around them. Detectors look
 * at their neighbours (`(?![A-Za-z0-9_])`); a mark put in the middle of a run
 * would give the rest of the run new neighbours and a second redaction
 * something new to find (`npm_npm_…`). Marks bounded by non-word characters
 * keep redaction idempotent.
 */
function growRight(text: string, end: number): number {
  let at = end;
  while (at < text.length && RUN.test(text[at] ?? "")) at++;
  return at;
}

/** A markup tag on one line: `<title>`, `</code>`, `<a href="…">`. */
const TAG = /<\/?[A-Za-z][^<>\n]{0,300}>/g;

/**
 * `text` with every markup tag blanked to a line break and spaces of the same
 * length: a secret inside `<code>…</code>` or `<title>…</title>` then stands
 * on a line of its own, as the line-shaped rules (key = value, pgpass, netrc)
 * expect, and every offset still points into `text`. Undefined when `text`
 * has no tag.
 */
function markupView(text: string): string | undefined {
  if (!text.includes("<") || !/<\/?[A-Za-z]/.test(text)) return undefined;
  let changed = false;
  const view = text.replace(TAG, (tag) => {
    changed = true;
    return `\n${" ".repeat(tag.length - 1)}`;
  });
  return changed ? view : undefined;
}

/** Where each markup tag of `text` is: `[start, end)`, in order. */
function tagRanges(text: string): Array<[number, number]> {
  return [...text.matchAll(TAG)].map((m) => [m.index, m.index + m[0].length]);
}

/**
 * `span` cut where it runs into markup it did not start in: a rule that takes
 * "the rest of the run" (`--token VALUE`) would otherwise swallow the closing
 * `</code></p>` after the value. A span inside a tag (a secret in an
 * attribute) stays inside that tag.
 */
function clipToMarkup(span: SecretSpan, tags: Array<[number, number]>): SecretSpan {
  for (const [a, b] of tags) {
    if (span.start >= a && span.start < b) return span.end > b - 1 ? { ...span, end: b - 1 } : span;
    if (a > span.start && a < span.end) return { ...span, end: a };
    if (a >= span.end) break;
  }
  return span;
}

/**
 * The literals both rule sets are looked up by, found in one pass over a
 * text as written and one over it lower-cased (a pass per set cost twice
 * that: at 100k pages, 1.5 s of a full index).
 */
let ruleFinder: ReturnType<typeof literalFinder> | undefined;
/** Built on the first text redacted: a process that only recalls never pays for the automata. */
function ruleLiterals(text: string): ReturnType<ReturnType<typeof literalFinder>> {
  ruleFinder ??= literalFinder(
    [...GENERIC_LITERALS.exact, ...PRESET_LITERALS.exact],
    [...GENERIC_LITERALS.anyCase, ...PRESET_LITERALS.anyCase],
  );
  return ruleFinder(text);
}

/** Spans of one detector pass over `text` (no merging). */
function rawSpans(
  text: string,
  prefilter: boolean,
): { generic: SecretSpan[]; preset: SecretSpan[] } {
  const found = prefilter ? ruleLiterals(text) : undefined;
  return { generic: genericSpans(text, found), preset: presetSpans(text, found) };
}

/** Spans found in `text` itself and in its markup view (tags blanked), before merging. */
function viewSpans(
  text: string,
  prefilter: boolean,
): { generic: SecretSpan[]; preset: SecretSpan[] } {
  let direct = rawSpans(text, prefilter);
  const view = markupView(text);
  const inMarkup = view === undefined ? undefined : rawSpans(view, prefilter);
  if (view !== undefined) {
    const tags = tagRanges(text);
    direct = {
      generic: direct.generic.map((g) => clipToMarkup(g, tags)),
      preset: direct.preset.map((p) => clipToMarkup(p, tags)),
    };
  }
  return {
    generic: [...direct.generic, ...(inMarkup?.generic ?? [])],
    preset: [...direct.preset, ...(inMarkup?.preset ?? [])],
  };
}

/**
 * Where the secrets of `text` are: merged, non-overlapping, in order.
 * `prefilter` (the default) lets each rule skip a text that cannot hold its
 * match; false runs every rule on every text, for the spec that holds the
 * two to the same answers.
 */
export function detectSecrets(original: string, prefilter = true): SecretSpan[] {
  // Typographic quotes (a PDF's or a word processor's `’…’`) read as the
  // ASCII quotes they stand for; same length, so every offset still holds.
  const text = plainQuotes(original);
  const found = viewSpans(text, prefilter);
  // A text pasted JSON-escaped (`{\"password\":\"…\"}`, `\n` inside one
  // line) is scanned unescaped as well, and its quoted literals each as a
  // line of their own; spans found there are mapped back onto `text`.
  for (const escaped of textViews(text)) {
    const more = viewSpans(escaped.text, prefilter);
    found.generic.push(...more.generic.map(escaped.back));
    found.preset.push(...more.preset.map(escaped.back));
  }
  const generic = found.generic;
  // Most texts hold no secret: nothing to merge, and no marks to look for.
  if (generic.length === 0 && found.preset.length === 0) return [];
  const preset = found.preset.filter(
    (p) =>
      !WHOLE_URL_KINDS.has(p.kind) ||
      !generic.some((g) => g.kind === "url_password" && g.start >= p.start && g.end <= p.end),
  );
  // Marks from an earlier redaction are never redacted again (idempotence);
  // a span that reaches into one was found around an already hidden value.
  const marks = markSpans(text);
  const spans = [...preset, ...generic]
    .filter((s) => !marks.some(([a, b]) => s.start < b && a < s.end))
    .sort((x, y) => x.start - y.start || y.end - x.end);
  // Merge overlapping spans, each grown to its whole run; a run is scanned once.
  const merged: SecretSpan[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span.start < last.end) {
      if (span.end > last.end) last.end = growRight(text, span.end);
      continue;
    }
    let start = span.start;
    const floor = last?.end ?? 0;
    // Never into an escape's letter (`\n` before a token): the mark would leave a lone `\`.
    while (start > floor && RUN.test(text[start - 1] ?? "") && text[start - 2] !== "\\") start--;
    if (last !== undefined && start === floor && RUN.test(text[start - 1] ?? "")) {
      // Reached the previous span within one run: they are one secret.
      last.end = growRight(text, span.end);
      continue;
    }
    merged.push({ start, end: growRight(text, span.end), kind: span.kind });
  }
  return merged;
}

/** One pass: every detected span replaced by its mark. */
function redactOnce(text: string): { text: string; counts: RedactionCounts; found: number } {
  const spans = detectSecrets(text);
  if (spans.length === 0) return { text, counts: {}, found: 0 };
  const counts: RedactionCounts = {};
  let out = "";
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + redactionMark(span.kind);
    at = span.end;
    counts[span.kind] = (counts[span.kind] ?? 0) + 1;
  }
  out += text.slice(at);
  return { text: out, counts, found: spans.length };
}

/** Replaces every secret with `[REDACTED:<kind>]`. Idempotent: redacting redacted text changes nothing. */
export function redactSecrets(text: string): Redacted {
  // A mark can bring two pieces together that read as a new secret shape, so
  // run to a fixed point (in practice the second pass finds nothing).
  const counts: RedactionCounts = {};
  let current = text;
  for (let pass = 0; pass < 4; pass++) {
    const next = redactOnce(current);
    if (next.found === 0) break;
    addCounts(counts, next.counts);
    current = next.text;
  }
  return { text: current, counts };
}

/** Where secrets are, for lint: 1-based line, kind; never the value. */
export function findSecrets(text: string): Array<{ kind: string; line: number }> {
  const spans = detectSecrets(text);
  const found: Array<{ kind: string; line: number }> = [];
  let line = 1;
  let at = 0;
  for (const span of spans) {
    for (
      let i = text.indexOf("\n", at);
      i !== -1 && i < span.start;
      i = text.indexOf("\n", i + 1)
    ) {
      line++;
      at = i + 1;
    }
    found.push({ kind: span.kind, line });
  }
  return found;
}

/** Adds `more` into `into` (mutating it) and returns it, keys sorted so manifests compare stably. */
export function addCounts(into: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const [kind, n] of Object.entries(more)) into[kind] = (into[kind] ?? 0) + n;
  const sorted = Object.entries(into).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const key of Object.keys(into)) delete into[key];
  for (const [kind, n] of sorted) into[kind] = n;
  return into;
}

/** Total number of redactions. */
export function countTotal(counts: RedactionCounts): number {
  return Object.values(counts).reduce((n, k) => n + k, 0);
}
