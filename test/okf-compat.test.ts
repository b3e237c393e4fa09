/**
 * The compatibility gate: a vault written by `@zosmaai/pi-llm-wiki` 0.12.2
 * (built here by that package's own Pi tools, in OKF mode, with OKF v0.2
 * metadata, a type of its own and producer fields) opens, recalls, lints and
 * round-trips through `export --okf` / `import --okf` with our real CLI,
 * and no byte of its pages changes anywhere. And the reverse: a vault our
 * CLI creates and writes opens in that package's own status and lint.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

/** The slice of a pi-llm-wiki Pi tool the test drives. */
interface OldTool {
  name: string;
  execute(
    id: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onUpdate: undefined,
    ctx: { cwd: string; hasUI: boolean },
  ): Promise<{
    content: Array<{ text: string }>;
    isError?: boolean;
    details?: Record<string, unknown>;
  }>;
}
interface OldPi {
  registerTool(tool: OldTool): void;
  on(): void;
  registerCommand(): void;
  sendMessage(): void;
}
interface OldToolsModule {
  registerWikiBootstrap(pi: OldPi): void;
  registerWikiEnsurePage(pi: OldPi, runtime: undefined): void;
  registerWikiCaptureSource(pi: OldPi, runtime: undefined): void;
  registerWikiStatus(pi: OldPi): void;
  registerWikiLint(pi: OldPi, runtime: undefined): void;
}
interface OldObservationModule {
  registerWikiObserve(pi: OldPi, runtime: undefined, reminder: unknown): void;
  createReminderState(): unknown;
}

interface OldMetadataModule {
  rebuildMetadata(paths: unknown): { diagnostics: Array<{ code: string }> };
}
interface OldUtilsModule {
  resolveVaultPaths(cwd: string): unknown;
}

const OLD_LIB = "@zosmaai/pi-llm-wiki/dist/extensions/llm-wiki/lib";

/** The older system's tools, registered on a stand-in for Pi's extension API. */
async function oldTools(): Promise<Map<string, OldTool>> {
  const tools = new Map<string, OldTool>();
  const pi: OldPi = {
    registerTool: (tool) => tools.set(tool.name, tool),
    on: () => undefined,
    registerCommand: () => undefined,
    sendMessage: () => undefined,
  };
  const lib = (await import(`${OLD_LIB}/tools.js`)) as OldToolsModule;
  const observation = (await import(`${OLD_LIB}/observation.js`)) as OldObservationModule;
  lib.registerWikiBootstrap(pi);
  lib.registerWikiEnsurePage(pi, undefined);
  lib.registerWikiCaptureSource(pi, undefined);
  // Without a background runtime, its lint runs inline and returns its report.
  lib.registerWikiStatus(pi);
  lib.registerWikiLint(pi, undefined);
  observation.registerWikiObserve(pi, undefined, observation.createReminderState());
  return tools;
}

/** Runs one of the older system's tools, which must not report an error; its text and details. */
async function callFull(
  tools: Map<string, OldTool>,
  root: string,
  name: string,
  params: Record<string, unknown>,
) {
  const tool = tools.get(name);
  if (!tool) throw new Error(`pi-llm-wiki has no tool ${name}`);
  const out = await tool.execute("t", params, undefined, undefined, { cwd: root, hasUI: false });
  expect(out.isError ?? false, out.content[0]?.text).toBe(false);
  return { text: out.content[0]?.text ?? "", details: out.details ?? {} };
}

async function call(
  tools: Map<string, OldTool>,
  root: string,
  name: string,
  params: Record<string, unknown>,
) {
  return (await callFull(tools, root, name, params)).text;
}

interface Built {
  root: string;
  /** A word only the custom-type page holds, fresh each run. */
  runbookWord: string;
}

/** A vault written by pi-llm-wiki 0.12.2 alone. */
async function buildOldVault(): Promise<Built> {
  const root = join(makeTempDir("llm-wiki-okf-compat-"), "old");
  mkdirSync(root, { recursive: true });
  const tools = await oldTools();
  const runbookWord = `zq${randomWord(6, 9)}`;
  await call(tools, root, "wiki_bootstrap", { topic: "Compat gate", root });
  await call(tools, root, "wiki_ensure_page", {
    type: "concept",
    title: "Cache invalidation",
    content: [
      "---",
      "description: When and how cached answers are dropped.",
      "status: draft",
      "stale_after: 2020-01-01",
      "generated:",
      "  by: pi-llm-wiki/model",
      "  at: 2026-08-02T10:00:00Z",
      "verified:",
      "  - by: human:reviewer",
      "    at: 2026-08-03T09:00:00Z",
      "sources:",
      "  - id: SRC-2026-08-02-001",
      "    resource: /sources/SRC-2026-08-02-001.md",
      "domain: ai-engineering",
      "x_vendor:",
      "  nested: [1, two, {three: 3}]",
      "---",
      "# Cache invalidation",
      "",
      "We invalidate cached answers on every write to the ledger.",
      "",
    ].join("\n"),
  });
  await call(tools, root, "wiki_ensure_page", {
    type: "runbook",
    title: "Restart the ledger",
    content: `# Restart the ledger\n\nStop the ${runbookWord} worker first, then the ledger.\n`,
  });
  await call(tools, root, "wiki_ensure_page", { type: "entity", title: "Ledger service" });
  await call(tools, root, "wiki_capture_source", {
    text: "The ledger keeps every write; caches are invalidated on write.",
    title: "Ledger design notes",
  });
  await call(tools, root, "wiki_observe", {
    title: "Cache misses after deploy",
    content: "Right after a deploy the cache misses for a minute.",
    relevance: "high",
  });
  return { root, runbookWord };
}

/** Page files (not the reserved index/log views) of a snapshot of `wiki/`. */
function pagesOf(snapshot: Map<string, Buffer>): Map<string, Buffer> {
  return new Map([...snapshot].filter(([rel]) => !/(^|\/)(index|log)\.md$/i.test(rel)));
}

/** The files of a vault that are records, not derived (everything but `meta/` bar its event log). */
function authoritative(dot: string): Map<string, Buffer> {
  return new Map(
    [...snapshotFiles(dot)].filter(
      ([rel]) => !rel.startsWith("meta/") || rel === "meta/events.jsonl",
    ),
  );
}

function cli(cwd: string, args: string[]) {
  const run = runCli(args, { cwd, env: { HOME: cwd, WIKI_HOME: join(cwd, "no-personal") } });
  return run;
}

function json(run: ReturnType<typeof cli>): Record<string, unknown> {
  expect(run.stderr).not.toMatch(/^error/m);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe("a vault written by @zosmaai/pi-llm-wiki 0.12.2", () => {
  it("opens, recalls, lints and round-trips through OKF export/import with no change to its pages", async () => {
    const { root, runbookWord } = await buildOldVault();
    const dot = join(root, ".llm-wiki");
    const config = JSON.parse(readFileSync(join(dot, "config.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(config.knowledge_format).toBe("okf-0.2");
    const wikiBefore = snapshotFiles(join(dot, "wiki"));
    const rawBefore = snapshotFiles(join(dot, "raw"));
    const pages = pagesOf(wikiBefore);
    // The older system writes views at the root and in each folder: they are not pages.
    expect([...wikiBefore.keys()].filter((k) => /(^|\/)index\.md$/.test(k)).length).toBeGreaterThan(
      1,
    );
    expect(pages.size).toBe(5);
    const work = join(root, "..");

    const status = json(cli(work, ["status", "--json", "--vault", root]));
    const vault = status.vault as {
      pages: number;
      malformed: number;
      byType: Record<string, number>;
    };
    expect(vault.pages).toBe(pages.size);
    expect(vault.malformed).toBe(0);
    expect(vault.byType.runbook).toBe(1);
    const statusErrors = (status.diagnostics as Array<{ severity: string }>).filter(
      (d) => d.severity === "error",
    );
    expect(statusErrors).toEqual([]);

    expect(cli(work, ["reindex", "--vault", root]).status).toBe(0);
    const recall = json(cli(work, ["recall", "cache invalidation", "--json", "--vault", root]));
    const hits = recall.results as Array<{ id: string; freshness?: string }>;
    expect(hits[0]?.id).toBe("concepts/cache-invalidation");
    expect(hits[0]?.freshness).toBe("stale");
    const text = String(recall.rendered);
    expect(text).toContain("STALE");
    // The type pi-llm-wiki's user defined is kept and found.
    const runbook = json(cli(work, ["recall", runbookWord, "--json", "--vault", root]));
    expect(
      (runbook.results as Array<{ id: string; type: string }>).map((h) => [h.id, h.type]),
    ).toContainEqual(["concepts/restart-the-ledger", "runbook"]);

    const lint = cli(work, ["lint", "--json", "--vault", root]);
    const findings = JSON.parse(lint.stdout) as {
      vaults: Array<{ findings: Array<{ severity: string; code: string }> }>;
    };
    const lintErrors = findings.vaults
      .flatMap((v) => v.findings)
      .filter((f) => f.severity === "error");
    expect(lintErrors).toEqual([]);
    expect(lint.status).toBe(0);

    const bundle = join(work, "bundle");
    const exported = json(cli(work, ["export", "--okf", bundle, "--json", "--vault", root]));
    expect(exported.ok).toBe(true);
    for (const [rel, bytes] of pages)
      expect(readFileSync(join(bundle, rel)).equals(bytes), rel).toBe(true);
    expect(readFileSync(join(bundle, "index.md"), "utf8")).toMatch(
      /^---\nokf_version: "0\.2"\n---\n/,
    );

    const fresh = join(work, "fresh");
    mkdirSync(fresh);
    expect(cli(work, ["init", "--vault", fresh]).status).toBe(0);
    const freshBefore = authoritative(join(fresh, ".llm-wiki"));
    const review = json(cli(work, ["import", "--okf", bundle, "--json", "--vault", fresh]));
    expect((review.creates as Array<{ path: string }>).map((c) => c.path).sort()).toEqual(
      [...pages.keys()].map((rel) => `wiki/${rel}`).sort(),
    );
    // The review is a dry run: not one file of the vault changed.
    expect(authoritative(join(fresh, ".llm-wiki"))).toEqual(freshBefore);
    const applied = json(
      cli(work, ["import", "--okf", bundle, "--apply", "--json", "--vault", fresh]),
    );
    expect(applied.ok).toBe(true);
    expect(applied.conflicts).toEqual([]);
    const imported = snapshotFiles(join(fresh, ".llm-wiki", "wiki"));
    for (const [rel, bytes] of pages) expect(imported.get(rel)?.equals(bytes), rel).toBe(true);

    // The original, imported onto itself: every page identical, nothing written.
    const back = json(cli(work, ["import", "--okf", bundle, "--apply", "--json", "--vault", root]));
    expect(back.creates).toEqual([]);
    expect((back.identical as unknown[]).length).toBe(pages.size);

    // Its event log reads as ours: every event it wrote (a `timestamp` and
    // no `ts`: ours write both) is in `recent`.
    const oldEvents = readFileSync(join(dot, "meta", "events.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { kind: string; timestamp?: string; ts?: string })
      .filter((e) => e.ts === undefined);
    expect(oldEvents.length).toBeGreaterThan(0);
    expect(oldEvents.every((e) => typeof e.timestamp === "string")).toBe(true);
    const recent = json(
      cli(work, ["recent", "--since", "2000-01-01", "--limit", "100", "--json", "--vault", root]),
    );
    const listed = (recent.entries as Array<{ kind: string }>).map((e) => e.kind);
    for (const e of oldEvents) expect(listed, e.kind).toContain(e.kind);

    // Nothing we did changed a byte of the original's pages or raw packets
    // (its index.md/log.md are views, regenerated by whichever tool writes).
    expect(pagesOf(snapshotFiles(join(dot, "wiki")))).toEqual(pages);
    expect(snapshotFiles(join(dot, "raw"))).toEqual(rawBefore);
  }, 180_000);
});

describe("a vault our CLI creates, opened by @zosmaai/pi-llm-wiki 0.12.2", () => {
  // Plain `init` (our defaults), and one naming a topic and the older
  // system's own mode word: both are OKF vaults that system must accept.
  const inits: Array<[string, () => string[]]> = [
    ["with init's defaults", () => []],
    [
      "with a name, a topic and a mode",
      () => ["--name", randomWords(2), "--topic", randomWords(3), "--mode", "company"],
    ],
  ];

  it.each(inits)(
    "%s: its wiki_status reports no blocking problem and its wiki_lint runs",
    async (_label, initArgs) => {
      const work = makeTempDir("llm-wiki-okf-reverse-");
      const root = join(work, "ours");
      mkdirSync(root);
      expect(cli(work, ["init", "--vault", root, ...initArgs()]).status).toBe(0);
      const title = `${randomWords(2)} ${randomWord(6, 9)}`;
      const written = cli(work, [
        "page",
        "--vault",
        root,
        "--type",
        "concept",
        "--title",
        title,
        "--description",
        randomWords(5),
        "--tag",
        randomWord(),
        "--content",
        `${randomWords(8)}.`,
      ]);
      expect(written.status, written.stderr).toBe(0);
      const config = JSON.parse(
        readFileSync(join(root, ".llm-wiki", "config.json"), "utf8"),
      ) as Record<string, unknown>;
      expect(config.knowledge_format).toBe("okf-0.2");

      const tools = await oldTools();
      const status = await callFull(tools, root, "wiki_status", {});
      expect(status.details.knowledgeFormat, status.text).toBe("okf-0.2");
      expect(status.details.blockingDiagnostics, status.text).toEqual([]);
      expect(status.text).not.toMatch(/config_invalid|okf_version_mismatch|Blocking/);

      const lint = await call(tools, root, "wiki_lint", {});
      expect(lint).toContain("lint complete");
      expect(lint).not.toContain("Projection-blocking");
      // It found the page our CLI wrote, as a page.
      expect(lint).toMatch(/^- Pages: 1$/m);

      // Our event log reads as its own: a valid timestamp on every line, and
      // the events we logged in its generated activity log.
      const ours = readFileSync(join(root, ".llm-wiki", "meta", "events.jsonl"), "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as { kind: string });
      expect(ours.length).toBeGreaterThan(0);
      const metadata = (await import(`${OLD_LIB}/metadata.js`)) as OldMetadataModule;
      const utils = (await import(`${OLD_LIB}/utils.js`)) as OldUtilsModule;
      const rebuilt = metadata.rebuildMetadata(utils.resolveVaultPaths(root));
      expect(rebuilt.diagnostics.map((d) => d.code)).not.toContain("event_invalid_timestamp");
      const log = readFileSync(join(root, ".llm-wiki", "wiki", "log.md"), "utf8");
      // (its log escapes Markdown: vault\_initialized)
      for (const e of ours) expect(log, e.kind).toContain(e.kind.replaceAll("_", "\\_"));
    },
    180_000,
  );
});
