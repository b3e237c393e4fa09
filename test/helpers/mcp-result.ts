/**
 * The machine-readable result of an MCP tool answer as a client reads it:
 * recall, priming, search and status carry it in `_meta` (their answer is
 * the text alone), every other tool in `structuredContent`.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { RESULT_META_KEY } from "../../mcp/server.ts";

/** The result of a text-only answer (recall, priming, search, status); throws when it has none. */
export function metaResult<T = Record<string, unknown>>(result: CallToolResult): T {
  const value = result._meta?.[RESULT_META_KEY];
  if (value === undefined || value === null || typeof value !== "object")
    throw new Error(`no ${RESULT_META_KEY} in the answer's _meta`);
  return value as T;
}
