/**
 * The OKF activity log (`wiki/log.md`) writes each event's detail as
 * canonical JSON inert on a Markdown line: an underscore inside a word
 * (`source_id`, `page_type`) can neither open nor close emphasis, so it is
 * written as it is — never `source\u005fid`; one at a word's edge still is
 * escaped. Every rendering parses back to the same value. Inputs are random
 * each run; a failing one is printed.
 */
import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { renderOkfLog } from "../extensions/llm-wiki/lib/views/activity-log.ts";
import { canonicalJson } from "../extensions/llm-wiki/lib/views/markdown-text.ts";

const PIECES = ["_", "__", "a", "id", "source", "Z9", "é", "日本", " ", "*", "-", "1", "`", "_x_"];

function randomKey(): string {
  let out = "";
  for (let i = randomInt(1, 7); i > 0; i--) out += PIECES[randomInt(PIECES.length)];
  return out;
}

/** Every raw `_` left in `json` sits between two letters or digits. */
function rawUnderscoresInWords(json: string): boolean {
  return [...json.matchAll(/_/g)].every(
    (m) =>
      /[\p{L}\p{N}]/u.test(json.charAt((m.index ?? 0) - 1)) &&
      /[\p{L}\p{N}]/u.test(json.charAt((m.index ?? 0) + 1)),
  );
}

describe("underscores in the activity log's JSON", () => {
  it("writes source_id as it is, in the canonical JSON and in wiki/log.md", () => {
    expect(canonicalJson({ source_id: "SRC-2026-01-02-001", page_type: "concept" })).toBe(
      '{"page_type":"concept","source_id":"SRC-2026-01-02-001"}',
    );
    const log = renderOkfLog([
      {
        time: Date.parse("2026-01-02T03:04:05Z"),
        ts: "2026-01-02T03:04:05Z",
        kind: "ingest",
        detail: { source_id: "SRC-2026-01-02-001" },
        line: 1,
      },
    ]);
    expect(log).toContain('"source_id":"SRC-2026-01-02-001"');
    expect(log).not.toContain("\\u005f");
  });

  it("still escapes an underscore that could open or close emphasis", () => {
    expect(canonicalJson({ _private_: "_x_" })).toBe('{"\\u005fprivate\\u005f":"\\u005fx\\u005f"}');
  });

  it("parses back to the same value, keeping only in-word underscores raw, on random keys", () => {
    for (let i = 0; i < 300; i++) {
      const value = { [randomKey()]: randomKey(), nested: { [randomKey()]: [randomKey()] } };
      const json = canonicalJson(value);
      const context = `case ${i}: ${JSON.stringify(value)} → ${json}`;
      expect(JSON.parse(json), context).toEqual(value);
      expect(rawUnderscoresInWords(json), context).toBe(true);
    }
  });
});
