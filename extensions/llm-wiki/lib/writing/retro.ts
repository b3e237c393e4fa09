/**
 * `retro`: what a finished task taught, as an evidence page of type `retro`
 * under `wiki/sources/` with fixed sections (context, what went well, what
 * went badly, lessons), so later sessions recall the lessons and lint can
 * find retros by type. Created, never overwritten (see `unique-page.ts`).
 */
import type { VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactText } from "../vault/redaction.ts";
import { cleanList, cleanText, cleanTitle, invalid } from "./input.ts";
import { createUniquePage, type WrittenPageResult } from "./unique-page.ts";

/** One bullet of a retro section may be a few sentences, not a whole page. */
const MAX_BULLET_CHARS = 2_000;

export interface RetroInput {
  title: string;
  /** The task this looks back on. */
  context?: string;
  went_well?: string[];
  went_badly?: string[];
  /** At least one: the reason a retro exists. */
  lessons: string[];
  tags?: string[];
  sources?: string[];
  /** Other names the page is found by (an older retro's `slug`). */
  aliases?: string[];
}

function section(heading: string, items: string[]): string[] {
  return items.length === 0 ? [] : [`## ${heading}`, "", ...items.map((i) => `- ${i}`), ""];
}

/** Writes the retro page and logs `retro_recorded`. Throws `WikiError` on bad input. */
export function recordRetro(
  vault: VaultPaths,
  input: RetroInput,
  now: Date = new Date(),
): WrittenPageResult {
  // Each field alone, before it becomes a heading or a bullet: the `- ` in
  // front of a line can hide what makes it a secret (a pgpass line).
  const redacted: RedactionCounts = {};
  const clean = (items: string[]) => items.map((item) => redactText(item, redacted));
  const title = redactText(cleanTitle(input.title), redacted);
  const context = redactText(cleanText(input.context, "context", false), redacted);
  const wentWell = clean(cleanList(input.went_well, "went_well", MAX_BULLET_CHARS));
  const wentBadly = clean(cleanList(input.went_badly, "went_badly", MAX_BULLET_CHARS));
  const lessons = clean(cleanList(input.lessons, "lessons", MAX_BULLET_CHARS));
  if (lessons.length === 0) invalid("lessons", "needs at least one lesson");
  const tags = cleanList(input.tags, "tags");
  const sources = cleanList(input.sources, "sources");
  const aliases = cleanList(input.aliases, "aliases");
  const body = [
    `# ${title}`,
    "",
    ...(context === "" ? [] : ["## Context", "", context, ""]),
    ...section("What went well", wentWell),
    ...section("What went badly", wentBadly),
    ...section("Lessons", lessons),
  ].join("\n");
  return createUniquePage(
    vault,
    {
      prefix: "retro",
      type: "retro",
      title,
      // `insight` is what older vaults gave retros; lint and recall read it as evidence.
      status: "insight",
      tags,
      sources,
      ...(aliases.length > 0 ? { fields: { aliases } } : {}),
      body,
      redacted,
      recorded: { kind: "retro_recorded", lessons: lessons.length },
    },
    now,
  );
}
