/**
 * Lets a Pi tool take the older system's tool-call shapes: the call's older
 * parameter names are mapped to ours before the tool runs (the same mapping
 * as the MCP server's, `legacy-arguments.ts`), and what was done instead of
 * an option without an equivalent is added to the answer. An alias given
 * with a different value than our own name is refused before anything runs.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { TSchema } from "typebox";
import { mapLegacyArguments, withMappingNotes } from "../lib/legacy-arguments.ts";
import { InvalidArgumentsError } from "../lib/tool-arguments.ts";

/** `tool`, taking the older parameter names its schema lists as aliases. */
export function acceptingOlderArguments<P extends TSchema, D>(
  tool: ToolDefinition<P, D>,
): ToolDefinition<P, D> {
  const run = tool.execute.bind(tool);
  return {
    ...tool,
    async execute(toolCallId, params, signal, onUpdate, ctx) {
      const mapped = mapLegacyArguments(tool.name, params);
      // Pi turns a thrown error into an error result naming it.
      if (!mapped.ok) throw new InvalidArgumentsError(tool.name, mapped.problems);
      const result = await run(toolCallId, mapped.args, signal, onUpdate, ctx);
      if (mapped.notes.length === 0) return result;
      const notes = withMappingNotes("", mapped.notes).trimStart();
      return { ...result, content: [...result.content, { type: "text", text: notes }] };
    },
  };
}
