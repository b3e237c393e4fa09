#!/usr/bin/env node
// `llm-wiki-mcp`: checks the Node version, then runs the stdio MCP server.
// Nothing here writes to stdout: it belongs to the protocol.
import { entryUrl, requireSupportedNode } from "./node-check.js";

requireSupportedNode("llm-wiki-mcp");
await import(entryUrl("mcp/index"));
