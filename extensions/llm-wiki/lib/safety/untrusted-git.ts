/**
 * The one way this project runs git, on a repository it does not trust: a
 * project unpacked from a tarball or a shared folder arrives with its own
 * `.git/config`, `.git/info/attributes` and `.gitattributes`, and any of
 * them may name a program (a clean/smudge/process filter, a textconv or
 * external diff, an fsmonitor, a pager, a hook, an ssh command, a gpg
 * program, a credential helper, a transport such as `ext::`).
 *
 * git gives no switch to ignore a repository's own configuration, so every
 * call here does two things:
 *   1. it runs with no `GIT_*` variable of the caller, no system or global
 *      configuration or attributes, and fixed settings for every key that
 *      names a program, prompts, pages or reaches the network;
 *   2. it first lists the configuration names git resolves in that folder
 *      (the repository's files and everything they `include`), and blanks
 *      each per-driver key (`filter.<name>.process`, `diff.<name>.textconv`,
 *      `merge.<name>.driver`, `credential.<url>.helper`, …). The overrides go
 *      through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`, so a driver name holding
 *      `=` or `.` cannot split the setting the way `-c name=value` would.
 * When the configuration cannot be listed, nothing runs (fail closed).
 * Arguments are fixed by the caller, never a shell; names read from pages
 * go after `--` or on standard input.
 */
import { execFile, execFileSync } from "node:child_process";
import { devNull } from "node:os";

/** Settings given on every call as `-c` (fixed keys: none holds `=`). */
const FIXED: ReadonlyArray<readonly [string, string]> = [
  ["core.hooksPath", devNull],
  ["core.fsmonitor", "false"],
  ["core.untrackedCache", "false"],
  ["core.pager", "cat"],
  ["core.editor", ":"],
  ["sequence.editor", ":"],
  ["core.askPass", ""],
  ["core.sshCommand", ""],
  ["core.gitProxy", ""],
  ["core.alternateRefsCommand", ""],
  ["core.attributesFile", devNull],
  ["core.quotePath", "false"],
  ["diff.external", ""],
  ["credential.helper", ""],
  ["gpg.program", ""],
  ["gpg.openpgp.program", ""],
  ["gpg.x509.program", ""],
  ["gpg.ssh.program", ""],
  ["log.showSignature", "false"],
  ["color.ui", "false"],
  // A repository's `protocol.<name>.allow` outranks `protocol.allow`.
  ["protocol.allow", "never"],
  ["protocol.ext.allow", "never"],
  ["protocol.file.allow", "never"],
  ["protocol.ssh.allow", "never"],
  ["protocol.http.allow", "never"],
  ["protocol.https.allow", "never"],
  ["protocol.git.allow", "never"],
  ["uploadpack.packObjectsHook", ""],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"],
];

/**
 * Configuration names (lower-cased section and key; the middle part as
 * written) whose value is a program or reaches one. Matched on what
 * `git config --list --name-only` prints.
 */
const PROGRAM_KEY: ReadonlyArray<RegExp> = [
  /^filter\..+\.(?:clean|smudge|process)$/s,
  /^diff\..+\.(?:command|textconv)$/s,
  /^merge\..+\.driver$/s,
  /^credential\..+\.helper$/s,
  /^gpg\..+\.program$/s,
  /^pager\..+$/s,
  /^trailer\..+\.(?:command|cmd)$/s,
  /^remote\..+\.(?:uploadpack|receivepack|proxy|vcs)$/s,
  /^protocol\..+\.allow$/s,
  /^submodule\..+\.update$/s,
  /^core\.(?:fsmonitor|pager|editor|askpass|sshcommand|gitproxy|hookspath|alternaterefscommand)$/,
  /^(?:sequence\.editor|diff\.external|gpg\.program|credential\.helper|uploadpack\.packobjectshook)$/,
];

/** The value a listed program key is set to: nothing, or "off" where empty is not allowed. */
function blankFor(key: string): string {
  if (key === "core.hookspath") return devNull;
  if (key === "core.fsmonitor") return "false";
  if (key === "core.pager" || key.startsWith("pager.")) return "cat";
  if (key === "core.editor" || key === "sequence.editor") return ":";
  if (key.startsWith("protocol.")) return "never";
  return "";
}

/** The `-c` arguments for the fixed settings, plus switches every command takes. */
export const SAFE_GIT_ARGS: readonly string[] = [
  "--no-pager",
  "--no-optional-locks",
  "--literal-pathspecs",
  ...FIXED.flatMap(([k, v]) => ["-c", `${k}=${v}`]),
];

/** The caller's environment minus everything that configures or redirects git. */
function baseEnv(parent: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined || key.toUpperCase().startsWith("GIT_")) continue;
    // Programs git would start, or settings a pager would read.
    if (["PAGER", "LESS", "LV", "EDITOR", "VISUAL", "SSH_ASKPASS"].includes(key.toUpperCase()))
      continue;
    env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_NO_LAZY_FETCH: "1",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_EDITOR: ":",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    GIT_SSH_COMMAND: "",
    LC_ALL: "C",
  };
}

/** The listed configuration names that name a program, each once. */
export function programKeys(names: readonly string[]): string[] {
  const out = new Set<string>();
  for (const name of names) {
    if (name === "") continue;
    const dot = name.indexOf(".");
    const last = name.lastIndexOf(".");
    if (dot < 0) continue;
    // Section and key compare without case; a subsection as written.
    const key =
      dot === last
        ? name.toLowerCase()
        : `${name.slice(0, dot).toLowerCase()}${name.slice(dot, last)}${name.slice(last).toLowerCase()}`;
    if (PROGRAM_KEY.some((re) => re.test(key))) out.add(key);
    // A filter that is "required" fails the command once blanked: it is not required here.
    const m = /^filter\.(.+)\.(?:clean|smudge|process)$/s.exec(key);
    if (m) out.add(`filter.${m[1]}.required`);
  }
  return [...out];
}

/** The environment for a command, with every listed program key blanked. */
export function untrustedGitEnv(
  names: readonly string[],
  parent: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env = baseEnv(parent);
  const keys = programKeys(names);
  keys.forEach((key, i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = key.endsWith(".required") ? "false" : blankFor(key);
  });
  env.GIT_CONFIG_COUNT = String(keys.length);
  return env;
}

const LIST_ARGS = ["config", "--list", "--name-only", "-z"] as const;
const LIST_MAX_BYTES = 4 * 1024 * 1024;

function namesOf(out: string): string[] {
  return out.split("\0").map((s) => s.replace(/^\n+|\n+$/g, ""));
}

/**
 * The environment to run git with in `cwd` (synchronously), or undefined
 * when the folder's configuration cannot be listed. Outside a repository
 * git lists nothing, and the fixed settings alone apply.
 */
export function untrustedGitEnvSync(
  cwd: string,
  parent: NodeJS.ProcessEnv = process.env,
  timeoutMs = 10_000,
): NodeJS.ProcessEnv | undefined {
  try {
    const out = execFileSync("git", [...SAFE_GIT_ARGS, ...LIST_ARGS], {
      cwd,
      env: untrustedGitEnv([], parent),
      encoding: "utf8",
      maxBuffer: LIST_MAX_BYTES,
      timeout: timeoutMs,
      stdio: ["ignore", "pipe", "ignore"],
      windowsHide: true,
    });
    return untrustedGitEnv(namesOf(out), parent);
  } catch (error) {
    // Outside a repository with no configuration at all, `git config --list` exits 1 with nothing.
    const status = (error as { status?: unknown }).status;
    const stdout = (error as { stdout?: unknown }).stdout;
    if (status === 1 && (stdout === "" || stdout === undefined)) return untrustedGitEnv([], parent);
    return undefined;
  }
}

/**
 * Runs `git <args>` in `cwd`; its standard output, or undefined when git
 * failed, is missing, or the repository's configuration could not be
 * listed. `noMatchIsEmpty`: exit status 1 is "nothing found" (`git grep`),
 * an empty answer rather than a failure.
 */
export type GitRunner = (
  args: readonly string[],
  options: { cwd: string; input?: string; noMatchIsEmpty?: boolean },
) => string | undefined;

const SYNC_TIMEOUT_MS = 10_000;
const SYNC_MAX_OUTPUT = 64 * 1024 * 1024;

/** The real synchronous runner: `git` from PATH through `execFileSync`, no shell. */
export const runGit: GitRunner = (args, { cwd, input, noMatchIsEmpty }) => {
  const env = untrustedGitEnvSync(cwd);
  if (env === undefined) return undefined;
  try {
    return execFileSync("git", [...SAFE_GIT_ARGS, ...args], {
      cwd,
      env,
      encoding: "utf8",
      input: input ?? "",
      maxBuffer: SYNC_MAX_OUTPUT,
      timeout: SYNC_TIMEOUT_MS,
      stdio: ["pipe", "pipe", "ignore"],
      windowsHide: true,
    });
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    const stdout = (error as { stdout?: unknown }).stdout;
    if (noMatchIsEmpty && status === 1 && (stdout === "" || stdout === undefined)) return "";
    return undefined;
  }
};

/**
 * Runs `git <args>` in `cwd` without blocking; resolves to its stdout
 * (possibly cut at `maxBytes`), or undefined on failure or after
 * `timeoutMs`. The deadline is checked only once the I/O that was waiting
 * has been read: a caller that keeps the event loop busy past it (a hook
 * loading its modules while git runs) would otherwise kill, or count as
 * timed out, a git that answered in time.
 */
export function runGitAsync(
  cwd: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; timeoutMs: number; maxBytes: number },
): Promise<string | undefined> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      const child = execFile(
        "git",
        [...SAFE_GIT_ARGS, ...args],
        {
          cwd,
          env: options.env,
          maxBuffer: options.maxBytes,
          encoding: "utf8",
          windowsHide: true,
          shell: false,
        },
        (error, stdout) => {
          clearTimeout(timer);
          if (timedOut) return resolve(undefined);
          if (!error) return resolve(stdout);
          // Output over the bound: what arrived is still a valid prefix to read.
          const code = (error as { code?: unknown }).code;
          resolve(code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER" ? stdout : undefined);
        },
      );
      child.stdin?.end();
      timer = setTimeout(() => {
        // Timers run before the loop polls for I/O; `setImmediate` runs after
        // it, when a git that already exited has been seen to.
        setImmediate(() => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          timedOut = true;
          child.kill("SIGKILL");
        });
      }, options.timeoutMs);
    } catch {
      clearTimeout(timer);
      resolve(undefined);
    }
  });
}
