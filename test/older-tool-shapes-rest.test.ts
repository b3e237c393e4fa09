/**
 * The rest of the older system's call shapes (`@zosmaai/pi-llm-wiki`
 * 0.12.2), run through the real MCP server process and a Pi session (faux
 * model) with working memory on: `wiki_observe {tags: "a b",
 * source_context}`, `wiki_ingest {model}`, `wiki_watch {interval: "stop"}`,
 * `wiki_capture_trajectory {steps: [{tool_calls}, {tool_call_id, tool_name,
 * is_error}], model}` and `wiki_distill_skills {trajectory_id}`. Each is
 * accepted and does what it did there; what has no equivalent is said in
 * the answer. Words are fresh each run.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall, type JsonValue } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFrontmatter } from "../extensions/llm-wiki/lib/vault/frontmatter.ts";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempVault, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

function page(vault: TempVault, path: string): { data: Record<string, unknown>; body: string } {
  const parsed = readFrontmatter(readFileSync(join(vault.paths.dir, path), "utf8"));
  return { data: parsed.data as Record<string, unknown>, body: parsed.content };
}

/** The older steps of one task: a prompt, an assistant turn calling two tools, their results. */
function olderSteps(word: string): { command: string; steps: Array<Record<string, JsonValue>> } {
  const [a, b] = [`c-${randomWord()}`, `c-${randomWord()}`];
  return {
    command: `grep -r ${word} src`,
    steps: [
      { role: "user", text: `find where ${word} is set` },
      {
        role: "assistant",
        text: `looking for ${word}`,
        tool_calls: [
          { id: a, name: "bash", arguments: { command: `grep -r ${word} src` } },
          { id: b, name: "read", arguments: { path: `src/${word}.ts` } },
        ],
      },
      {
        role: "tool",
        tool_call_id: a,
        tool_name: "bash",
        text: `src/${word}.ts:3`,
        is_error: false,
      },
      { role: "tool", tool_call_id: b, tool_name: "read", text: "no such file", is_error: true },
    ],
  };
}

/** What an older `wiki_observe` asks for, and what the page must then hold. */
function olderObservation() {
  const tags = [randomWord(), randomWord()];
  return {
    args: {
      title: `${randomWord()} ${randomWords(2)}`,
      content: randomWords(12),
      relevance: "high",
      tags: tags.join("  "),
      source_context: `Adding the ${randomWord()} module`,
    },
    tags,
  };
}

describe("the rest of the older shapes over MCP", () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    removeTempDirs();
  });

  async function start(vault: TempVault): Promise<Client> {
    const env = isolatedEnv();
    const settings = join(env.XDG_CONFIG_HOME as string, "llm-wiki");
    mkdirSync(settings, { recursive: true });
    writeFileSync(
      join(settings, "settings.json"),
      JSON.stringify({ "llm-wiki": { trajectories: true } }),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", vault.root],
      cwd: REPO,
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-older-shapes-rest", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  it("records an observation with tags as one string and its source_context", async () => {
    const vault = makeTempVault();
    const client = await start(vault);
    const { args, tags } = olderObservation();
    const observed = await call(client, "wiki_observe", args);
    expect(observed.isError, text(observed)).toBeFalsy();
    const written = page(vault, (observed.structuredContent as { path: string }).path);
    expect(written.data.tags).toEqual(tags);
    expect(written.data.relevance).toBe("high");
    expect(written.data.source_context).toBe(args.source_context);
    expect(written.body).toContain(args.content);
    expect(written.body).toContain(`Context: ${args.source_context}`);
  });

  it("hands a source over with an older model named, saying no model was used", async () => {
    const vault = makeTempVault();
    const client = await start(vault);
    const captured = await call(client, "wiki_capture_source", {
      text: randomWords(40),
      title: randomWords(3),
    });
    const sourceId = (captured.structuredContent as { id: string }).id;
    const ingest = await call(client, "wiki_ingest", {
      source_id: sourceId,
      model: `${randomWord()}/${randomWord()}`,
      background: true,
    });
    expect(ingest.isError, text(ingest)).toBeFalsy();
    expect((ingest.structuredContent as { source?: { sourceId?: string } }).source?.sourceId).toBe(
      sourceId,
    );
    expect(text(ingest)).toMatch(/model: .*no model was used/);
  });

  it("answers interval stop with how to remove the line, and still prints one", async () => {
    const vault = makeTempVault();
    const client = await start(vault);
    const stop = await call(client, "wiki_watch", { interval: "stop" });
    expect(stop.isError, text(stop)).toBeFalsy();
    expect(text(stop)).toContain("crontab -e");
    expect(text(stop)).toContain("# llm-wiki-autoupdate");
    expect(stop.structuredContent).toMatchObject({ ok: true, interval: "stop", installed: false });
    expect((stop.structuredContent as { line?: string }).line).toBeUndefined();
    const daily = await call(client, "wiki_watch", { interval: "daily" });
    expect((daily.structuredContent as { line?: string }).line).toMatch(/^0 8 \* \* \* /);
  });

  it("captures older steps and model as one tool step per call, then distills by trajectory_id", async () => {
    const vault = makeTempVault();
    const client = await start(vault);
    const word = `zq${randomWord(6, 8)}`;
    const { steps, command } = olderSteps(word);
    const model = `${randomWord()}/${randomWord()}`;
    const captured = await call(client, "wiki_capture_trajectory", {
      title: `Find ${word}`,
      task: `find where ${word} is set`,
      steps,
      model,
    });
    expect(captured.isError, text(captured)).toBeFalsy();
    const result = captured.structuredContent as {
      id: string;
      path: string;
      toolCallCount: number;
    };
    expect(result.toolCallCount).toBe(2);
    const written = page(vault, result.path);
    expect(written.data.model).toBe(model);
    // One of the two calls failed: a partial outcome, as the older is_error said.
    expect(written.data.outcome).toBe("partial");
    expect(written.body).toContain(command);
    expect(written.body).toMatch(/\*\*`bash`\*\*.* → ok/);
    expect(written.body).toMatch(/\*\*`read`\*\*.* → error: `no such file`/);
    expect(text(captured)).toContain("Older tool-call shape:");

    const bare = result.id.replace(/^trajectories\//, "");
    expect(bare).toMatch(/^TRJ-/);
    const distill = await call(client, "wiki_distill_skills", { trajectory_id: bare });
    expect(distill.isError, text(distill)).toBeFalsy();
    const batch = (distill.structuredContent as { batch: Array<{ id: string }> }).batch;
    expect(batch.map((b) => b.id)).toEqual([result.id]);
  });
});

describe("the rest of the older shapes in Pi", () => {
  const pi = piPerTest("llm-wiki-older-rest-pi-");
  let vault: TempVault;
  beforeEach(() => {
    vault = makeTempVault({ root: pi.dirs.project });
    writeFileSync(
      join(pi.dirs.agentDir, "settings.json"),
      JSON.stringify({ "llm-wiki": { trajectories: true } }),
    );
  });

  it("runs each shape with the older meaning", async () => {
    const word = `zq${randomWord(6, 8)}`;
    const { args: observation, tags } = olderObservation();
    const { steps, command } = olderSteps(word);
    const model = `${randomWord()}/${randomWord()}`;
    const harness = await pi.start();
    harness.script(
      [fauxToolCall("wiki_observe", observation)],
      [fauxToolCall("wiki_watch", { interval: "stop" })],
      [fauxToolCall("wiki_capture_source", { text: randomWords(30), title: randomWords(3) })],
      [fauxToolCall("wiki_ingest", { model, background: false })],
      [fauxToolCall("wiki_capture_trajectory", { title: `Find ${word}`, steps, model })],
      "done",
    );
    await harness.session.prompt("use the wiki the old way");
    const results = toolResults(harness.session);
    expect(results.map((r) => r.toolName)).toEqual([
      "wiki_observe",
      "wiki_watch",
      "wiki_capture_source",
      "wiki_ingest",
      "wiki_capture_trajectory",
    ]);
    for (const r of results) expect(r.isError, `${r.toolName}: ${textOf(r)}`).toBe(false);
    const [observe, watch, , ingest, capture] = results;
    const details = (r: (typeof results)[number] | undefined): unknown => {
      if (!r) throw new Error("a tool result is missing");
      return r.details;
    };

    const obs = page(vault, (details(observe) as { path: string }).path);
    expect(obs.data.tags).toEqual(tags);
    expect(obs.data.source_context).toBe(observation.source_context);
    expect(textOf(watch as never)).toContain("# llm-wiki-autoupdate");
    expect(textOf(ingest as never)).toMatch(/model: .*no model was used/);
    expect((details(ingest) as { part?: unknown }).part).toBeDefined();

    const trajectory = details(capture) as { id: string; path: string; toolCallCount: number };
    expect(trajectory.toolCallCount).toBe(2);
    const written = page(vault, trajectory.path);
    expect(written.data.model).toBe(model);
    expect(written.body).toContain(command);

    // The bare id the older system used names the same trajectory.
    const bare = trajectory.id.replace(/^trajectories\//, "");
    harness.script(
      [fauxToolCall("wiki_distill_skills", { trajectory_id: bare, mode: "handoff" })],
      "done",
    );
    await harness.session.prompt("distill it the old way");
    const distill = toolResults(harness.session).at(-1);
    expect(distill?.isError, distill ? textOf(distill) : "").toBe(false);
    const batch = (details(distill) as { batch: Array<{ id: string }> }).batch;
    expect(batch.map((b) => b.id)).toEqual([trajectory.id]);
  });
});
