/**
 * Redaction of what a write carries besides plain text: frontmatter values
 * and event details are nested (lists, maps), and a secret in a key or in a
 * list item is as much a leak as one in a body. Every page and event write
 * passes its values through here (the redact and render stages of
 * writing/write-page-pipeline.ts, and event-line.ts), so the hosts never
 * redact anything themselves.
 */
import { diagnostic, WikiError } from "../diagnostics.ts";
import { type KeyedValue, redactKeyed } from "../safety/keyed-redaction.ts";
import {
  addCounts,
  countTotal,
  type Redacted,
  type RedactionCounts,
  redactSecrets,
} from "../safety/redact.ts";
import { readFrontmatter, writeFrontmatter } from "./frontmatter.ts";

export type { RedactionCounts } from "../safety/redact.ts";

/**
 * Texts already redacted in one write, by text. Redaction is a function of
 * the text alone, and the events of one write repeat most of their keys and
 * values (a recall's "shown" events differ in the page and its rank): each
 * distinct text is scanned once, and its counts still added each time it
 * occurs. Made per write, never kept.
 */
export type RedactionMemo = Map<string, Redacted>;

/** `text` with its secrets redacted; what was taken out is added to `counts`. */
export function redactText(text: string, counts: RedactionCounts, memo?: RedactionMemo): string {
  let out = memo?.get(text);
  if (out === undefined) {
    out = redactSecrets(text);
    memo?.set(text, out);
  }
  if (countTotal(out.counts) > 0) addCounts(counts, out.counts);
  return out.text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `value` with every string inside it redacted on its own, keys of maps included. */
function redactEach<T>(value: T, counts: RedactionCounts, memo?: RedactionMemo): T {
  if (typeof value === "string") return redactText(value, counts, memo) as T;
  if (Array.isArray(value))
    return value.map((item: unknown) => redactEach(item, counts, memo)) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[redactText(key, counts, memo)] = redactEach(child, counts, memo);
    }
    return out as T;
  }
  return value;
}

/** A scalar inside a value, the name of the map entry it stands under, and how to replace it. */
interface KeyedLeaf extends KeyedValue {
  set: (value: string) => void;
}

/** Every string and number under a map key in `value` (list items take their list's key). */
function keyedLeaves(value: unknown, key: string | undefined, leaves: KeyedLeaf[]): unknown {
  if (Array.isArray(value)) {
    const out = [...value];
    out.forEach((item, i) => {
      out[i] = keyedLeaves(item, key, leaves);
      if (key !== undefined && isScalar(item)) {
        leaves.push({ key, value: String(item), set: (v) => (out[i] = v) });
      }
    });
    return out;
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(value)) {
      out[name] = keyedLeaves(child, name, leaves);
      if (isScalar(child))
        leaves.push({ key: name, value: String(child), set: (v) => (out[name] = v) });
    }
    return out;
  }
  return value;
}

function isScalar(value: unknown): value is string | number | bigint {
  return (
    typeof value === "string" ||
    typeof value === "bigint" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

/**
 * `value` with every string inside it redacted, keys of maps included, and
 * every string or number redacted once more beside its key (`db_password`,
 * `aws_secret_access_key`: a value that is a secret only under its name). A
 * secret found there replaces the whole value when its redacted form cannot
 * be taken back out (see `redactKeyed`): never the raw value. Anything else
 * (dates, booleans) is kept as it is. Returns a copy; counts go into `counts`.
 * `memo`: the write's texts already redacted (see `RedactionMemo`).
 */
export function redactValue<T>(value: T, counts: RedactionCounts, memo?: RedactionMemo): T {
  const each = redactEach(value, counts, memo);
  const leaves: KeyedLeaf[] = [];
  const copy = keyedLeaves(each, undefined, leaves) as T;
  if (leaves.length === 0) return copy;
  const keyed = redactKeyed(leaves);
  if (countTotal(keyed.counts) === 0) return copy;
  addCounts(counts, keyed.counts);
  leaves.forEach((leaf, i) => {
    const redacted = keyed.values[i];
    if (redacted !== undefined && redacted !== leaf.value) leaf.set(redacted);
  });
  return copy;
}

/** How one record is written as text, and read back: undefined when the text does not parse. */
export interface RecordFormat {
  render: (fields: Record<string, unknown>) => string;
  /** Some fields alone, without what else the text carries (a page's body); `render` when absent. */
  alone?: (fields: Record<string, unknown>) => string;
  parse: (text: string) => Record<string, unknown> | undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}

/** A page: front matter `fields` over `body` (already redacted). */
export function pageFormat(body: string): RecordFormat {
  return {
    render: (fields) => writeFrontmatter(body, fields),
    alone: (fields) => writeFrontmatter("", fields),
    parse: (text) => {
      try {
        return asRecord(readFrontmatter(text).data);
      } catch {
        return undefined;
      }
    },
  };
}

/** One line of JSON (an event of the log). */
export const JSON_LINE: RecordFormat = {
  render: (fields) => JSON.stringify(fields),
  parse: (text) => {
    try {
      return asRecord(JSON.parse(text));
    } catch {
      return undefined;
    }
  },
};

/** The `[REDACTED:<kind>]` marks for `counts`, in one string: what a value masked whole becomes. */
function wholeMark(found: RedactionCounts): string {
  return Object.keys(found)
    .map((kind) => `[REDACTED:${kind}]`)
    .join(" ");
}

/** Whether `text` parses in `format` to the same field names as `fields`. */
function keepsFields(text: string, format: RecordFormat, fields: Record<string, unknown>): boolean {
  const parsed = format.parse(text);
  if (parsed === undefined) return false;
  const names = Object.keys(fields);
  const back = Object.keys(parsed);
  return back.length === names.length && names.every((name) => Object.hasOwn(parsed, name));
}

/**
 * The text of `fields` (already redacted value by value, see `redactValue`),
 * redacted once more as a whole: a secret may show only in the written
 * shape (a key and its value on one line). The whole-text result is taken
 * when it still parses to the same fields. When it does not (a mark took a
 * quote, a key or a line break with it), the redaction fails closed: each
 * field whose own text holds a secret gets its whole value masked; if the
 * text still holds a secret that breaks it, every field is masked; and if
 * even that does not parse clean, the write is refused. Never the text as it
 * was before this redaction.
 */
export function redactRecord(
  fields: Record<string, unknown>,
  format: RecordFormat,
  counts: RedactionCounts,
): string {
  const text = format.render(fields);
  const again = redactSecrets(text);
  if (countTotal(again.counts) === 0) return text;
  if (keepsFields(again.text, format, fields)) {
    addCounts(counts, again.counts);
    return again.text;
  }
  const masked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const alone = redactSecrets((format.alone ?? format.render)({ [name]: value })).counts;
    masked[name] = countTotal(alone) > 0 ? wholeMark(alone) : value;
  }
  for (const attempt of [masked, maskAll(fields, again.counts)]) {
    const retext = format.render(attempt);
    const last = redactSecrets(retext);
    if (countTotal(last.counts) === 0 || keepsFields(last.text, format, attempt)) {
      addCounts(counts, again.counts);
      return last.text;
    }
  }
  throw new WikiError(
    diagnostic(
      "redaction_failed",
      "error",
      "not written: a secret could not be redacted without breaking the text around it",
    ),
  );
}

/** Every field's value masked whole, its name kept. */
function maskAll(fields: Record<string, unknown>, found: RedactionCounts): Record<string, unknown> {
  return Object.fromEntries(Object.keys(fields).map((name) => [name, wholeMark(found)]));
}

/** The sum of several counts, keys sorted; a new object. */
export function sumCounts(...all: Array<RedactionCounts | undefined>): RedactionCounts {
  const sum: RedactionCounts = {};
  for (const counts of all) if (counts !== undefined) addCounts(sum, counts);
  return sum;
}

/** `{ redactions }` to spread into a result or event, or nothing when no secret was found. */
export function redactionsField(counts: RedactionCounts): { redactions?: RedactionCounts } {
  return countTotal(counts) > 0 ? { redactions: counts } : {};
}
