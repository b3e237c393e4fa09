/**
 * End to end, with the real clients: Claude Code, Codex and Gemini CLI from
 * npm at exact versions (test/helpers/agent-clients.ts), each pointed at a
 * stand-in model on loopback (test/helpers/stand-in-model.ts) that records
 * every request and answers with one call of our `wiki_recall`, then text.
 * The project is set up as the README says (`llm-wiki setup <client>` from
 * the package as npm ships it, with its bundled `dist/`), session recording
 * is turned on with `llm-wiki trajectory on`, HOME is a fresh folder, and
 * the vault is made afresh on every run around a random code name.
 *
 * What must reach the model, read from the recorded request bodies:
 * - priming: the block `llm-wiki hook session-start` gives for the project;
 * - the recall block for the prompt, fenced, naming the page the prompt is
 *   about and not the unrelated one;
 * - every tool our MCP server lists, as the client offers it (Claude Code
 *   names MCP tools and loads their schemas through ToolSearch, which the
 *   stand-in uses as a model would);
 * and after the run, the session recorded in the vault (a trajectory page
 * naming the client, the prompt and the `wiki_recall` call, and its
 * `trajectory_captured` event): Claude Code and Codex record at `Stop`,
 * Gemini CLI (which has no `Stop` hook) at `SessionEnd`.
 *
 * Nothing reaches the network: the stand-in answers every request the
 * clients send (no request it did not understand), updates and telemetry
 * are off, and the proxy variables the clients honour point any other
 * connection at a loopback port that refuses it. Codex's hook review and
 * the two clients' folder trust are stood in for as a user's answer would
 * be (test/helpers/stand-in-clients.ts).
 *
 * Run it with `pnpm test:clients` (downloads ~900 MB of clients the first
 * time into `.cache/clients`); the suite runs it where CI runs (`CI=true`).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ClientName,
  clientsWanted,
  type InstalledClient,
  installClient,
} from "./helpers/agent-clients.ts";
import { codeCacheEnv } from "./helpers/code-cache-env.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { connectBin, runBin, type ShippedPackage } from "./helpers/shipped-package.ts";
import { type StagedPackage, stagePackage } from "./helpers/staged-package.ts";
import {
  lengthenHookTimeouts,
  prepareClient,
  RECORDED_CLIENT,
  SETUP_NAME,
} from "./helpers/stand-in-clients.ts";
import {
  type StandInRequest,
  startStandIn,
  stringsOf,
  toolsBeforeModel,
} from "./helpers/stand-in-model.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  readEvents,
  removeTempDirs,
} from "./helpers/temp-vault.ts";

const installed: Partial<Record<ClientName, InstalledClient>> = {};
let pkg: StagedPackage | undefined;

/**
 * A project whose vault holds a page about its topic (what priming shows),
 * a page the prompt is about (on another subject, so the first prompt's
 * recall, which leaves primed pages out, has it to show) and an unrelated
 * page. Names are random words, new on every run.
 */
function makeProject() {
  const shop = randomWord(7, 10);
  const job = randomWord(7, 10);
  const other = randomWord(7, 10);
  const project = makeTempDir("llm-wiki-e2e-project-");
  const wanted = `concepts/${job}-reconciliation`;
  const unrelated = `concepts/${other}-font-hinting`;
  const day = "2026-03-02";
  const page = (type: string, title: string, description: string, body: string) =>
    pageText(
      {
        type,
        title: JSON.stringify(title),
        description: JSON.stringify(description),
        created: day,
        updated: day,
      },
      `# ${title}\n\n${body}\n`,
    );
  const vault = makeTempVault({
    root: project,
    config: { name: `${shop}-notes`, topic: `${shop} payment gateway` },
    pages: {
      [`entities/${shop}-gateway`]: page(
        "entity",
        `${shop} payment gateway`,
        `The ${shop} payment gateway: card authorisation, capture and refunds.`,
        `The ${shop} payment gateway takes card payments for the shop. ${randomWords(12)}.`,
      ),
      [wanted]: page(
        "concept",
        `${job} reconciliation`,
        `How the ${job} job reconciles the ledger against the bank's settlement files every night.`,
        `The ${job} job matches each settlement file line to a ledger entry by reference and amount; ` +
          `a line without a match opens a ticket for the finance team.`,
      ),
      [unrelated]: page(
        "concept",
        `${other} font hinting`,
        `Why ${other} renders its glyphs with light hinting.`,
        `The ${other} renderer uses light font hinting on low-density screens. ${randomWords(10)}.`,
      ),
    },
  });
  return {
    project,
    vault,
    wanted,
    unrelated,
    prompt: `how does the ${job} job reconcile the settlement files`,
    answer: `${job}: each settlement line is matched to a ledger entry.`,
  };
}

/** The `<wiki-recall …>…</wiki-recall>` blocks in a text. */
function recallBlocks(text: string): string[] {
  return text.match(/<wiki-recall\b[^>]*>[\s\S]*?<\/wiki-recall>/g) ?? [];
}

/**
 * The recall blocks in a request. Gemini CLI hands a SessionStart hook's
 * context over HTML-escaped inside its `<hook_context>` (the model reads
 * `&lt;wiki-recall …&gt;`): read back.
 */
function blocksIn(request: StandInRequest): string[] {
  const fromHtml = (s: string) =>
    s.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
  return stringsOf(request.body).flatMap((s) => recallBlocks(fromHtml(s)));
}

/**
 * The model's first turn of the task: the first request that offers tools
 * (side requests such as Gemini CLI's model router offer none). What hooks
 * add must be there, before any tool has run.
 */
function firstTurn(requests: StandInRequest[]): StandInRequest | undefined {
  return requests.find((r) => toolsBeforeModel(r).length > 0);
}

/**
 * The blocks our two hooks give for this prompt, from a copy of the project
 * under the same folder name, as the client's session will run them: first
 * `session-start` (which builds the index), then `user-prompt`.
 */
async function expectedBlocks(
  pack: ShippedPackage,
  project: string,
  env: NodeJS.ProcessEnv,
  prompt: string,
) {
  const copy = join(makeTempDir("llm-wiki-e2e-expected-"), basename(project));
  cpSync(project, copy, { recursive: true });
  const hook = async (kind: string, input: Record<string, string>) => {
    const stdin = JSON.stringify({ session_id: "expected", cwd: copy, ...input });
    const out = await runBin(pack.llmWiki, ["hook", kind], { cwd: copy, env, input: stdin });
    return recallBlocks(out.stdout);
  };
  const priming = await hook("session-start", {
    hook_event_name: "SessionStart",
    source: "startup",
  });
  const recall = await hook("user-prompt", { hook_event_name: "UserPromptSubmit", prompt });
  return { priming, recall };
}

/**
 * Shell commands `llm-wiki` and `llm-wiki-mcp` for the package, as a global
 * install puts them on PATH: configuration that names the commands rather
 * than paths finds them too.
 */
function binFolder(pack: ShippedPackage, dir: string): string {
  mkdirSync(dir);
  for (const [name, bin] of [
    ["llm-wiki", pack.llmWiki],
    ["llm-wiki-mcp", pack.mcp],
  ] as const) {
    const words = [bin.command, ...bin.args].map((w) => `'${w.replaceAll("'", `'\\''`)}'`);
    writeFileSync(join(dir, name), `#!/bin/sh\nexec ${words.join(" ")} "$@"\n`, { mode: 0o755 });
  }
  return dir;
}

interface Session {
  project: ReturnType<typeof makeProject>;
  env: NodeJS.ProcessEnv;
  expected: { priming: string[]; recall: string[] };
  requests: StandInRequest[];
  /** The client's stdout and stderr. */
  said: string;
  stdout: string;
  status: number | null;
}

/**
 * One prompt through the real client `name` in a fresh HOME and project, set
 * up as the README says, with session recording on or off; the stand-in
 * records what reached the model.
 */
async function runSession(name: ClientName, recording: boolean): Promise<Session> {
  const pack = pkg as StagedPackage;
  const client = installed[name] as InstalledClient;
  const home = makeTempDir("llm-wiki-e2e-home-");
  const project = makeProject();
  const cwd = project.project;
  // The Node that runs the tests (22.19 or newer) and the package's commands first on PATH.
  const env = {
    PATH: [
      join(process.execPath, ".."),
      binFolder(pack, join(home, "bin")),
      "/usr/local/bin",
      "/usr/bin",
      "/bin",
    ].join(":"),
    HOME: home,
    // The clients, our hooks and our server are all Node programs: one warm cache of compiled code.
    ...codeCacheEnv(),
    LLM_WIKI_HOOK_DEADLINE_MS: "600000",
    // No warm hook process: it would outlive the spec.
    LLM_WIKI_HOOK_SERVER: "off",
  };
  const expected = await expectedBlocks(pack, cwd, env, project.prompt);
  const llmWiki = async (args: string[]) => {
    const out = await runBin(pack.llmWiki, args, { cwd, env });
    expect(out.status, `llm-wiki ${args.join(" ")}: ${out.stderr}`).toBe(0);
  };
  await llmWiki(["trajectory", recording ? "on" : "off"]);
  await llmWiki(["setup", SETUP_NAME[name]]);
  lengthenHookTimeouts(name, cwd);

  const standIn = await startStandIn({
    answer: project.answer,
    toolSuffix: "wiki_recall",
    toolArguments: { query: project.prompt },
  });
  try {
    const run = prepareClient(name, { home, project: cwd, url: standIn.url }, project.prompt);
    const out = await runBin({ command: client.bin, args: [] }, run.args, {
      cwd,
      env: { ...env, ...run.env },
      timeout: 600_000,
    });
    return {
      project,
      env,
      expected,
      requests: standIn.requests,
      said: `${out.stdout}\n${out.stderr}`,
      stdout: out.stdout,
      status: out.status,
    };
  } finally {
    await standIn.close();
  }
}

/** The tools our MCP server lists for the session's project (recording on: its trajectory tools too). */
async function serverTools(session: Session): Promise<string[]> {
  const mcp = await connectBin(
    (pkg as StagedPackage).mcp,
    session.project.project,
    session.env,
    "e2e",
  );
  try {
    return (await mcp.listTools()).tools.map((t) => t.name);
  } finally {
    await mcp.close();
  }
}

const CLIENTS = ["claude", "codex", "gemini"] as const;

describe.runIf(clientsWanted)("the real clients against a stand-in model", () => {
  beforeAll(async () => {
    for (const name of CLIENTS) installed[name] = installClient(name);
    pkg = await stagePackage();
  }, 1_200_000);
  afterAll(() => {
    pkg?.remove();
    removeTempDirs();
  });

  for (const name of CLIENTS) {
    it(`${name}: priming, the recall block and our tools reach the model, and the session is recorded`, async () => {
      const session = await runSession(name, true);
      const { requests, said, expected } = session;
      const { vault, wanted, unrelated, prompt, answer } = session.project;
      expect(session.status, said).toBe(0);
      expect(session.stdout, said).toContain(answer);

      // Every request went to the stand-in, and it understood each one.
      expect(requests.length, said).toBeGreaterThan(0);
      expect(requests.filter((r) => "status" in r.answered && r.answered.status === 404)).toEqual(
        [],
      );
      expect(
        requests.some((r) => "tool" in r.answered && r.answered.tool.endsWith("wiki_recall")),
        said,
      ).toBe(true);

      // The model's first turn holds the priming and the prompt's recall block, as our hooks give them.
      expect(expected.priming, "priming of the project").toHaveLength(1);
      expect(expected.recall, "recall for the prompt").toHaveLength(1);
      expect(expected.recall[0]).toContain(`id: ${wanted}`);
      expect(expected.recall[0]).not.toContain(unrelated);
      const first = firstTurn(requests);
      expect(first, said).toBeDefined();
      const sent = blocksIn(first as StandInRequest);
      expect(sent, said).toContain(expected.priming[0]);
      expect(sent, said).toContain(expected.recall[0]);

      // Every tool our server lists is before the model, under the client's prefix for it.
      const listed = await serverTools(session);
      expect(listed).toContain("wiki_capture_trajectory");
      const ours = [...new Set(requests.flatMap(toolsBeforeModel))].filter((t) =>
        /llm[-_]wiki/.test(t),
      );
      for (const tool of listed)
        expect(
          ours.some((t) => t.endsWith(`_${tool}`)),
          `${tool} in ${ours.join(" ")}`,
        ).toBe(true);

      // The session, recorded in the vault: the user's words, the tool call, not the recall block.
      const folder = join(vault.paths.wiki, "trajectories");
      const pages = readdirSync(folder);
      expect(pages, said).toHaveLength(1);
      const text = readFileSync(join(folder, pages[0] as string), "utf8");
      expect(text).toContain(`client: ${RECORDED_CLIENT[name]}`);
      expect(text).toContain(`title: ${prompt}`);
      expect(text).toMatch(/^ {2}- \S*wiki_recall$/m);
      expect(text).not.toContain("<wiki-recall");
      const captured = readEvents(vault.paths).filter((e) => e.kind === "trajectory_captured");
      expect(captured.map((e) => e.title)).toEqual([prompt]);
    }, 900_000);
  }

  it("claude: with session recording off, the same session reaches the model and leaves no trajectory", async () => {
    const session = await runSession("claude", false);
    const { vault, answer } = session.project;
    expect(session.status, session.said).toBe(0);
    expect(session.stdout, session.said).toContain(answer);
    const sent = blocksIn(firstTurn(session.requests) as StandInRequest);
    expect(sent, session.said).toContain(session.expected.recall[0]);
    expect(await serverTools(session)).not.toContain("wiki_capture_trajectory");
    expect(existsSync(join(vault.paths.wiki, "trajectories"))).toBe(false);
    expect(readEvents(vault.paths).filter((e) => e.kind === "trajectory_captured")).toEqual([]);
  }, 900_000);
});
