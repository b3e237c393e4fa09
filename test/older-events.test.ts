/**
 * Events `@zosmaai/pi-llm-wiki` 0.12.2 writes (built here by its own Pi
 * tools and its own `appendEvent`: `capture`, `ensure_page`, `observe`,
 * `retro`, `ingest`, stamped `timestamp` rather than `ts`, naming pages by
 * `path`, `slug` or `source_id`) count in our `status` week of activity and
 * in our digest as pages created, sources captured and sources ingested,
 * through the real CLI. Titles are fresh each run.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

interface OldTool {
  name: string;
  execute(
    id: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onUpdate: undefined,
    ctx: { cwd: string; hasUI: boolean },
  ): Promise<{ content: Array<{ text: string }>; isError?: boolean; details?: unknown }>;
}
interface OldPi {
  registerTool(tool: OldTool): void;
  on(): void;
  registerCommand(): void;
  sendMessage(): void;
}
type Register = (pi: OldPi, runtime?: undefined, extra?: unknown) => void;

const OLD_LIB = "@zosmaai/pi-llm-wiki/dist/extensions/llm-wiki/lib";

async function oldTools(): Promise<Map<string, OldTool>> {
  const tools = new Map<string, OldTool>();
  const pi: OldPi = {
    registerTool: (tool) => tools.set(tool.name, tool),
    on: () => undefined,
    registerCommand: () => undefined,
    sendMessage: () => undefined,
  };
  const lib = (await import(`${OLD_LIB}/tools.js`)) as Record<string, Register>;
  const observation = (await import(`${OLD_LIB}/observation.js`)) as {
    registerWikiObserve: Register;
    createReminderState(): unknown;
  };
  const retro = (await import(`${OLD_LIB}/retro.js`)) as { registerWikiRetro: Register };
  lib.registerWikiBootstrap?.(pi);
  lib.registerWikiCaptureSource?.(pi, undefined);
  lib.registerWikiEnsurePage?.(pi, undefined);
  observation.registerWikiObserve(pi, undefined, observation.createReminderState());
  retro.registerWikiRetro(pi, undefined);
  return tools;
}

async function run(tools: Map<string, OldTool>, root: string, name: string, params: object) {
  const tool = tools.get(name);
  if (!tool) throw new Error(`the older system has no ${name}`);
  const out = await tool.execute("t", { ...params }, undefined, undefined, {
    cwd: root,
    hasUI: false,
  });
  expect(out.isError, `${name}: ${out.content.map((c) => c.text).join("")}`).toBeFalsy();
  return out;
}

interface Activity {
  events: number;
  pagesCreated: number;
  sourcesCaptured: number;
  sourcesIngested: number;
}

describe("the older system's events", () => {
  it("count in status and in the digest as pages created and sources captured and ingested", async () => {
    const root = makeTempDir("llm-wiki-older-events-");
    const env = { HOME: makeTempDir("llm-wiki-older-events-home-") };
    const tools = await oldTools();
    await run(tools, root, "wiki_bootstrap", { topic: randomWords(2), mode: "company" });
    const captured = await run(tools, root, "wiki_capture_source", {
      text: randomWords(40),
      title: randomWords(3),
    });
    const sourceId = (captured.details as { sourceId: string }).sourceId;
    await run(tools, root, "wiki_ensure_page", {
      type: "concept",
      title: randomWords(3),
      content: randomWords(20),
    });
    await run(tools, root, "wiki_observe", {
      title: randomWords(3),
      content: randomWords(20),
      type: "decision",
    });
    await run(tools, root, "wiki_retro", {
      slug: `older-${randomWords(2).replace(/\s+/g, "-")}`,
      title: randomWords(3),
      body: randomWords(20),
      category: "bugfix",
    });
    // Its ingest needs a model; its own event writer logs what its ingest logs.
    const metadata = (await import(`${OLD_LIB}/metadata.js`)) as {
      appendEvent(paths: unknown, event: Record<string, unknown>): void;
    };
    const utils = (await import(`${OLD_LIB}/utils.js`)) as {
      resolveVaultPaths(cwd: string): unknown;
    };
    metadata.appendEvent(utils.resolveVaultPaths(root), {
      kind: "ingest",
      source_id: sourceId,
      entities_created: 0,
      concepts_created: 1,
    });

    const status = runCli(["status", "--json"], { cwd: root, env });
    const activity = (JSON.parse(status.stdout) as { vault: { activity: Activity } }).vault
      .activity;
    expect(activity.events).toBeGreaterThanOrEqual(6);
    // The concept, the observation and the retro; the skeleton source counts as its capture.
    expect(activity.pagesCreated).toBe(3);
    expect(activity.sourcesCaptured).toBe(1);
    expect(activity.sourcesIngested).toBe(1);

    const digest = runCli(["digest", "--json"], { cwd: root, env });
    const result = JSON.parse(digest.stdout) as {
      ok: boolean;
      activity: {
        pagesCreated: Array<{ id: string }>;
        sourcesCaptured: Array<{ id?: string; page?: string }>;
        sourcesIngested: Array<{ id?: string }>;
      };
    };
    expect(result.ok).toBe(true);
    expect(result.activity.pagesCreated).toHaveLength(3);
    expect(result.activity.sourcesCaptured).toEqual([
      expect.objectContaining({ id: sourceId, page: `sources/${sourceId}` }),
    ]);
    expect(result.activity.sourcesIngested.map((s) => s.id)).toEqual([sourceId]);
  });
});
