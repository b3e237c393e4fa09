/**
 * Every call the older system's tools (`@zosmaai/pi-llm-wiki` 0.12.2) could
 * be given fits ours: each older tool's schema is read from the installed
 * package (its own `registerWiki…` functions, handed a recording stand-in
 * for Pi), a call holding every one of its parameters is generated from that
 * schema (fresh values each run), and the tool of the same name here (the
 * MCP server's table, which Pi's tools share) accepts it and maps it to our
 * parameters without a refusal. A parameter the older system added later
 * fails here until it is mapped or refused on purpose.
 */

import { Value } from "typebox/value";
import { describe, expect, it } from "vitest";
import { mapLegacyArguments } from "../extensions/llm-wiki/lib/legacy-arguments.ts";
import { TOOLS } from "../mcp/tools.ts";
import { TRAJECTORY_MCP_TOOLS } from "../mcp/trajectory-tools.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";

const OLD_LIB = "@zosmaai/pi-llm-wiki/dist/extensions/llm-wiki/lib";

/** The JSON Schema subset the older TypeBox schemas use. */
interface JsonSchema {
  type?: string;
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

interface OldTool {
  name: string;
  parameters: JsonSchema;
}

/** Every tool the older extension registers, with its parameters, by name. */
async function olderTools(): Promise<Map<string, OldTool>> {
  const tools = new Map<string, OldTool>();
  const pi = {
    registerTool: (tool: OldTool) => tools.set(tool.name, tool),
    registerCommand: () => undefined,
    on: () => undefined,
    sendMessage: () => undefined,
  };
  for (const file of ["tools", "recall", "observation", "retro", "trajectory"]) {
    const lib = (await import(`${OLD_LIB}/${file}.js`)) as Record<string, unknown>;
    for (const [name, register] of Object.entries(lib)) {
      if (
        name.startsWith("registerWiki") &&
        !name.endsWith("Command") &&
        typeof register === "function"
      )
        (register as (pi: unknown) => void)(pi);
    }
  }
  return tools;
}

/** Values an older agent would send where a free string would not do (the older text says which). */
const CHOSEN: Record<string, () => unknown> = {
  // "daily, weekly, hourly, or stop"
  "wiki_watch.interval": () => ["daily", "weekly", "hourly", "stop"][Math.floor(Math.random() * 4)],
  // "Event kind (e.g., ingest, query, decision)"
  "wiki_log_event.kind": () => ["ingest", "query", "decision"][Math.floor(Math.random() * 3)],
  // "'provider/id'"
  "wiki_ingest.model": () => `${randomWord()}/${randomWord()}`,
};

/** A value for `schema` (the property `path`, `tool.name` at the top) holding every optional property. */
function sample(schema: JsonSchema, path = ""): unknown {
  const chosen = CHOSEN[path];
  if (chosen) return chosen();
  if (schema.const !== undefined) return schema.const;
  if (schema.anyOf) {
    const branch = schema.anyOf[Math.floor(Math.random() * schema.anyOf.length)] as JsonSchema;
    return sample(branch);
  }
  switch (schema.type) {
    case "string":
      return randomWords(2);
    case "number":
    case "integer":
      return 1 + Math.floor(Math.random() * 5);
    case "boolean":
      return Math.random() < 0.5;
    case "array":
      return schema.items ? [sample(schema.items)] : [];
    case "object":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, s]) => [k, sample(s, `${path}.${k}`)]),
      );
    default:
      return { [randomWord()]: randomWords(1) };
  }
}

describe("the older system's tool schemas against ours", () => {
  it("lists the tools we expect to read from the older package", async () => {
    const names = [...(await olderTools()).keys()].sort();
    expect(names).toEqual(
      expect.arrayContaining([
        "wiki_bootstrap",
        "wiki_capture_source",
        "wiki_capture_trajectory",
        "wiki_distill_skills",
        "wiki_ensure_page",
        "wiki_ingest",
        "wiki_lint",
        "wiki_log_event",
        "wiki_observe",
        "wiki_rebuild_meta",
        "wiki_recall",
        "wiki_recall_skill",
        "wiki_reindex",
        "wiki_reindex_embeddings",
        "wiki_retro",
        "wiki_search",
        "wiki_status",
        "wiki_watch",
      ]),
    );
  });

  it("accepts a call with every parameter of every older tool and maps it to ours", async () => {
    const ours = new Map([...TOOLS, ...TRAJECTORY_MCP_TOOLS].map((t) => [t.name as string, t]));
    for (const [name, old] of await olderTools()) {
      const tool = ours.get(name);
      expect(tool, `${name} is not a tool here`).toBeDefined();
      if (!tool) continue;
      // Several draws: unions pick a different branch each time.
      for (let draw = 0; draw < 4; draw += 1) {
        const args = sample(old.parameters, name) as Record<string, unknown>;
        const note = `${name} ${JSON.stringify(args)}`;
        const errors = [...Value.Errors(tool.inputSchema, args)].map(
          (e) => `${e.instancePath} ${e.message}`,
        );
        expect(errors, note).toEqual([]);
        const mapped = mapLegacyArguments(name, args);
        expect(mapped.ok ? [] : mapped.problems, note).toEqual([]);
      }
    }
  });
});
