/**
 * The stdio server's lifecycle: reads `--vault DIR` (or `LLM_WIKI_VAULT`),
 * creates the shared service, serves MCP over stdin/stdout, starts the
 * background index update after the handshake, and when stdin ends or a
 * signal arrives stops reading, cancels what runs and closes everything
 * within a hard deadline. Writes only to stderr; the protocol writer is
 * handed in.
 */
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { packageVersion } from "../extensions/llm-wiki/lib/package-version.ts";
import { renderDiagnostics } from "../extensions/llm-wiki/lib/render-text.ts";
import { loadCliSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { refreshProblems } from "../extensions/llm-wiki/lib/views/views-follow.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { createMcpServer, screenRequest } from "./server.ts";
import { createStartupIndex } from "./startup-index.ts";
import { LineTransport } from "./stdio-transport.ts";

const USAGE = `usage: llm-wiki-mcp [--vault DIR]

A stdio MCP server for the llm-wiki vault of the working directory (nearest
.llm-wiki/ upwards, plus the personal vault), or of --vault DIR / $LLM_WIKI_VAULT.
`;

/** From the client leaving to the process exiting, cleanup included. */
const SHUTDOWN_DEADLINE_MS = 2_000;

function log(line: string): void {
  process.stderr.write(`llm-wiki-mcp: ${line}\n`);
}

/** Serves until stdin ends or SIGINT/SIGTERM; returns the exit code (1 when cleanup overran its deadline). */
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
    // The first recalls read the index with the SQLite driver alone: loading
    // QMD's modules and opening its store (a count over every document) took
    // most of a first recall at 100k pages. A write, an embed or a model
    // path opens QMD on first use.
    lexicalFirst: true,
    ...(vault !== undefined ? { vault } : {}),
    views: {
      onRefresh(refresh) {
        const problems = refreshProblems(refresh);
        if (problems.length > 0) log(`views after a write:\n${renderDiagnostics(problems)}`);
      },
    },
  });
  const startup = createStartupIndex(service, log);
  // Calls still running when the client leaves; shutdown waits for them to let go of the stores.
  const inFlight = new Set<Promise<unknown>>();
  const server = createMcpServer(service, {
    version: packageVersion(),
    indexReady: startup.ready,
    track(work) {
      inFlight.add(work);
      const drop = () => {
        inFlight.delete(work);
        startup.answered();
      };
      work.then(drop, drop);
    },
  });
  // After the handshake's answer, so checking the index never delays `initialize`: as
  // soon as it has gone out (the client reads it meanwhile), or at `initialized` at the latest.
  server.oninitialized = () => startup.start();
  const screen = (message: JSONRPCMessage) => {
    if ("method" in message && message.method === "initialize") setImmediate(() => startup.start());
    return screenRequest(message);
  };

  let shuttingDown = false;
  const stopped = new Promise<number>((resolve) => {
    const shutdown = (why: string) => {
      if (shuttingDown) return;
      shuttingDown = true;
      // A hard limit: whatever hangs in cleanup, a client that left is not kept waiting on us.
      const deadline = setTimeout(() => {
        log(`${why}: cleanup did not finish within ${SHUTDOWN_DEADLINE_MS} ms; exiting anyway`);
        resolve(1);
      }, SHUTDOWN_DEADLINE_MS);
      void (async () => {
        // Stops reading and aborts every running call's signal; nothing more is answered.
        await server.close().catch(() => {});
        await startup.stop();
        await Promise.allSettled([...inFlight]);
        await service
          .close()
          .catch((error: unknown) => log(`close failed: ${errorMessage(error)}`));
        if (!protocolOut.destroyed && !protocolOut.writableEnded)
          await new Promise<void>((done) => protocolOut.end(() => done()));
      })().then(() => {
        clearTimeout(deadline);
        resolve(0);
      });
    };
    process.once("SIGINT", () => shutdown("SIGINT"));
    process.once("SIGTERM", () => shutdown("SIGTERM"));
    // The client went away mid-write (EPIPE): nobody is left to answer.
    protocolOut.once("error", () => shutdown("the client stopped reading"));
    // Standard input ended or failed: the transport closed itself.
    server.onclose = () => shutdown("standard input closed");
  });

  await server.connect(new LineTransport(process.stdin, protocolOut, { screen, log }));
  return stopped;
}
