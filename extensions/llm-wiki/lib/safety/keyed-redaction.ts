/**
 * Redaction of structured values in the context of their key. Many secrets
 * are recognised only beside their name (`"password": "…"`); once a JSON
 * value or an XML element becomes a Markdown list item, or when the source
 * spelt it in a way the text scan cannot see (`<password>…</password>`, a
 * `\u0041…` escape), that context is gone. Each value is therefore scanned
 * as the line `"key": "value"`, all of them in one pass (one scan per value
 * would cost seconds on a large document).
 */
import { addCounts, countTotal, type RedactionCounts, redactSecrets } from "./redact.ts";

/** One value and the name it stands under. */
export interface KeyedValue {
  key: string;
  value: string;
}

/** The values, redacted where a secret was found, in the order given. */
export interface KeyedRedaction {
  values: string[];
  counts: RedactionCounts;
}

function asLine(pair: KeyedValue): string {
  return `${JSON.stringify(pair.key)}: ${JSON.stringify(pair.value)}`;
}

/** The value back out of a redacted line; the whole value masked when the line no longer parses. */
function redactedValue(line: string, counts: RedactionCounts): string {
  try {
    const parsed = JSON.parse(`{${line}}`) as Record<string, unknown>;
    const value = Object.values(parsed)[0];
    if (typeof value === "string") return value;
  } catch {
    // The mark took a quote with it: mask the value whole.
  }
  return Object.keys(counts)
    .map((kind) => `[REDACTED:${kind}]`)
    .join(" ");
}

/** Redacts every value as `"key": "value"`; values without a secret come back unchanged. */
export function redactKeyed(pairs: readonly KeyedValue[]): KeyedRedaction {
  const lines = pairs.map(asLine);
  const whole = redactSecrets(lines.join("\n"));
  if (countTotal(whole.counts) === 0) return { values: pairs.map((p) => p.value), counts: {} };
  const out = whole.text.split("\n");
  const counts: RedactionCounts = {};
  const values = pairs.map((pair, i) => {
    const line = lines[i] as string;
    // Same line count: a mark never spans lines here, so line i is value i.
    if (out.length === lines.length && out[i] === line) return pair.value;
    const one = redactSecrets(line);
    if (countTotal(one.counts) === 0) return pair.value;
    addCounts(counts, one.counts);
    return redactedValue(one.text, one.counts);
  });
  return { values, counts };
}
