/**
 * A team shares one vault through git with nothing to merge by hand:
 * clones of one bare repository, each teammate writing a page, an
 * observation and a captured source through the real CLI, committing,
 * recalling (recall feedback on: lines no commit holds yet), running a
 * plain `git pull` — a merge, or `--rebase` — with nothing stashed or
 * committed first, and pushing, round after round in a shuffled order (a
 * fresh seed each run, printed). No pull is refused or leaves a conflicted
 * file, no event or page is lost or repeated, and each teammate's recall
 * finds what the others wrote on the first prompt after the pull.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  cloneHome,
  eventLogLines,
  filesWithMarkers,
  runTeam,
  runTeamCli,
  type TeamWrite,
} from "../scripts/bench/team-sim.ts";
import { CLI } from "./helpers/cli.ts";
import { codeCacheEnv } from "./helpers/code-cache-env.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

interface LoggedEvent {
  kind: string;
  id?: string;
  title?: string;
}

function eventsOf(clone: string): LoggedEvent[] {
  const lines = eventLogLines(clone);
  // Each clone appends to its own files: no merge ever brings a line twice.
  expect(new Set(lines).size).toBe(lines.length);
  // Every line a whole event.
  return lines.map((line) => JSON.parse(line) as LoggedEvent);
}

/** The prompt hook's answer (what an agent is given) in `clone` for `prompt`. */
function hookAnswer(root: string, clone: string, writer: number, prompt: string): string {
  const out = spawnSync(process.execPath, [CLI, "hook", "user-prompt"], {
    cwd: clone,
    input: JSON.stringify({ hook_event_name: "UserPromptSubmit", cwd: clone, prompt }),
    env: {
      PATH: process.env.PATH ?? "",
      ...codeCacheEnv(),
      HOME: cloneHome(root, writer),
      XDG_CACHE_HOME: join(cloneHome(root, writer), ".cache"),
      LLM_WIKI_HOOK_DEADLINE_MS: "600000",
      // No warm hook process: it would outlive the spec.
      LLM_WIKI_HOOK_SERVER: "off",
    },
    encoding: "utf8",
    timeout: 120_000,
  });
  return out.stdout;
}

describe.each(["merge", "rebase"] as const)(
  "teammates pulling with a plain git pull (%s)",
  (how) => {
    it("is never refused, leaves no conflicted file, loses no event or page, and recall follows every pull", () => {
      const seed = Math.floor(Math.random() * 2 ** 31);
      console.log(`team-merge (${how}) seed ${seed}`);
      const root = makeTempDir("llm-wiki-team-");
      const written: TeamWrite[] = [];
      const missed: string[] = [];
      const run = runTeam({
        root,
        // The rebase run is smaller: only its pulls differ from the merge run.
        writers: how === "merge" ? 3 : 2,
        rounds: 2,
        seed,
        cli: CLI,
        capture: true,
        pull: how,
        recallBeforePull: true,
        extraWrite: (_clone, write) => written.push(write),
        afterPull: (clone, writer) => {
          // The newest page a teammate pushed before this pull.
          const theirs = written.findLast((w) => w.writer !== writer);
          if (theirs && !hookAnswer(root, clone, writer, theirs.page).includes(theirs.page)) {
            missed.push(`${writer} missed ${theirs.page}`);
          }
        },
      });

      expect(run.pulls.filter((p) => p.conflicted.length > 0)).toEqual([]);
      // Nothing of ours is left changed for git: our appends go to files no commit tracks yet.
      expect(run.pulls.filter((p) => p.dirty.length > 0)).toEqual([]);
      // The recall before each round's pull left feedback lines no commit held.
      const rounds = run.pulls.filter((p) => p.round < 2);
      expect(rounds.filter((p) => p.uncommittedEvents === 0)).toEqual([]);
      expect(missed).toEqual([]);
      for (const clone of run.clones) {
        expect(filesWithMarkers(clone)).toEqual([]);
        const events = eventsOf(clone);
        const created = events.filter((e) => e.kind === "observation_recorded").map((e) => e.title);
        expect(created.sort()).toEqual(run.writes.map((w) => w.observation).sort());
        const pages = events.filter(
          (e) => e.kind === "page_created" && e.id?.startsWith("concepts/"),
        );
        expect(pages).toHaveLength(run.writes.length);
        expect(events.filter((e) => e.kind === "vault_initialized")).toHaveLength(1);
        // Every teammate's capture of the day has its own packet.
        const captured = events.filter((e) => e.kind === "source_captured");
        expect(captured).toHaveLength(run.writes.length);
        expect(new Set(captured.map((e) => e.id)).size).toBe(run.writes.length);
      }
      // Every clone holds the same tree after the last pull.
      const heads = run.clones.map((clone) =>
        runTeamCli(CLI, clone, cloneHome(root, 0), ["status", "--json"]),
      );
      const counts = heads.map((h) => (JSON.parse(h) as { vault: { pages: number } }).vault.pages);
      expect(new Set(counts).size).toBe(1);
      // A page, an observation and a captured source's page per write.
      expect(counts[0]).toBe(run.writes.length * 3);
    });
  },
);
