/**
 * Where the warm hook process listens, and who it answers: shared by the
 * thin client the hooks run (hook-client.js) and the process itself
 * (cli/hook-server.ts). Plain JavaScript with Node's own modules: the client
 * runs it before anything else is loaded.
 *
 * The socket lives in a private per-user folder, `$XDG_RUNTIME_DIR/llm-wiki`,
 * else `<temp dir>/llm-wiki-<uid>`, which must be a real folder (not a link)
 * owned by this user with mode 0700; anything else is refused and the hooks
 * run in-process. Its name is a hash of the warm process's identity: the
 * protocol, the bundle it runs (path, inode, size, modification time of its
 * hook entry and of the build record), the Node binary, the user, and the
 * environment variables the hooks (and QMD, git, Node under them) read. A
 * rebuilt bundle, a new version, another Node or another setting of one of
 * those variables reaches another socket, never an old process's answer.
 */
import { createRequire } from "node:module";

// Required, not imported: an ESM import of a built-in reads every export
// (`node:fs`'s stream getters load Node's streams at every start).
const require = createRequire(import.meta.url);
const { lstatSync, mkdirSync, statSync } = require("node:fs");
const { dirname, isAbsolute, join } = require("node:path");
const { tmpdir } = require("node:os");

/** The request/answer protocol; a process speaking another is another identity. */
export const WARM_PROTOCOL = 1;
/** Most bytes of hook input read (cli/hook-input.ts says the same to the user). */
export const HOOK_STDIN_MAX_BYTES = 1024 * 1024;
/** How long a hook waits for its input to end. */
export const HOOK_STDIN_TIMEOUT_MS = 5_000;
/** Most bytes of one request line: the input as base64 plus the rest. */
export const WARM_REQUEST_MAX_BYTES = Math.ceil((HOOK_STDIN_MAX_BYTES * 4) / 3) + 64 * 1024;
/**
 * Longest a priming or recall hook works before it gives up and says so.
 * The plugin and `llm-wiki setup` give a hook 10 s; an agent that kills a
 * hook at its timeout drops what it wrote, so past this the hook says why
 * on stderr and exits 0 itself. `LLM_WIKI_HOOK_DEADLINE_MS` sets another
 * (an agent with a longer timeout; a test that needs a hook to run late).
 */
export const HOOK_DEADLINE_MS = 9_000;

/** The deadline in force: `LLM_WIKI_HOOK_DEADLINE_MS` when it is a whole number of ms (0 to 10 min). */
export function hookDeadlineMs(env = process.env) {
  const raw = env.LLM_WIKI_HOOK_DEADLINE_MS;
  const ms = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  return Number.isInteger(ms) && ms >= 0 && ms <= 600_000 ? ms : HOOK_DEADLINE_MS;
}

/** How long the warm process stays without a request, unless `LLM_WIKI_HOOK_SERVER_IDLE_MS` says. */
export const WARM_IDLE_MS = 20 * 60_000;
/** How long after a warm process failed to start no hook starts another. */
export const WARM_RETRY_MS = 10 * 60_000;
/** Most hooks one warm process answers before it leaves (the next hook starts a fresh one). */
export const WARM_MAX_SERVED = 5_000;

/** The file a warm process that could not start leaves beside its socket's name. */
export function warmFailedMarker(socketPath) {
  return `${socketPath}.failed`;
}

/** The hook entry of a build, beside its launcher (`dist/cli/`). */
export const HOOK_BUNDLE = "hook.bundle.js";

/** Variables read by name: anything else is outside the identity. */
const ENV_NAMES = new Set([
  "HOME",
  "USER",
  "LOGNAME",
  "USERPROFILE",
  "PATH",
  "PATHEXT",
  "TMPDIR",
  "TZ",
  "LANG",
  "LANGUAGE",
  "CI",
  "CLAUDECODE",
  "CLAUDE_CONFIG_DIR",
  "CODEX_HOME",
  "GEMINI_CLI",
  "INDEX_PATH",
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_DISABLE_COMPILE_CACHE",
  "NODE_COMPILE_CACHE",
  "WSL_DISTRO_NAME",
  "WSL_INTEROP",
]);
/** Variables read by prefix: the project's own, QMD's and its model runtime's, git's, locale. */
const ENV_PREFIXES = [
  "LLM_WIKI_",
  "WIKI_",
  "QMD_",
  "XDG_",
  "GIT_",
  "LC_",
  "PI_",
  "NODE_LLAMA_CPP_",
  "GGML_",
];

/** True unless `LLM_WIKI_HOOK_SERVER` turns the warm process off (`0`, `off`, `false`, `no`), or the platform has no Unix sockets. */
export function warmEnabled(env = process.env) {
  if (process.platform === "win32" || typeof process.getuid !== "function") return false;
  const v = (env.LLM_WIKI_HOOK_SERVER ?? "").trim().toLowerCase();
  return !["0", "off", "false", "no"].includes(v);
}

/** The idle time in force: `LLM_WIKI_HOOK_SERVER_IDLE_MS` when a whole number of ms (0 to a day). */
export function warmIdleMs(env = process.env) {
  const raw = env.LLM_WIKI_HOOK_SERVER_IDLE_MS;
  const ms = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  return Number.isInteger(ms) && ms >= 0 && ms <= 86_400_000 ? ms : WARM_IDLE_MS;
}

/** The environment entries in the identity, sorted. */
function envEntries(env) {
  const entries = Object.keys(env)
    .filter((k) => ENV_NAMES.has(k) || ENV_PREFIXES.some((p) => k.startsWith(p)))
    .sort()
    .map((k) => [k, env[k]]);
  // The writer's agent is "codex" when any CODEX_ variable is set, whatever
  // its value (some change per session): their presence is what counts.
  entries.push(["CODEX_*", Object.keys(env).some((k) => k.startsWith("CODEX_"))]);
  return entries;
}

function fileStamp(file) {
  const s = statSync(file);
  return [file, s.dev, s.ino, s.size, s.mtimeMs];
}

/**
 * A short name for `text`: 80 bits of two 53-bit string hashes (cyrb53), 20
 * hex digits. Not a
 * cryptographic hash (loading `node:crypto` costs a hook 10–20 ms); names
 * that collide still never mix answers, since the process says its whole
 * identity first and the client compares it.
 */
export function shortHash(text) {
  const lane = (seed) => {
    let h1 = 0xdeadbeef ^ seed;
    let h2 = 0x41c6ce57 ^ seed;
    for (let i = 0; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0").slice(-10);
  };
  return lane(0) + lane(0x9e3779b9);
}

/**
 * The identity of the warm process for the build whose launcher folder is
 * `cliDir` (`dist/cli`), under `env`: one JSON text. Throws when the
 * build's files cannot be read.
 */
export function warmIdentity(cliDir, env = process.env) {
  const doc = {
    protocol: WARM_PROTOCOL,
    bundle: fileStamp(join(cliDir, HOOK_BUNDLE)),
    build: fileStamp(join(dirname(cliDir), "build-inputs.json")),
    node: [process.execPath, process.version, process.arch],
    uid: process.getuid(),
    env: envEntries(env),
  };
  return JSON.stringify(doc);
}

/** Why `path` is not a private folder of this user (undefined when it is). */
function notPrivate(path, uid) {
  let s;
  try {
    s = lstatSync(path);
  } catch (error) {
    return `cannot read ${path}: ${error?.code ?? error}`;
  }
  if (s.isSymbolicLink() || !s.isDirectory()) return `${path} is not a folder`;
  if (s.uid !== uid) return `${path} is owned by uid ${s.uid}, not ${uid}`;
  if ((s.mode & 0o077) !== 0)
    return `${path} has mode ${(s.mode & 0o777).toString(8)}, not 700: others can reach it`;
  return undefined;
}

/** Why the parent `path` could let another user swap our folder (undefined when it cannot). */
function unsafeParent(path, uid) {
  let s;
  try {
    s = statSync(path);
  } catch (error) {
    return `cannot read ${path}: ${error?.code ?? error}`;
  }
  if (!s.isDirectory()) return `${path} is not a folder`;
  if (s.uid !== uid && s.uid !== 0) return `${path} is owned by uid ${s.uid}`;
  // Writable by others without the sticky bit: anyone could rename our folder away.
  if ((s.mode & 0o022) !== 0 && (s.mode & 0o1000) === 0)
    return `${path} is writable by others and not sticky`;
  return undefined;
}

/**
 * The private folder for the socket, made when missing:
 * `{ dir }`, or `{ refused }` saying why it cannot be used.
 */
export function warmFolder(env = process.env) {
  const uid = process.getuid();
  const runtime = env.XDG_RUNTIME_DIR;
  const parent = runtime && isAbsolute(runtime) ? runtime : tmpdir();
  const dir =
    runtime && isAbsolute(runtime) ? join(runtime, "llm-wiki") : join(parent, `llm-wiki-${uid}`);
  const parentWhy = unsafeParent(parent, uid);
  if (parentWhy) return { refused: parentWhy };
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if (error?.code !== "EEXIST") return { refused: `cannot make ${dir}: ${error?.code ?? error}` };
  }
  const why = notPrivate(dir, uid);
  return why ? { refused: why } : { dir };
}

/**
 * Where the warm process for this build and environment listens:
 * `{ path, identity, key }` (`key`: the identity's short hash, which names
 * the socket), or `{ refused }` (the folder is not private, the build
 * cannot be read). The process says its whole identity first on every
 * connection.
 */
export function warmSocket(cliDir, env = process.env) {
  let identity;
  try {
    identity = warmIdentity(cliDir, env);
  } catch (error) {
    return { refused: `cannot read the build: ${error?.code ?? error}` };
  }
  const folder = warmFolder(env);
  if (folder.refused) return folder;
  const key = shortHash(identity);
  // A socket's path must fit in 104 bytes (macOS; 108 on Linux), and so
  // must the name it is first bound at (`.<pid>` more): macOS's temp folder
  // alone is about 50.
  const path = join(folder.dir, `h-${key}.sock`);
  if (Buffer.byteLength(path) + 9 > 103) return { refused: `socket path too long: ${path}` };
  return { path, identity, key };
}

/**
 * The first line a warm process writes at `path` (its hello: identity,
 * pid, answers served), parsed; undefined when nothing answers there within
 * `timeoutMs`, or answers something else.
 */
export function readWarmHello(path, timeoutMs = 1_000) {
  const { createConnection } = require("node:net");
  return new Promise((resolve) => {
    const conn = createConnection(path);
    let text = "";
    let settled = false;
    const done = (value) => {
      if (settled) return;
      settled = true;
      conn.destroy();
      resolve(value);
    };
    conn.setTimeout(timeoutMs, () => done(undefined));
    conn.setEncoding("utf8");
    conn.on("error", () => done(undefined));
    conn.on("close", () => done(undefined));
    conn.on("data", (chunk) => {
      text += chunk;
      const nl = text.indexOf("\n");
      if (nl < 0) return;
      try {
        const hello = JSON.parse(text.slice(0, nl));
        done(typeof hello === "object" && hello !== null ? hello : undefined);
      } catch {
        done(undefined);
      }
    });
  });
}
