/**
 * Tool-argument validation against the shared TypeBox schemas, for every
 * host that takes arguments it did not type itself (MCP calls, the CLI's
 * JSON input). A caller that gets them wrong gets a result naming each bad
 * field, so it can retry;
 * TypeBox's raw errors (one per union branch, a `false` schema per unknown
 * key) are folded into one problem per field.
 */
import type { TSchema } from "typebox";
import { Value } from "typebox/value";

type ValidationError = ReturnType<typeof Value.Errors>[number];

/** One invalid argument: `field` is its path (`tags/0`), or `(arguments)` for the whole object. */
export interface ArgumentProblem {
  field: string;
  message: string;
}

const WHOLE = "(arguments)";

function fieldOf(instancePath: string, key?: string): string {
  const parts = instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
  if (key !== undefined) parts.push(key);
  return parts.length === 0 ? WHOLE : parts.join("/");
}

/** The problems of `value` against `schema`; empty when it is valid. */
export function argumentProblems(schema: TSchema, value: unknown): ArgumentProblem[] {
  if (Value.Check(schema, value)) return [];
  const errors: ValidationError[] = Value.Errors(schema, value);
  // A union of literals fails once per branch; gather them into one "one of" message.
  const allowed = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword === "const") {
      const list = allowed.get(e.instancePath) ?? [];
      list.push(e.params.allowedValue);
      allowed.set(e.instancePath, list);
    }
  }
  const problems: ArgumentProblem[] = [];
  const add = (field: string, message: string) => {
    if (!problems.some((p) => p.field === field && p.message === message))
      problems.push({ field, message });
  };
  // Errors of a union's branches are reported once, by the union's anyOf error.
  const inBranch = (e: ValidationError) =>
    errors.some(
      (o) =>
        o.keyword === "anyOf" &&
        o.instancePath === e.instancePath &&
        e.schemaPath.startsWith(`${o.schemaPath}/anyOf/`),
    );
  for (const e of errors) {
    if (inBranch(e)) continue;
    switch (e.keyword) {
      case "required":
        for (const key of e.params.requiredProperties)
          add(fieldOf(e.instancePath, key), "is required");
        break;
      case "additionalProperties":
        for (const key of e.params.additionalProperties)
          add(fieldOf(e.instancePath, key), "is not a parameter of this tool");
        break;
      // Reported by the additionalProperties error of the parent object.
      case "boolean":
        break;
      case "const":
        add(fieldOf(e.instancePath), `must be ${JSON.stringify(e.params.allowedValue)}`);
        break;
      case "anyOf": {
        const values = allowed.get(e.instancePath);
        add(
          fieldOf(e.instancePath),
          values ? `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}` : e.message,
        );
        break;
      }
      default:
        add(fieldOf(e.instancePath), e.message);
    }
  }
  return problems;
}

/** Quotes a field for a message: `"query"`, `"tags/0"`; the whole object is just "arguments". */
function quoted(field: string): string {
  return field === WHOLE ? "arguments" : JSON.stringify(field);
}

/** One line naming every problem, for a client (or a model) to fix its call. */
export function describeProblems(tool: string, problems: ArgumentProblem[]): string {
  const parts = problems.map((p) => `${quoted(p.field)} ${p.message}`);
  return `${tool}: invalid arguments, nothing was done: ${parts.join("; ")}`;
}

/** A call whose arguments do not fit the tool's schema; nothing was run. */
export class InvalidArgumentsError extends Error {
  readonly tool: string;
  readonly problems: ArgumentProblem[];

  constructor(tool: string, problems: ArgumentProblem[]) {
    super(describeProblems(tool, problems));
    this.name = "InvalidArgumentsError";
    this.tool = tool;
    this.problems = problems;
  }
}
