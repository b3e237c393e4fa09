/**
 * The real `pi` command in its terminal UI (interactive mode), headless: it
 * runs in a tmux server of the test's own (its socket in the test's HOME,
 * removed with it; no user config), keys are typed with `send-keys` and the
 * screen is read with `capture-pane`. Same extension, faux model, HOME and
 * agent folder as `pi-cli.ts`; `PI_OFFLINE` keeps Pi from fetching its
 * helper binaries (fd, ripgrep).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type PiCliDirs, type PiRunOptions, piArgs, piEnv } from "./pi-cli.ts";
import { randomWord } from "./random-text.ts";

export interface PiTerminal {
  /** Types `text` and presses Enter. */
  submit(text: string): void;
  /** Presses one key (tmux key name: `Escape`, `Enter`). */
  press(key: string): void;
  /** The screen as text, wrapped lines joined. */
  screen(): string;
  /** Resolves with the screen once `pattern` is on it; throws with the screen after the hang guard. */
  waitFor(pattern: RegExp): Promise<string>;
  /** Resolves once `pattern` is no longer on the screen (a dialog closed). */
  waitForGone(pattern: RegExp): Promise<void>;
  /** Ends the tmux server and Pi with it. */
  close(): void;
}

/** A hang guard, not a measurement. */
const GUARD_MS = 240_000;

function tmux(socket: string, args: string[]): string {
  const out = spawnSync("tmux", ["-S", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  if (out.error) {
    throw new Error(
      `tmux is needed to drive Pi's terminal UI (apt-get install tmux): ${out.error}`,
    );
  }
  if (out.status !== 0) throw new Error(`tmux ${args[0]} failed: ${out.stderr}`);
  return out.stdout;
}

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/** Starts `pi` in a fresh tmux server, in the project, on a 200×60 screen. */
export function startPiTerminal(dirs: PiCliDirs, options: PiRunOptions = {}): PiTerminal {
  const socket = join(dirs.home, `tmux-${randomWord(6, 6)}.sock`);
  const env = { ...piEnv(dirs, options), TERM: "xterm-256color", PI_OFFLINE: "1" };
  const command = [
    "env",
    "-i",
    ...Object.entries(env).map(([k, v]) => quote(`${k}=${v ?? ""}`)),
    quote(process.execPath),
    ...piArgs([]).map(quote),
  ].join(" ");
  // Pi's last words stay on the screen if it ends before the test does.
  const shell = `${command}; echo "[pi exited with status $?]"; sleep 600`;
  tmux(socket, [
    "new-session",
    "-d",
    "-s",
    "pi",
    "-x",
    "200",
    "-y",
    "60",
    "-c",
    dirs.project,
    shell,
  ]);
  const screen = () => tmux(socket, ["capture-pane", "-p", "-J", "-t", "pi"]);
  const poll = async (done: (shown: string) => boolean, failure: string): Promise<string> => {
    const until = Date.now() + GUARD_MS;
    for (;;) {
      const shown = screen();
      if (done(shown)) return shown;
      if (Date.now() > until) throw new Error(`${failure} in Pi's terminal UI:\n${shown}`);
      await sleep(200);
    }
  };
  return {
    submit(text) {
      tmux(socket, ["send-keys", "-t", "pi", "-l", text]);
      tmux(socket, ["send-keys", "-t", "pi", "Enter"]);
    },
    press(key) {
      tmux(socket, ["send-keys", "-t", "pi", key]);
    },
    screen,
    async waitFor(pattern) {
      return await poll((shown) => pattern.test(shown), `${pattern} never appeared`);
    },
    async waitForGone(pattern) {
      await poll((shown) => !pattern.test(shown), `${pattern} never went away`);
    },
    close() {
      spawnSync("tmux", ["-S", socket, "kill-server"]);
    },
  };
}
