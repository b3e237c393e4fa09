/**
 * A JSON-RPC error thrown from a request handler; its message goes on the
 * wire as it is (the SDK's McpError would prefix "MCP error <code>: ", which
 * a client then prefixes again).
 */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** MCP's code for a resource that does not exist (the spec's `-32002`). */
export const RESOURCE_NOT_FOUND = -32002;
