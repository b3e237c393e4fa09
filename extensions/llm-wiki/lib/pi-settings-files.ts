/**
 * Where the Pi extension keeps its settings. Pi reads a project's
 * `.pi/settings.json` only in a trusted project, and the mere presence of
 * that file makes the project need trust: print and RPC sessions then skip
 * it, and an interactive one asks. So the extension keeps a project's own
 * settings in a file of its own under Pi's agent folder (the user's config,
 * never in the repository, so a cloned repository cannot set them), keyed
 * by the project's real path. The `llm-wiki` key of Pi's settings files is
 * still read, for settings written before. The CLI computes the same paths
 * without loading Pi.
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";

/** Pi's folder of a project's own configuration (Pi's `CONFIG_DIR_NAME`). */
export const PI_CONFIG_DIR = ".pi";

/** Pi's agent folder as Pi resolves it: `$PI_CODING_AGENT_DIR` (`~` expanded), else `~/.pi/agent`. */
export function piAgentDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || homedir();
  const dir = env.PI_CODING_AGENT_DIR;
  if (dir) return dir === "~" ? home : dir.startsWith("~/") ? join(home, dir.slice(2)) : dir;
  return join(home, PI_CONFIG_DIR, "agent");
}

/** A folder's real path when it exists (a link and its target are one project), else its absolute path. */
function projectKey(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return resolve(cwd);
  }
}

/**
 * The extension's settings file for the project at `cwd`:
 * `<agentDir>/llm-wiki/projects/<folder name>-<hash of its real path>.json`.
 * The name shows which project it is; the hash keeps two folders of the same
 * name apart.
 */
export function piProjectSettingsPath(agentDir: string, cwd: string): string {
  const key = projectKey(cwd);
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 16);
  const name =
    basename(key)
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[.-]+/, "")
      .slice(0, 40) || "project";
  return join(agentDir, "llm-wiki", "projects", `${name}-${hash}.json`);
}

/** Pi's own project settings file, read for compatibility (only in a trusted project). */
export function piLegacyProjectSettingsPath(cwd: string): string {
  return join(cwd, PI_CONFIG_DIR, "settings.json");
}
