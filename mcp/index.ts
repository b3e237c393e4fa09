#!/usr/bin/env node
/**
 * `llm-wiki-mcp`: the stdio MCP server (bin entry). stdout is reserved for
 * the protocol before anything else is loaded, so nothing a library prints
 * while loading or running can corrupt the stream.
 */
import { enableCodeCache } from "../extensions/llm-wiki/lib/compile-cache.ts";
import { reserveStdoutForProtocol } from "./stdout-guard.ts";

// Before the rest is loaded, so the cache covers it.
enableCodeCache();
const protocolOut = reserveStdoutForProtocol();
// A rejection nobody handled (pdf.js after a capture's deadline) is logged, never the end of the server.
const { reportUnhandledRejections } = await import("../extensions/llm-wiki/lib/late-rejections.ts");
reportUnhandledRejections((line) => process.stderr.write(`llm-wiki-mcp: ${line}\n`));
// Loaded only now: static imports would run (and could print) before the guard.
const { main } = await import("./main.ts");
const { staleBuildNotice } = await import("../extensions/llm-wiki/lib/stale-build.ts");
// `..` of the entry: `dist/` for the bundle (the sources have no build record).
const stale = staleBuildNotice(new URL("..", import.meta.url));
if (stale) process.stderr.write(`llm-wiki-mcp: ${stale}\n`);
const code = await main(process.argv.slice(2), protocolOut);
// Native model libraries may hold handles open; the server is done, so leave.
process.exit(code);
