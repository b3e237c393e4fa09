/**
 * Ingest state read both ways with `@zosmaai/pi-llm-wiki` 0.12.2's own code
 * (its `wiki_capture_source` and `wiki_ingest` Pi tools, its
 * `commitSynthesis`, imported from the installed package) on one vault:
 * a source it captured waits in our `ingest` queue until its ingest marks
 * the page, and then no longer does; a source our CLI captured and marked
 * ingested is not handed out again by its `wiki_ingest`. Texts are fresh
 * each run.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const OLD_LIB = "@zosmaai/pi-llm-wiki/dist/extensions/llm-wiki/lib";

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
type Register = (pi: unknown, runtime?: undefined) => void;

async function oldTools(): Promise<Map<string, OldTool>> {
  const tools = new Map<string, OldTool>();
  const pi = {
    registerTool: (tool: OldTool) => tools.set(tool.name, tool),
    on: () => undefined,
    registerCommand: () => undefined,
    sendMessage: () => undefined,
  };
  const lib = (await import(`${OLD_LIB}/tools.js`)) as Record<string, Register | undefined>;
  lib.registerWikiCaptureSource?.(pi, undefined);
  lib.registerWikiIngest?.(pi, undefined);
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

/** `ingest` hands out the next source and lists the others waiting. */
interface Queue {
  source?: { sourceId?: string };
  pending: Array<{ sourceId?: string }>;
}

describe("ingest state beside the older system", () => {
  it("is read both ways: neither re-queues a source the other ingested", async () => {
    const root = makeTempDir("llm-wiki-older-ingest-");
    const env = { HOME: makeTempDir("llm-wiki-older-ingest-home-") };
    const cli = (...args: string[]) => runCli(args, { cwd: root, env });
    expect(cli("init", "--name", randomWords(2)).status).toBe(0);
    const queue = () => {
      const out = cli("ingest", "--json");
      expect(out.status, out.stderr).toBe(0);
      const read = JSON.parse(out.stdout) as Queue;
      return [read.source, ...read.pending].flatMap((p) => (p?.sourceId ? [p.sourceId] : []));
    };
    const tools = await oldTools();

    // Theirs captured: ours queues it; theirs ingested: ours no longer does.
    const captured = await run(tools, root, "wiki_capture_source", {
      text: randomWords(40),
      title: randomWords(3),
    });
    const theirs = (captured.details as { sourceId: string }).sourceId;
    expect(queue()).toContain(theirs);
    const worker = (await import(`${OLD_LIB}/ingest-worker.js`)) as {
      commitSynthesis(paths: unknown, id: string, manifest: object, data: object): unknown;
    };
    const utils = (await import(`${OLD_LIB}/utils.js`)) as {
      resolveVaultPaths(cwd: string): unknown;
      readJson(path: string, fallback: object): object;
    };
    const paths = utils.resolveVaultPaths(root);
    const manifest = utils.readJson(
      join(root, ".llm-wiki", "raw", "sources", theirs, "manifest.json"),
      {},
    );
    worker.commitSynthesis(paths, theirs, manifest, {
      summary: randomWords(12),
      key_takeaways: [randomWords(5)],
      entities: [],
      concepts: [],
    });
    expect(queue()).not.toContain(theirs);

    // Ours captured and ingested: theirs does not hand it out again.
    const took = cli("capture", "--text", randomWords(40), "--title", randomWords(3));
    expect(took.status, took.stderr).toBe(0);
    const [ours] = queue();
    expect(ours).toMatch(/^SRC-/);
    const marked = cli("ingest", ours as string, "--mark-ingested", "--json");
    expect(marked.status, marked.stderr).toBe(0);
    expect(queue()).toEqual([]);
    // Its queue reads its meta/registry.json, which its own writes and session start rebuild.
    const metadata = (await import(`${OLD_LIB}/metadata.js`)) as {
      rebuildMetadata(paths: unknown): { ok: boolean };
    };
    expect(metadata.rebuildMetadata(paths).ok).toBe(true);
    const ingest = await run(tools, root, "wiki_ingest", { background: false, batch_size: 5 });
    const details = ingest.details as { batch?: string[] };
    expect(details.batch ?? []).not.toContain(ours);
    expect(details.batch ?? []).not.toContain(theirs);
  });
});
