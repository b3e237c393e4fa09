/**
 * Keeps stdout for the MCP protocol alone. A stdio server whose stdout carries
 * one stray line (a library's console.log, a model loader's progress) breaks
 * its client (QMD #593), so everything except the protocol writer is sent to
 * stderr, and the protocol gets a private writer on the real stdout.
 */
import { Console } from "node:console";
import { Writable } from "node:stream";

// Stateful pairs (group/groupEnd, time/timeEnd, count/countReset) move
// together so they keep sharing one Console's state.
const CONSOLE_METHODS = [
  "log",
  "info",
  "debug",
  "warn",
  "dir",
  "dirxml",
  "table",
  "group",
  "groupCollapsed",
  "groupEnd",
  "count",
  "countReset",
  "time",
  "timeLog",
  "timeEnd",
] as const;

/**
 * Redirects console output and `process.stdout.write` to stderr and returns
 * the only writer left on the real stdout, for the protocol transport. Call
 * once, before anything that might print is imported.
 */
export function reserveStdoutForProtocol(): Writable {
  const stdout = process.stdout;
  const rawWrite = stdout.write.bind(stdout);
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  Object.assign(
    console,
    Object.fromEntries(CONSOLE_METHODS.map((m) => [m, toStderr[m].bind(toStderr)])),
  );
  // A write error (EPIPE: the client left) reaches the protocol writer's
  // callback; without a listener it would also crash the process here.
  stdout.on("error", () => {});
  // Libraries that write to process.stdout directly end up on stderr too.
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      rawWrite(chunk, (error) => callback(error ?? null));
    },
  });
}
