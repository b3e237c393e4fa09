/** The clients `llm-wiki setup` knows, by the name on its command line. */
import { claudeCodePlan } from "./claude-code.ts";
import { codexPlan } from "./codex.ts";
import { cursorPlan } from "./cursor.ts";
import { geminiPlan } from "./gemini.ts";
import { opencodePlan } from "./opencode.ts";
import type { ClientPlan, SetupCommand, SetupPlaces, SetupScope } from "./setup-types.ts";

type PlanBuilder = (scope: SetupScope, command: SetupCommand, places: SetupPlaces) => ClientPlan;

export const SETUP_CLIENTS: Readonly<Record<string, PlanBuilder>> = {
  "claude-code": claudeCodePlan,
  codex: codexPlan,
  gemini: geminiPlan,
  cursor: cursorPlan,
  opencode: opencodePlan,
};

/** The plan for `client`, or undefined for a client we do not know. */
export function clientPlan(
  client: string,
  scope: SetupScope,
  command: SetupCommand,
  places: SetupPlaces,
): ClientPlan | undefined {
  if (!Object.hasOwn(SETUP_CLIENTS, client)) return undefined;
  return SETUP_CLIENTS[client]?.(scope, command, places);
}
