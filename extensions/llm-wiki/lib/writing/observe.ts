/**
 * `observe`: records one thing learned during a session (a decision, a root
 * cause, a constraint) as an evidence page of type `observation` under
 * `wiki/sources/`, to be distilled into canonical pages later. Created,
 * never overwritten: see `unique-page.ts` for how repeats are told apart.
 */
import type { VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactText } from "../vault/redaction.ts";
import { cleanList, cleanText, cleanTitle, invalid } from "./input.ts";
import { createUniquePage, type WrittenPageResult } from "./unique-page.ts";

export const RELEVANCE = ["low", "medium", "high", "critical"] as const;
export type Relevance = (typeof RELEVANCE)[number];

export interface ObserveInput {
  title: string;
  /** What happened, was decided or was learned; Markdown. */
  content: string;
  tags?: string[];
  /** Source ids or page ids the observation rests on. */
  sources?: string[];
  /** How much it matters later (older vaults carry this field too). */
  relevance?: Relevance;
  /** What was being worked on when it was observed (the older system's `source_context`). */
  context?: string;
}

/** Writes the observation page and logs `observation_recorded`. Throws `WikiError` on bad input. */
export function recordObservation(
  vault: VaultPaths,
  input: ObserveInput,
  now: Date = new Date(),
): WrittenPageResult {
  // Each field alone, before the title becomes the body's heading.
  const redacted: RedactionCounts = {};
  const title = redactText(cleanTitle(input.title), redacted);
  const content = redactText(cleanText(input.content, "content", true), redacted);
  const tags = cleanList(input.tags, "tags");
  const sources = cleanList(input.sources, "sources");
  // One line, folded as a list item is; kept in the front matter under the older system's name.
  const [context] = cleanList(input.context === undefined ? [] : [input.context], "context", 2_000);
  const sourceContext = context === undefined ? undefined : redactText(context, redacted);
  const relevance = input.relevance;
  if (relevance !== undefined && !RELEVANCE.includes(relevance)) {
    invalid("relevance", `must be one of ${RELEVANCE.join(", ")}`);
  }
  return createUniquePage(
    vault,
    {
      prefix: "obs",
      type: "observation",
      title,
      status: "observation",
      tags,
      sources,
      fields: {
        relevance,
        observed_at: now.toISOString(),
        ...(sourceContext !== undefined ? { source_context: sourceContext } : {}),
      },
      body: `# ${title}\n\n${content}\n${sourceContext !== undefined ? `\nContext: ${sourceContext}\n` : ""}`,
      redacted,
      recorded: { kind: "observation_recorded" },
    },
    now,
  );
}
