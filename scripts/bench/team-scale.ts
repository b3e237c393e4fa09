/**
 * A team at scale on one bare repository: each writer in its own clone
 * writes through one host's path (the MCP server as a child a client keeps
 * open, the CLI as a person runs it, a real Pi session driven by Pi's
 * scripted faux model), commits, recalls (the recall's feedback lines are
 * in no commit yet), and pulls and pushes in a random interleaving
 * (seeded). Every pull is a plain `git pull`, a merge or `--rebase` at
 * random, with nothing committed or stashed first; a push that is rejected
 * pulls first, as people do. Measured per pull: git's time and the index's
 * catch-up (the writer's host answering a recall for a teammate's newest
 * page, the first prompt after the pull). Checked: no pull refused (the run
 * stops), none left a conflicted file or a tracked file changed, no event or
 * page lost or repeated, and recall answering for every page in every
 * clone. Used by `test/team-scale.test.ts` and `pnpm benchmark:team`.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createWikiService } from "../../extensions/llm-wiki/lib/wiki-service.ts";
import { startTeamPi } from "./team-pi-host.ts";
import {
  cloneHome,
  eventLogLines,
  filesWithMarkers,
  gitEnv,
  pullOnce,
  runGit,
  seededRandom,
  setUpTeam,
} from "./team-sim.ts";

/** The write paths a writer may use. */
export type TeamHost = "mcp" | "cli" | "pi";

export interface ScaleOptions {
  root: string;
  writers: number;
  writesPerWriter: number;
  seed: number;
  /** Hosts given to writers in turn (writer i uses `hosts[i % hosts.length]`). */
  hosts: readonly TeamHost[];
  /** The CLI entry the `cli` writers run. */
  cli: string;
  /** The MCP server entry the `mcp` writers spawn. */
  mcpServer: string;
  /** Environment every host gets besides PATH and HOME (models, caches). */
  env?: NodeJS.ProcessEnv;
  /** Pages per clone recall is asked for at the end (default: every page). */
  verifySample?: number;
}

export interface PullRecord {
  writer: number;
  host: TeamHost;
  how: "merge" | "rebase";
  conflicted: string[];
  /** Tracked files left changed after the pull. */
  dirty: string[];
  /** Event lines in no commit when the pull ran. */
  uncommittedEvents: number;
  mergeMs: number;
  /** The host's first recall after the pull, for a teammate's page the pull brought; undefined when it brought none. */
  catchUpMs?: number;
  found?: boolean;
}

export interface ScaleReport {
  seed: number;
  writers: number;
  writes: number;
  pulls: PullRecord[];
  /** Conflicted files any pull left, and files still holding markers at the end. */
  conflicts: string[];
  /** Per clone, titles whose events or pages are missing after the last pull. */
  lostEvents: string[];
  lostPages: string[];
  /** `clone: title` pairs recall did not answer for after the last pull. */
  unanswered: string[];
  /** Lines the union merge brought twice, summed over the clones (readers take each once). */
  repeatedLines: number;
}

/** Pi's agent folder for a teammate (its settings and model store). */
function piAgentDir(home: string): string {
  return join(home, ".pi", "agent");
}

interface Written {
  writer: number;
  title: string;
  kind: "page" | "observation";
}

/** One writer's host: writes a page or an observation, and answers a recall with the titles found. */
interface Host {
  kind: TeamHost;
  write(w: Written): Promise<void>;
  recallTitles(query: string): Promise<string[]>;
  /** The agent recalls between commits, as it does at work: recall feedback lands in the log. */
  recallAtWork(query: string): Promise<void>;
  close(): Promise<void>;
}

function hostEnv(home: string, extra: NodeJS.ProcessEnv = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_CONFIG_HOME: join(home, ".config"),
    // The test suite's shared cache of compiled code, when it runs under one.
    ...(process.env.NODE_COMPILE_CACHE
      ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }
      : {}),
    LLM_WIKI_HOOK_DEADLINE_MS: "600000",
    // Each writer's hooks run in their own process: a warm one per writer's
    // home would outlive the run (20 minutes idle) and answer nothing it times.
    LLM_WIKI_HOOK_SERVER: "off",
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

async function piHost(clone: string, home: string): Promise<Host> {
  const pi = await startTeamPi(clone, piAgentDir(home));
  return {
    kind: "pi",
    async write(w) {
      if (w.kind === "page") await pi.ensurePage(w.title, `${w.title}.`);
      else await pi.observe(w.title, `${w.title}.`);
    },
    async recallTitles(query) {
      return (await pi.recall(query)).includes(query) ? [query] : [];
    },
    async recallAtWork(query) {
      await pi.recall(query);
    },
    close: () => pi.close(),
  };
}

async function mcpHost(
  clone: string,
  home: string,
  server: string,
  extra: NodeJS.ProcessEnv,
): Promise<Host> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [server, "--vault", clone],
    cwd: clone,
    env: hostEnv(home, extra),
    stderr: "ignore",
  });
  const client = new Client({ name: "team-bench", version: "0" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
    const meta = (r._meta as Record<string, unknown> | undefined)?.["llm-wiki/result"];
    return (r.structuredContent ?? meta ?? {}) as Record<string, unknown>;
  };
  return {
    kind: "mcp",
    async write(w) {
      if (w.kind === "page") {
        await call("wiki_ensure_page", { type: "concept", title: w.title, content: `${w.title}.` });
      } else await call("wiki_observe", { title: w.title, content: `${w.title}.` });
    },
    async recallTitles(query) {
      const r = await call("wiki_recall", { query, mode: "lexical" });
      return ((r.results as Array<{ title: string }> | undefined) ?? []).map((x) => x.title);
    },
    async recallAtWork(query) {
      // The MCP server logs what its recall showed.
      await call("wiki_recall", { query, mode: "lexical" });
    },
    close: () => client.close(),
  };
}

function cliHost(clone: string, home: string, cli: string, extra: NodeJS.ProcessEnv): Host {
  return {
    kind: "cli",
    async write(w) {
      const args =
        w.kind === "page"
          ? ["page", "--type", "concept", "--title", w.title, "--content", `${w.title}.`]
          : ["observe", "--title", w.title, "--content", `${w.title}.`];
      const out = spawnSync(process.execPath, [cli, ...args], {
        cwd: clone,
        env: hostEnv(home, extra),
        encoding: "utf8",
      });
      if (out.status !== 0) throw new Error(`cli write failed: ${out.stderr}`);
    },
    async recallTitles(query) {
      // The first prompt after a pull, as an agent's hook asks it.
      const out = spawnSync(process.execPath, [cli, "hook", "user-prompt", "--json"], {
        cwd: clone,
        env: hostEnv(home, extra),
        input: JSON.stringify({ hook_event_name: "UserPromptSubmit", cwd: clone, prompt: query }),
        encoding: "utf8",
      });
      return out.stdout.includes(query) ? [query] : [];
    },
    async recallAtWork(query) {
      // An agent at the shell recalls, then judges what it was shown: a feedback line.
      const run = (args: string[]) =>
        spawnSync(process.execPath, [cli, ...args], {
          cwd: clone,
          env: hostEnv(home, extra),
          encoding: "utf8",
        });
      const recalled = run(["recall", query, "--mode", "lexical", "--json"]);
      if (recalled.status !== 0) throw new Error(`cli recall failed: ${recalled.stderr}`);
      const id = (JSON.parse(recalled.stdout) as { results?: Array<{ id: string }> }).results?.[0]
        ?.id;
      if (id) run(["feedback", id, "--judgment", "relevant"]);
    },
    close: async () => {},
  };
}

/** Runs the team; never throws for a conflict or a loss (the report says). */
export async function runTeamScale(options: ScaleOptions): Promise<ScaleReport> {
  const { root, writers, writesPerWriter, seed } = options;
  const extra = options.env ?? {};
  const random = seededRandom(seed);
  const { clones } = setUpTeam(root, writers, options.cli);
  const home = join(root, "home");
  const hosts: Host[] = [];
  for (let i = 0; i < writers; i += 1) {
    const kind = options.hosts[i % options.hosts.length] as TeamHost;
    const clone = clones[i] as string;
    const h = cloneHome(root, i);
    hosts.push(
      kind === "pi"
        ? await piHost(clone, h)
        : kind === "mcp"
          ? await mcpHost(clone, h, options.mcpServer, extra)
          : cliHost(clone, h, options.cli, extra),
    );
  }
  const written: Written[] = [];
  const left = Array.from({ length: writers }, () => writesPerWriter);
  /** Which writes (indexes into `written`) each clone holds, and which the shared repository holds. */
  const holds = Array.from({ length: writers }, () => new Set<number>());
  const pushed = new Set<number>();
  const unpushed = Array.from({ length: writers }, () => false);
  const pulls: PullRecord[] = [];
  const conflicts: string[] = [];

  const pull = async (i: number) => {
    const clone = clones[i] as string;
    // A plain pull, whatever the tools appended since the last commit.
    const how = random() < 0.5 ? "merge" : "rebase";
    const outcome = pullOnce(clone, home, how);
    conflicts.push(...outcome.conflicted.map((f) => `${i}: ${f}`));
    const record: PullRecord = { writer: i, host: hosts[i]?.kind ?? "pi", how, ...outcome };
    // The newest page a teammate pushed that this clone did not hold before.
    const mine = holds[i] as Set<number>;
    const brought = [...pushed].filter((k) => !mine.has(k)).sort((a, b) => a - b);
    for (const k of brought) mine.add(k);
    const fresh = brought
      .map((k) => written[k] as Written)
      .filter((w) => w.kind === "page")
      .at(-1);
    if (fresh) {
      const t = performance.now();
      const titles = await (hosts[i] as Host).recallTitles(fresh.title);
      record.catchUpMs = performance.now() - t;
      record.found = titles.includes(fresh.title);
    }
    pulls.push(record);
  };

  const push = async (i: number) => {
    const clone = clones[i] as string;
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const out = spawnSync("git", ["push", "-q", "origin", "HEAD:main"], {
        cwd: clone,
        env: gitEnv(home),
        encoding: "utf8",
      });
      if (out.status === 0) {
        unpushed[i] = false;
        // Everything this clone holds is now shared.
        for (const k of holds[i] as Set<number>) pushed.add(k);
        return;
      }
      await pull(i);
    }
    throw new Error(`writer ${i} could not push`);
  };

  try {
    let total = writers * writesPerWriter;
    while (total > 0) {
      const i = Math.floor(random() * writers);
      if ((left[i] as number) === 0) continue;
      const clone = clones[i] as string;
      const n = writesPerWriter - (left[i] as number);
      const w: Written = {
        writer: i,
        kind: n % 2 === 0 ? "page" : "observation",
        title: `${n % 2 === 0 ? "Decision" : "Observed"} w${i} n${n} ${Math.floor(random() * 1e9).toString(36)}`,
      };
      await (hosts[i] as Host).write(w);
      (holds[i] as Set<number>).add(written.length);
      written.push(w);
      left[i] = (left[i] as number) - 1;
      total -= 1;
      runGit(clone, home, ["add", "-A"]);
      runGit(clone, home, ["commit", "-q", "-m", w.title]);
      unpushed[i] = true;
      // Back at work before the next commit: the agent recalls.
      await (hosts[i] as Host).recallAtWork(w.title);
      if (random() < 0.5) await pull(i);
      if (random() < 0.5) await push(i);
    }
    for (let i = 0; i < writers; i += 1) if (unpushed[i]) await push(i);
    for (let i = 0; i < writers; i += 1) await pull(i);
  } finally {
    for (const h of hosts) await h.close().catch(() => {});
  }

  const lostEvents: string[] = [];
  let repeats = 0;
  const lostPages: string[] = [];
  const unanswered: string[] = [];
  for (let i = 0; i < writers; i += 1) {
    const clone = clones[i] as string;
    conflicts.push(...filesWithMarkers(clone).map((f) => `${i}: ${f} (markers)`));
    const titles = new Set<string>();
    const pageIds = new Set<string>();
    const lines = new Set<string>();
    for (const line of eventLogLines(clone)) {
      // A line a union merge brought twice (criss-crossed merges): readers take it once.
      if (lines.has(line)) {
        repeats += 1;
        continue;
      }
      lines.add(line);
      const e = JSON.parse(line) as { kind: string; id?: string; title?: string };
      if (e.kind === "observation_recorded" && e.title) titles.add(e.title);
      if (e.kind === "page_created" && e.id?.startsWith("concepts/")) pageIds.add(e.id);
    }
    const service = createWikiService({
      cwd: clone,
      env: { ...hostEnv(cloneHome(root, i), extra), WIKI_HOME: cloneHome(root, i) },
    });
    try {
      const pages = service.status().vault?.pages ?? 0;
      const expectedPages = written.length;
      if (pages !== expectedPages) lostPages.push(`${i}: ${pages} of ${expectedPages} pages`);
      if (pageIds.size !== written.filter((w) => w.kind === "page").length) {
        lostEvents.push(`${i}: ${pageIds.size} pages created by events`);
      }
      for (const w of written) {
        if (w.kind === "observation" && !titles.has(w.title)) lostEvents.push(`${i}: ${w.title}`);
      }
      const step =
        options.verifySample === undefined
          ? 1
          : Math.max(1, Math.floor(written.length / options.verifySample));
      const sample = written.filter((_, k) => k % step === 0);
      for (const w of sample) {
        const r = await service.recall({ query: w.title, mode: "lexical" });
        if (!r.results.some((x) => x.title === w.title)) unanswered.push(`${i}: ${w.title}`);
      }
    } finally {
      await service.close();
    }
  }
  return {
    seed,
    writers,
    writes: written.length,
    pulls,
    conflicts,
    lostEvents,
    lostPages,
    unanswered,
    repeatedLines: repeats,
  };
}
