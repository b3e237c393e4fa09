/**
 * The stdio server's lifecycle: reads `--vault DIR` (or `LLM_WIKI_VAULT`),
 * creates the shared service, serves MCP over stdin/stdout, starts the
 * background index update after the handshake, and stops within a hard
 * deadline when the client leaves. At the end of its input (a client that
 * piped its requests and closed its end) it reads nothing more, cancels the
 * background update, and answers every call already read: those still
 * running after CALL_GRACE_MS are cancelled and answer so. On a signal or a
 * broken pipe it cancels everything at once and answers nothing more.
 * Writes only to stderr; the protocol writer is handed in.
 */
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { packageVersion } from "../extensions/llm-wiki/lib/package-version.ts";
import { createRecallWarmup } from "../extensions/llm-wiki/lib/recall-warmup.ts";
import { renderDiagnostics } from "../extensions/llm-wiki/lib/render-text.ts";
import { loadCliSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { serverRoot } from "../extensions/llm-wiki/lib/vault/wiki-root.ts";
import { agentName } from "../extensions/llm-wiki/lib/vault/writer.ts";
import { refreshProblems } from "../extensions/llm-wiki/lib/views/views-follow.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { createMcpServer, screenRequest } from "./server.ts";
import { createStartupIndex } from "./startup-index.ts";
import { LineTransport, type LineTransportOptions } from "./stdio-transport.ts";

const USAGE = `usage: llm-wiki-mcp [--vault DIR]

A stdio MCP server for the llm-wiki vault of the working directory (nearest
.llm-wiki/ upwards, plus the personal vault), or of --vault DIR / $LLM_WIKI_VAULT.
$WIKI_ROOT (the older system's setting) stands for the working directory.
`;

/** From the client leaving to the process exiting, cleanup included. */
const SHUTDOWN_DEADLINE_MS = 2_000;
/**
 * After the end of input, how long the calls already read may run before
 * they are cancelled (each then answers within the server's SETTLE_MS). A
 * recall or a status takes milliseconds; what the rest of the deadline must
 * hold is a cancelled rebuild letting go of its index (~0.7 s measured at
 * 2,000 pages on a loaded 2-core machine) and the cleanup.
 */
const CALL_GRACE_MS = 500;

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
  // The older system's WIKI_ROOT names the folder the server works from, unless a vault was given.
  const root = serverRoot(process.cwd(), env, vault);
  for (const note of root.notes) log(note.message);
  // Writes are recorded as the client that made them (its `initialize` name), `mcp` before.
  let client: string | undefined;
  const service = createWikiService({
    cwd: root.cwd,
    notes: root.notes,
    env,
    settings,
    agent: () => agentName(client, "mcp"),
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
  // The first call's fixed costs (stores opened, parsers built), paid while the client reads the handshake.
  const warmup = createRecallWarmup(service);
  const startAfterHandshake = () => {
    startup.start();
    warmup.start();
  };
  // Calls still running when the client leaves; shutdown waits for them to let go of the stores.
  const inFlight = new Set<Promise<unknown>>();
  // Aborted when the calls still running after the end of input must wrap up.
  const wrapUp = new AbortController();
  const server = createMcpServer(service, {
    stopping: wrapUp.signal,
    version: packageVersion(),
    indexReady: startup.ready,
    track(work) {
      // A call has started: it pays whatever the warm-up has not done yet.
      warmup.stop();
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
  server.oninitialized = () => {
    client = server.getClientVersion()?.name;
    startAfterHandshake();
  };
  const screen = (message: JSONRPCMessage) => {
    if ("method" in message && message.method === "initialize") setImmediate(startAfterHandshake);
    return screenRequest(message);
  };
  const transportOptions: LineTransportOptions = { screen, log };

  let leaving = false;
  let grace: NodeJS.Timeout | undefined;
  let markClosed = () => {};
  // The connection closed: every call read was answered, or the server was closed.
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  // The background index update is cancelled with the calls: a recall read may be waiting for it.
  let startupStopped: Promise<void> | undefined;
  const stopStartup = () => {
    startupStopped ??= startup.stop();
    return startupStopped;
  };
  /** The calls still running wrap up (each answers, if only that it was cancelled); the update stops. */
  const wrapUpCalls = () => {
    clearTimeout(grace);
    warmup.stop();
    wrapUp.abort();
    void stopStartup();
  };

  const stopped = new Promise<number>((resolve) => {
    /**
     * The client left. `answerFirst` (the end of its input): the calls
     * already read are answered, the transport closing itself after the last
     * answer, and those still running after CALL_GRACE_MS are cancelled.
     * Otherwise (a signal, a broken pipe) the server closes at once,
     * aborting every call, and nothing more is answered; a signal during
     * the grace cuts it short so.
     */
    const leave = (why: string, answerFirst: boolean) => {
      if (!leaving) {
        leaving = true;
        // A hard limit: whatever hangs in cleanup, a client that left is not kept waiting on us.
        const deadline = setTimeout(() => {
          log(`${why}: cleanup did not finish within ${SHUTDOWN_DEADLINE_MS} ms; exiting anyway`);
          resolve(1);
        }, SHUTDOWN_DEADLINE_MS);
        if (answerFirst) {
          grace = setTimeout(() => {
            log(`calls still running ${CALL_GRACE_MS} ms after the end of input; cancelling them`);
            wrapUpCalls();
          }, CALL_GRACE_MS);
        }
        void (async () => {
          await closed;
          wrapUpCalls();
          await stopStartup();
          await Promise.allSettled([...inFlight, warmup.settled()]);
          await service
            .close()
            .catch((error: unknown) => log(`close failed: ${errorMessage(error)}`));
          if (!protocolOut.destroyed && !protocolOut.writableEnded)
            await new Promise<void>((done) => protocolOut.end(() => done()));
        })().then(() => {
          clearTimeout(deadline);
          resolve(0);
        });
      }
      if (!answerFirst) {
        wrapUpCalls();
        // Stops reading and aborts every running call's signal; nothing more is answered.
        void server.close().catch(() => {});
      }
    };
    process.once("SIGINT", () => leave("SIGINT", false));
    process.once("SIGTERM", () => leave("SIGTERM", false));
    // The client went away mid-write (EPIPE): nobody is left to answer.
    protocolOut.once("error", () => leave("the client stopped reading", false));
    // Standard input ended or failed: nothing more is read; what was read is answered first.
    transportOptions.onInputEnd = () => leave("standard input closed", true);
    // The transport closed: after the end of input once every call read was answered, or closed by us.
    server.onclose = () => {
      markClosed();
      if (!leaving) leave("the connection closed", false);
    };
  });

  await server.connect(new LineTransport(process.stdin, protocolOut, transportOptions));
  return stopped;
}
