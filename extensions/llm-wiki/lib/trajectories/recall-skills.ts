/**
 * "Have I done this before?": the recall input that limits explicit recall
 * to the pages distilled from past work — skills (how a kind of task is
 * done) and cases (one concrete past task). Same retrieval service, same
 * ranking; only the page types differ.
 */
import type { RecallInput } from "../recall-operation.ts";
import type { RetrievalMode } from "../settings.ts";

export const SKILL_KINDS = ["skill", "case", "any"] as const;
export type SkillKind = (typeof SKILL_KINDS)[number];

export interface RecallSkillsInput {
  /** The task at hand, in words. */
  query: string;
  /** `skill`, `case` or `any` (default). */
  kind?: SkillKind;
  maxResults?: number;
  mode?: RetrievalMode;
  signal?: AbortSignal;
}

/** The explicit recall `input` stands for. */
export function recallSkillsInput(input: RecallSkillsInput): RecallInput {
  const kind = input.kind ?? "any";
  return {
    query: input.query,
    policy: "explicit",
    types: kind === "any" ? ["skill", "case"] : [kind],
    ...(input.maxResults !== undefined ? { maxResults: input.maxResults } : {}),
    ...(input.mode ? { mode: input.mode } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };
}
