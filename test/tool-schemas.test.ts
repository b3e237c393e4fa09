/**
 * The tool schemas every host serves (Pi's tools, MCP's `tools/list`): each
 * parameter says what it is for, and each schema passes the checks strict
 * MCP clients apply (no catch-all property pattern without a rule, objects
 * that say whether other keys are allowed).
 */
import { describe, expect, it } from "vitest";
import { TOOLS } from "../mcp/tools.ts";

type Schema = Record<string, unknown>;

/** Every problem a strict checker would report in `schema`, with where. */
function problems(schema: Schema, at: string): string[] {
  const found: string[] = [];
  const patterns = schema.patternProperties as Record<string, Schema> | undefined;
  for (const [pattern, rule] of Object.entries(patterns ?? {})) {
    if (Object.keys(rule).length === 0) found.push(`${at}: pattern ${pattern} has no rule`);
  }
  const properties = schema.properties as Record<string, Schema> | undefined;
  for (const [name, property] of Object.entries(properties ?? {})) {
    const where = `${at}.${name}`;
    if (typeof property.description !== "string" || property.description.trim() === "") {
      found.push(`${where}: no description`);
    }
    found.push(...problems(property, where));
  }
  const items = schema.items as Schema | undefined;
  if (items !== undefined) found.push(...problems(items, `${at}[]`));
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const members = schema[key] as Schema[] | undefined;
    for (const [i, member] of (members ?? []).entries()) {
      found.push(...problems(member, `${at}<${key}${i}>`));
    }
  }
  return found;
}

describe("tool schemas", () => {
  it("describe every parameter of every tool and pass a strict schema check", () => {
    expect(TOOLS.length).toBeGreaterThan(5);
    const found = TOOLS.flatMap((tool) => {
      const schema = tool.inputSchema as unknown as Schema;
      const own = schema.type === "object" ? [] : [`${tool.name}: input is not an object schema`];
      return [...own, ...problems(schema, tool.name)];
    });
    expect(found).toEqual([]);
  });
});
