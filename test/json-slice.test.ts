/**
 * One member of a JSON file read without parsing the rest
 * (vault/json-slice.ts): what `JSON.stringify` wrote, found by its key,
 * whatever the key or the strings around it hold.
 */
import { describe, expect, it } from "vitest";
import { memberValue } from "../extensions/llm-wiki/lib/vault/json-slice.ts";

const KEYS = [
  "plain",
  "wiki/concepts/rag.md",
  "__proto__",
  "constructor",
  'quo"te',
  "back\\slash",
  "召回",
  "emoji 🚀",
  "brace}{][",
];

function file(): Buffer {
  const members = Object.fromEntries(
    KEYS.map((key, i) => [key, { n: i, text: `"${key}":{ not a member }`, list: ["]", "}", key] }]),
  );
  return Buffer.from(JSON.stringify({ version: 1, files: members }));
}

describe("memberValue", () => {
  it("finds each member by its key and parses only its value", () => {
    const bytes = file();
    KEYS.forEach((key, i) => {
      expect(memberValue(bytes, key, "{")).toEqual({
        n: i,
        text: `"${key}":{ not a member }`,
        list: ["]", "}", key],
      });
    });
  });

  it("finds nothing for a key that is only inside a string, absent, or outside the range", () => {
    const bytes = file();
    expect(memberValue(bytes, "not a member", "{")).toBeUndefined();
    expect(memberValue(bytes, "absent", "{")).toBeUndefined();
    expect(memberValue(bytes, "plain", "[")).toBeUndefined();
    expect(memberValue(bytes, "plain", "{", 0, 20)).toBeUndefined();
  });

  it("gives nothing for a value cut short", () => {
    const whole = file();
    const cut = whole.subarray(0, whole.indexOf("constructor") + 30);
    expect(memberValue(cut, "constructor", "{")).toBeUndefined();
  });
});
