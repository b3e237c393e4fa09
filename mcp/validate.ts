/**
 * The shape of an MCP `tools/call` request, checked before the SDK parses
 * it. Arguments are checked against each tool's schema by
 * `lib/tool-arguments.ts`.
 */

/** What a value is, in words, for "must be an object, not …". */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}

/**
 * The shape problem of a `tools/call` request's params, checked before the
 * SDK parses the request (whose own failure is an internal error carrying a
 * raw schema dump): undefined when the name and arguments have the right
 * shape. The arguments themselves are checked against the tool's schema later.
 */
export function toolCallShapeProblem(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    return `tools/call: "params" must be an object with the tool's "name" and its "arguments", not ${kindOf(params)}`;
  }
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string" || name === "")
    return 'tools/call: "name" must be the name of a tool';
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    return `${name}: invalid arguments, nothing was done: arguments must be an object of named parameters, not ${kindOf(args)}`;
  }
  return undefined;
}
