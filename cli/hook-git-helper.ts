/**
 * The warm hook process's git reader, a small process of its own
 * (`dist/cli/hook-git.bundle.js`). Node starts a program by forking the
 * whole process: in the warm process (~100 MB) each of session start's
 * three git calls blocked it until git started, and every page it wrote
 * afterwards paid a copy-on-write fault. Measured on a loaded 2-core
 * machine: after one spawn from a 167 MB process, touching 100 MB of it
 * took 135-157 ms instead of 1.7 ms. This process holds almost nothing, so
 * its forks are cheap and their faults land here, not in the process that
 * answers the hook.
 *
 * It reads one request a line on stdin, `{"id": n, "cwd": "/abs"}`, and
 * answers `{"id": n, "context": GitContext}` on stdout with
 * `readGitContext(cwd)`: the very read a hook makes in its own process, in
 * the same environment (the warm process's). It leaves when its stdin
 * ends (the warm process left). Nothing else is read or written.
 */
import { isAbsolute } from "node:path";
import { readGitContext } from "../extensions/llm-wiki/lib/priming/git-context.ts";

/** Longest request line read (a working folder's path and an id). */
const MAX_LINE = 8 * 1024;

/** The request on `line`, or undefined when it is not one. */
function parseGitRequest(line: string): { id: number; cwd: string } | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch {
    return undefined;
  }
  const { id, cwd } = (doc ?? {}) as { id?: unknown; cwd?: unknown };
  if (!Number.isSafeInteger(id) || typeof cwd !== "string") return undefined;
  if (!isAbsolute(cwd) || cwd.includes("\0")) return undefined;
  return { id: id as number, cwd };
}

/** Serves requests until stdin ends. */
function serve(): void {
  let buffered = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const request = parseGitRequest(line);
      if (request === undefined) continue;
      void readGitContext(request.cwd).then(
        (context) => process.stdout.write(`${JSON.stringify({ id: request.id, context })}\n`),
        // readGitContext answers an empty context on failure; this is for the unforeseen.
        () => process.stdout.write(`${JSON.stringify({ id: request.id })}\n`),
      );
    }
    // Not a request: a stream that never ends a line is not read on.
    if (buffered.length > MAX_LINE) process.exit(0);
  });
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("error", () => process.exit(0));
  // Its reader gone, there is no one to answer.
  process.stdout.on("error", () => process.exit(0));
}

if (import.meta.main) serve();
