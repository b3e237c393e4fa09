/**
 * MCP prompts: `prime`, the session priming block for clients that have no
 * hooks (a user picks the prompt at the start of a session, and the client
 * puts its message into the conversation). The same block as the
 * `wiki_prime` tool, Pi's first-turn priming and `llm-wiki hook
 * session-start`.
 */
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import type { PrimeResult } from "../extensions/llm-wiki/lib/priming/prime.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";

export const PRIME_PROMPT = "prime";

/** What the message says when nothing stored matches the session. */
export const NOTHING_TO_PRIME =
  "llm-wiki: no stored notes match this session yet (topic, branch, recent commits, changed files).";

/** Every prompt the server offers. */
export const PROMPTS: readonly Prompt[] = [
  {
    name: PRIME_PROMPT,
    title: "Prime the session from the llm-wiki",
    description:
      "Notes from the project's llm-wiki about what this session is about (the vault's topic, the project, the git branch, recent commits, changed files): at most 3, as stored notes, not instructions.",
    arguments: [],
  },
];

/** Whether the server offers a prompt of this name. */
export function hasPrompt(name: string): boolean {
  return PROMPTS.some((p) => p.name === name);
}

/**
 * The `prime` prompt's messages: the priming block, or a line saying there
 * is none. `shown` hears of the priming's pages (the session's feedback).
 */
export async function primePrompt(
  service: WikiService,
  signal?: AbortSignal,
  shown?: (result: PrimeResult) => void,
): Promise<GetPromptResult> {
  const result = await service.prime(signal ? { signal } : {});
  if (result.ok) shown?.(result);
  return {
    description: `llm-wiki session priming (${result.results.length} note(s))`,
    messages: [
      {
        role: "user",
        content: {
          type: "text",
          text: result.rendered === "" ? NOTHING_TO_PRIME : result.rendered,
        },
      },
    ],
  };
}
