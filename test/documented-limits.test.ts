/**
 * What the docs promise about how much unasked memory holds is what the
 * code does: each sentence is built from the constants the code runs on
 * (bundles per automatic recall, evidence and qualifiers per bundle, cards
 * of one type, the character budget, priming's notes and characters) and
 * must stand in the docs word for word, so a change to either side that
 * forgets the other fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AUTOMATIC_TYPE_CAP,
  MAX_EVIDENCE,
  MAX_QUALIFIERS,
} from "../extensions/llm-wiki/lib/assembly/bundles.ts";
import {
  AUTOMATIC_POLICY,
  PRIMING_MAX_CHARS,
  PRIMING_MAX_NOTES,
} from "../extensions/llm-wiki/lib/retrieval-policy.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { TOOL_DESCRIPTIONS } from "../extensions/llm-wiki/lib/tool-schemas.ts";

const REPO = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(REPO, path), "utf8").replace(/\s+/g, " ");
const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
const word = (n: number) => WORDS[n] ?? String(n);
const thousands = (n: number) => n.toLocaleString("en-US");

describe("documented limits of automatic recall", () => {
  it("README: bundles, their contents and the character budget", () => {
    expect(read("README.md")).toContain(
      `automatic recall (at most ${word(AUTOMATIC_POLICY.maxResults)} memory bundles, each a page with at most ${word(MAX_EVIDENCE)} pieces of evidence, at most ${word(MAX_QUALIFIERS)} qualifiers, the claims it replaced and every claim that contradicts it, all within ${thousands(DEFAULT_SETTINGS.recallMaxChars)} characters (\`recallMaxChars\`)`,
    );
  });

  it("architecture: evidence, qualifiers, cards of one type and bundles", () => {
    const doc = read("docs/architecture.md");
    expect(doc).toContain(
      `at most ${word(MAX_EVIDENCE)} pieces of evidence (\`supports\` in, \`derived_from\` out; pages retrieval also found first), at most ${word(MAX_QUALIFIERS)} qualifiers`,
    );
    expect(doc).toContain(
      `Automatic recall keeps at most ${word(AUTOMATIC_TYPE_CAP)} cards of one page type and ${word(AUTOMATIC_POLICY.maxResults)} bundles`,
    );
  });

  it("priming: notes and characters in the README, the API doc and the tool's description", () => {
    const promise = `at most ${PRIMING_MAX_NOTES} notes`;
    expect(read("README.md")).toContain(`${promise}, ${thousands(PRIMING_MAX_CHARS)} characters`);
    expect(read("docs/api.md")).toContain(
      `${promise} in ${thousands(PRIMING_MAX_CHARS)} characters`,
    );
    expect(TOOL_DESCRIPTIONS.wiki_prime).toContain(promise);
  });
});
