/**
 * The stdio server's lifecycle: reads `--vault DIR` (or `LLM_WIKI_VAULT`),
 * creates the shared service, serves MCP over stdin/stdout, starts the
 * background index update after the handshake, and closes everything when
 * stdin ends or a signal arrives. Writes only to stderr; the protocol writer
 * is handed in.
 */
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { packageVersion } from "../extensions/llm-wiki/lib/package-version.ts";
import { renderDiagnostics } from "../extensions/llm-wiki/lib/render-text.ts";
import { loadCliSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { createMcpServer } from "./server.ts";
import { createStartupIndex } from "./startup-index.ts";

const USAGE = `usage: llm-wiki-mcp [--vault DIR]

A stdio MCP server for the llm-wiki vault of the working directory (nearest
.llm-wiki/ upwards, plus the personal vault), or of --vault DIR / $LLM_WIKI_VAULT.
`;

function log(line: string): void {
  process.stderr.write(`llm-wiki-mcp: ${line}\n`);
}

/** Serves until stdin ends or SIGINT/SIGTERM; returns the exit code. */
export async function main(
  argv: string[],
  protocolOut: Writable,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let vault: string | undefined;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { vault: { type: "string" }, help: { type: "boolean" } },
      strict: true,
    });
    if (values.help) {
      // Even usage goes to stderr: stdout belongs to the protocol.
      process.stderr.write(USAGE);
      return 0;
    }
    vault = values.vault ?? (env.LLM_WIKI_VAULT?.trim() || undefined);
  } catch (error) {
    process.stderr.write(`llm-wiki-mcp: ${errorMessage(error)}\n${USAGE}`);
    return 2;
  }

  const { settings, diagnostics } = loadCliSettings(env);
  if (diagnostics.length > 0) process.stderr.write(`${renderDiagnostics(diagnostics)}\n`);
  const service = createWikiService({
    cwd: process.cwd(),
    env,
    settings,
    ...(vault !== undefined ? { vault } : {}),
  });
  const startup = createStartupIndex(service, log);
  const server = createMcpServer(service, {
    version: packageVersion(),
    indexReady: startup.ready,
  });
  // After the handshake, so checking the index never delays `initialize`.
  server.oninitialized = () => startup.start();

  let shuttingDown = false;
  const stopped = new Promise<void>((resolve) => {
    const shutdown = () => {
      if (shuttingDown) return;
      shuttingDown = true;
      void (async () => {
        await startup.stop();
        await server.close().catch(() => {});
        await service
          .close()
          .catch((error: unknown) => log(`close failed: ${errorMessage(error)}`));
        await new Promise<void>((done) => protocolOut.end(done));
      })().finally(resolve);
    };
    process.stdin.once("end", shutdown);
    process.stdin.once("close", shutdown);
    process.once("SIGINT", shutdown);
    process.once("SIGTERM", shutdown);
    // The client went away mid-write (EPIPE): nobody is left to answer.
    protocolOut.once("error", shutdown);
    server.onclose = shutdown;
  });

  await server.connect(new StdioServerTransport(process.stdin, protocolOut));
  await stopped;
  return 0;
}
