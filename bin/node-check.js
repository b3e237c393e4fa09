/**
 * The first thing every bin runs: plain JavaScript that any Node ≥ 18 can
 * parse, so an older Node gets one readable line instead of a stack trace
 * from a module it cannot load.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// Required, not imported: an ESM import of `node:fs` reads every export,
// and its stream getters load Node's streams at every start of a bin.
const { existsSync } = createRequire(import.meta.url)("node:fs");

/** The oldest Node the project runs on: Pi and QMD need it, and type stripping runs the sources. */
export const REQUIRED_NODE = "22.19.0";

/** True when `version` (e.g. "22.19.0" or "v20.20.2") is at least `REQUIRED_NODE`. */
export function isSupportedNode(version) {
  const have = String(version).replace(/^v/, "").split(".").map(Number);
  const need = REQUIRED_NODE.split(".").map(Number);
  for (let i = 0; i < need.length; i += 1) {
    const a = have[i] || 0;
    if (a !== need[i]) return a > need[i];
  }
  return true;
}

/** The one line an older Node gets from `bin`. */
export function nodeTooOldLine(bin) {
  return (
    `${bin}: needs Node.js ${REQUIRED_NODE} or newer, this is ${process.version}; ` +
    "install Node 22 LTS or later (https://nodejs.org, or `nvm install 22`) and run it again"
  );
}

/**
 * A hook's JSON output that shows `message` to the user (`systemMessage`:
 * Claude Code, Codex and Gemini CLI print it; a hook's stderr reaches no
 * one) and hands it to the model as the event's context, so it can say so
 * too.
 */
export function userNotice(message, event) {
  return JSON.stringify({
    systemMessage: message,
    hookSpecificOutput: { hookEventName: event, additionalContext: message },
  });
}

/**
 * Exits with `status` (2, a usage error, unless told) and one line on stderr
 * when this Node is too old. An agent's hook passes 0: Claude Code takes
 * exit 2 from a UserPromptSubmit hook as "block this prompt"; its
 * `session-start` (`hookKind`) also prints the line as a notice the user
 * sees (userNotice), since nobody reads a hook's stderr.
 */
export function requireSupportedNode(bin, status = 2, hookKind = undefined) {
  if (isSupportedNode(process.versions.node)) return;
  const line = nodeTooOldLine(bin);
  process.stderr.write(`${line}\n`);
  if (hookKind === "session-start") {
    const notice =
      `llm-wiki: the project memory is off in this session: it needs Node.js ${REQUIRED_NODE} or newer, ` +
      `and the \`node\` this client runs is ${process.version} (${process.execPath}). ` +
      "Install Node 22 LTS or later (https://nodejs.org, or `nvm install 22`), put it first on PATH, and start a new session.";
    process.stdout.write(`${userNotice(notice, "SessionStart")}\n`);
  }
  process.exit(status);
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The module to run for `entry` (e.g. "cli/llm-wiki"): the bundled build
 * when installed as a package (Node does not strip types under
 * node_modules), the TypeScript source in a checkout. `preferBuilt` (an
 * agent's hook, which must answer within its timeout) takes the bundle in a
 * checkout too whenever `dist/` holds it; the sources only without one,
 * or when `LLM_WIKI_FROM_SOURCES=1` asks for them (working on the sources).
 */
export function entryUrl(entry, preferBuilt = false) {
  const source = join(root, `${entry}.ts`);
  const built = join(root, "dist", `${entry}.js`);
  const installed = root.split(/[\\/]/).includes("node_modules");
  const file =
    installed || !existsSync(source) || (preferBuilt && !fromSources() && existsSync(built))
      ? built
      : source;
  return pathToFileURL(file).href;
}

function fromSources() {
  return process.env.LLM_WIKI_FROM_SOURCES === "1";
}

/** True when a hook would run `entry` from the TypeScript sources for want of a `dist/` (not by choice). */
export function runsFromSources(entry) {
  return !fromSources() && fileURLToPath(entryUrl(entry, true)).endsWith(".ts");
}
