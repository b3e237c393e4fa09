/**
 * The Pi host, end to end: a real in-process Pi session (Pi's own agent loop,
 * tools, settings and extension loader) loading `extensions/llm-wiki/index.ts`
 * from its path, driven by Pi's scripted faux model, on a temporary copy of
 * the example vault. Every model request the faux model receives is recorded,
 * so the tests read exactly what the model would have seen.
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fauxToolCall, getCurrentSystemPrompt, type Message } from "@earendil-works/pi-ai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import {
  eventually,
  type PiHarness,
  startPi as startPiSession,
  textOf,
} from "./helpers/pi-session.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const RECALL_TAG = "<wiki-recall";

const CACHE_PROMPT = "how do we keep the cache consistent";
const UNRELATED_PROMPT = "write a haiku about autumn leaves";
const TTL_PROMPT = "why did we drop the TTL cache?";

interface Dirs {
  root: string;
  home: string;
  agentDir: string;
  project: string;
}

const open: PiHarness[] = [];

/** A real Pi session on `dirs`, closed after the test. */
async function startPi(dirs: Dirs, options: { projectTrusted?: boolean } = {}): Promise<PiHarness> {
  const harness = await startPiSession(dirs, options);
  expect(harness.errors).toEqual([]);
  open.push(harness);
  return harness;
}

/** The messages a request carried after the user's `prompt` (its last occurrence). */
function afterPrompt(request: Message[], prompt: string): Message[] {
  const at = request.findLastIndex((m) => m.role === "user" && textOf(m) === prompt);
  expect(at, `the request carries the prompt "${prompt}"`).toBeGreaterThanOrEqual(0);
  return request.slice(at + 1);
}

const isRecall = (m: Message) => m.role === "user" && textOf(m).startsWith(RECALL_TAG);

/** Recall through a service of the test's own, reading the index the extension maintains. */
/** What the index holds now: no refresh, so only the extension's own reindex can add a page. */
async function recallIds(project: string, query: string): Promise<string[]> {
  const service = createWikiService({ cwd: project });
  try {
    const result = await service.recall({ query, policy: "explicit", refreshIndex: false });
    return result.results.map((r) => r.id);
  } finally {
    await service.close();
  }
}

function writeSettings(file: string, section: Record<string, unknown>): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ "llm-wiki": section }, null, 2)}\n`);
}

let dirs: Dirs;

beforeEach(async () => {
  const root = makeTempDir("llm-wiki-pi-");
  dirs = {
    root,
    home: join(root, "home"),
    agentDir: join(root, "agent"),
    project: join(root, "project"),
  };
  mkdirSync(dirs.home, { recursive: true });
  mkdirSync(dirs.agentDir, { recursive: true });
  // The example vault without its generated index: this test builds its own.
  cpSync(EXAMPLE, dirs.project, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  vi.stubEnv("HOME", dirs.home);
  vi.stubEnv("WIKI_HOME", dirs.home);
  vi.stubEnv("XDG_CACHE_HOME", join(root, "xdg-cache"));
  vi.stubEnv("PI_CODING_AGENT_DIR", dirs.agentDir);
});

afterEach(async () => {
  for (const harness of open.splice(0)) {
    await harness.close();
    // Shutdown (stopping background work, closing the service) reports no extension error either.
    expect(harness.errors).toEqual([]);
  }
  vi.unstubAllEnvs();
  removeTempDirs();
});

async function indexProject(): Promise<void> {
  const service = createWikiService({ cwd: dirs.project });
  try {
    const result = await service.reindex({ scope: "all" });
    expect(result.ok).toBe(true);
  } finally {
    await service.close();
  }
}

describe("llm-wiki in a real Pi session", () => {
  it("recalls on request and automatically, only when the vault matches, with a fixed system prompt", async () => {
    await indexProject();
    // Automatic recall alone: session priming has its own specs (priming.test.ts).
    writeSettings(join(dirs.agentDir, "settings.json"), { sessionPriming: false });
    const pi = await startPi(dirs);

    // Turn 1: a matching prompt; the model also calls wiki_recall itself.
    pi.script(
      [fauxToolCall("wiki_recall", { query: CACHE_PROMPT })],
      "The cache is keyed by version vectors.",
    );
    await pi.session.prompt(CACHE_PROMPT);
    // Turn 2: nothing in the vault is about this.
    pi.script("Crimson leaves descend");
    await pi.session.prompt(UNRELATED_PROMPT);
    // Turn 3: matching again.
    pi.script("ADR-004 replaced the TTL.");
    await pi.session.prompt(TTL_PROMPT);

    expect(pi.requests).toHaveLength(4);
    const [first, afterTool, unrelated, third] = pi.requests as [
      Message[],
      Message[],
      Message[],
      Message[],
    ];

    // (1) The explicit tool works and answers with the page about cache consistency.
    const toolResult = afterTool.find((m) => m.role === "toolResult");
    expect(toolResult).toMatchObject({ toolName: "wiki_recall", isError: false });
    expect(toolResult && textOf(toolResult)).toContain("concepts/cache-invalidation");

    // (2) Automatic recall sits right after the user's prompt, as a user-role message.
    const [injected] = afterPrompt(first, CACHE_PROMPT);
    expect(injected && isRecall(injected)).toBe(true);
    expect(injected && textOf(injected)).toContain("concepts/cache-invalidation");
    const [injectedAgain] = afterPrompt(third, TTL_PROMPT);
    expect(injectedAgain && isRecall(injectedAgain)).toBe(true);
    expect(injectedAgain && textOf(injectedAgain)).toContain(
      "syntheses/adr-004-cache-invalidation-by-version-vectors",
    );

    // (3) An unrelated prompt gets nothing: the prompt is the last message sent.
    expect(afterPrompt(unrelated, UNRELATED_PROMPT)).toEqual([]);
    expect(unrelated.filter(isRecall)).toHaveLength(1);

    // The recall is kept in the session as a hidden custom message.
    const custom = pi.session.messages.filter((m) => m.role === "custom");
    expect(custom.map((m) => [m.customType, m.display])).toEqual([
      ["llm-wiki-recall", false],
      ["llm-wiki-recall", false],
    ]);

    // (4) The system prompt is byte-identical on every request, and never patched mid-conversation.
    const prompts = pi.requests.map((r) => getCurrentSystemPrompt(r));
    expect(prompts[0]).toContain("wiki_recall");
    expect(new Set(prompts).size).toBe(1);
    for (const request of pi.requests) {
      expect(request.filter((m) => m.role === "system")).toHaveLength(1);
      expect(request[0]?.role).toBe("system");
    }

    // (6) The status line says what recall did.
    expect(pi.statuses).toContain("wiki: no match");
    expect(
      pi.statuses.filter((s) => /^wiki: [1-9]\d* pages? · [a-z]+ · \d+ ms$/.test(s)),
    ).toHaveLength(2);
    expect(pi.errors).toEqual([]);
  });

  it("injects nothing when Pi's global settings say autoRecall: false", async () => {
    await indexProject();
    writeSettings(join(dirs.agentDir, "settings.json"), {
      autoRecall: false,
      sessionPriming: false,
    });
    const pi = await startPi(dirs);
    pi.script("ok");
    await pi.session.prompt(CACHE_PROMPT);

    expect(afterPrompt(pi.requests[0] ?? [], CACHE_PROMPT)).toEqual([]);
    expect(pi.session.messages.some((m) => m.role === "custom")).toBe(false);
    expect(pi.statuses).toEqual(["wiki: auto-recall off"]);
    expect(pi.notices).toEqual([]);
  });

  it("reads the project's .pi/settings.json only when the project is trusted", async () => {
    await indexProject();
    writeSettings(join(dirs.project, ".pi", "settings.json"), { autoRecall: false });
    writeSettings(join(dirs.agentDir, "settings.json"), { sessionPriming: false });

    const untrusted = await startPi(dirs, { projectTrusted: false });
    untrusted.script("ok");
    await untrusted.session.prompt(CACHE_PROMPT);
    const [recalled] = afterPrompt(untrusted.requests[0] ?? [], CACHE_PROMPT);
    expect(recalled && isRecall(recalled)).toBe(true);

    const trusted = await startPi(dirs, { projectTrusted: true });
    trusted.script("ok");
    await trusted.session.prompt(CACHE_PROMPT);
    expect(afterPrompt(trusted.requests[0] ?? [], CACHE_PROMPT)).toEqual([]);
  });

  it("reports an invalid setting once, then recalls with the default", async () => {
    await indexProject();
    writeSettings(join(dirs.agentDir, "settings.json"), { autoRecall: "yes", turnBudgetMs: 5 });
    const pi = await startPi(dirs);
    pi.script("ok");
    await pi.session.prompt(CACHE_PROMPT);
    pi.script("ok");
    await pi.session.prompt(TTL_PROMPT);

    expect(pi.notices).toHaveLength(1);
    expect(pi.notices[0]?.type).toBe("warning");
    expect(pi.notices[0]?.message).toContain('"autoRecall"');
    expect(pi.notices[0]?.message).toContain('"turnBudgetMs"');
    const [recalled] = afterPrompt(pi.requests[0] ?? [], CACHE_PROMPT);
    expect(recalled && isRecall(recalled)).toBe(true);
  });

  it("makes a page written with Pi's write tool recallable after a background reindex", async () => {
    await indexProject();
    const pi = await startPi(dirs);
    const page = [
      "---",
      "type: concept",
      'title: "Zanzibar flux capacitor"',
      'description: "The Zanzibar flux capacitor smooths reconnect bursts."',
      "---",
      "# Zanzibar flux capacitor",
      "",
      "The zanzibar flux capacitor spreads websocket reconnects over thirty seconds.",
      "",
    ].join("\n");
    expect(await recallIds(dirs.project, "zanzibar flux capacitor")).not.toContain(
      "concepts/zanzibar-flux-capacitor",
    );

    pi.script(
      [
        fauxToolCall("write", {
          path: ".llm-wiki/wiki/concepts/zanzibar-flux-capacitor.md",
          content: page,
        }),
      ],
      "Noted.",
    );
    await pi.session.prompt("remember the zanzibar flux capacitor");
    expect(
      existsSync(join(dirs.project, ".llm-wiki/wiki/concepts/zanzibar-flux-capacitor.md")),
    ).toBe(true);

    const found = await eventually(async () =>
      (await recallIds(dirs.project, "zanzibar flux capacitor")).includes(
        "concepts/zanzibar-flux-capacitor",
      ),
    );
    expect(found).toBe(true);
    expect(
      await eventually(() => pi.statuses.some((s) => s.startsWith("wiki: index updated"))),
    ).toBe(true);
    expect(pi.statuses).toContain("wiki: indexing…");
    expect(pi.statuses.find((s) => s.startsWith("wiki: index updated"))).toMatch(
      /^wiki: index updated · 1 page · \d+ ms$/,
    );

    // The session's own automatic recall sees the new page too.
    pi.script("ok");
    await pi.session.prompt("what does the zanzibar flux capacitor do");
    const [recalled] = afterPrompt(
      pi.requests.at(-1) ?? [],
      "what does the zanzibar flux capacitor do",
    );
    expect(recalled && textOf(recalled)).toContain("concepts/zanzibar-flux-capacitor");
    expect(pi.errors).toEqual([]);
  });

  it("coalesces a burst of page writes into one background pass", async () => {
    await indexProject();
    const pi = await startPi(dirs);
    const note = (title: string) => `---\ntype: concept\ntitle: "${title}"\n---\n# ${title}\n`;
    // Two writes a model round trip apart: well inside the quiet period.
    pi.script(
      [
        fauxToolCall("write", {
          path: ".llm-wiki/wiki/concepts/alpha-burst.md",
          content: note("Alpha burst"),
        }),
      ],
      [
        fauxToolCall("write", {
          path: ".llm-wiki/wiki/concepts/beta-burst.md",
          content: note("Beta burst"),
        }),
      ],
      "Both noted.",
    );
    await pi.session.prompt("note alpha and beta");

    expect(
      await eventually(async () => {
        const ids = await recallIds(dirs.project, "burst");
        return ids.includes("concepts/alpha-burst") && ids.includes("concepts/beta-burst");
      }),
    ).toBe(true);
    expect(
      await eventually(() => pi.statuses.some((s) => s.startsWith("wiki: index updated"))),
    ).toBe(true);
    expect(pi.statuses.filter((s) => s === "wiki: indexing…")).toHaveLength(1);
    expect(pi.statuses.find((s) => s.startsWith("wiki: index updated"))).toMatch(
      /^wiki: index updated · 2 pages · \d+ ms$/,
    );
  });

  it("indexes a vault that has no index yet at session start, without being asked", async () => {
    writeSettings(join(dirs.agentDir, "settings.json"), { sessionPriming: false });
    const pi = await startPi(dirs);
    expect(
      await eventually(() => pi.statuses.some((s) => s.startsWith("wiki: index updated"))),
    ).toBe(true);
    pi.script("ok");
    await pi.session.prompt(CACHE_PROMPT);
    const [recalled] = afterPrompt(pi.requests[0] ?? [], CACHE_PROMPT);
    expect(recalled && textOf(recalled)).toContain("concepts/cache-invalidation");
  });

  it("without any vault, suggests creating one once and creates nothing", async () => {
    const bare = join(dirs.root, "bare-project");
    mkdirSync(bare);
    const pi = await startPi({ ...dirs, project: bare });
    pi.script("ok");
    await pi.session.prompt(CACHE_PROMPT);
    pi.script("ok");
    await pi.session.prompt(TTL_PROMPT);

    expect(pi.notices).toHaveLength(1);
    expect(pi.notices[0]?.message).toContain("/wiki-init");
    expect(pi.notices[0]?.message).toContain("wiki_bootstrap");
    expect(existsSync(join(bare, ".llm-wiki"))).toBe(false);
    expect(pi.requests.flat().some(isRecall)).toBe(false);

    // The suggested command exists and creates the vault, which is then indexed.
    await pi.session.prompt("/wiki-init Notes about the bare project");
    expect(existsSync(join(bare, ".llm-wiki", "config.json"))).toBe(true);
    expect(pi.notices.at(-1)?.message).toContain("created vault at");
    expect(
      await eventually(() => pi.statuses.some((s) => s.startsWith("wiki: index updated"))),
    ).toBe(true);
    expect(pi.errors).toEqual([]);
  });

  it("answers every other tool with the shared renderings and the service result", async () => {
    await indexProject();
    // An embedding model that is not there: vectors must fail cleanly, without a download.
    vi.stubEnv("QMD_EMBED_MODEL", join(dirs.root, "missing-embed.gguf"));
    const pi = await startPi(dirs);
    pi.script(
      [fauxToolCall("wiki_status", {})],
      [fauxToolCall("wiki_search", { query: "Cache invalidation" })],
      [
        fauxToolCall("wiki_ensure_page", {
          type: "concept",
          title: "Backpressure",
          content: "Backpressure keeps the quokka relay from flooding slow clients.",
        }),
      ],
      [fauxToolCall("wiki_reindex", { scope: "changed" })],
      [fauxToolCall("wiki_reindex_embeddings", {})],
      "All done.",
    );
    await pi.session.prompt("check the wiki");

    const results = new Map(
      pi.session.messages.flatMap((m) => (m.role === "toolResult" ? [[m.toolName, m]] : [])),
    );
    const text = (name: string) => {
      const result = results.get(name);
      return result ? textOf(result) : "";
    };
    expect([...results.keys()].sort()).toEqual([
      "wiki_ensure_page",
      "wiki_reindex",
      "wiki_reindex_embeddings",
      "wiki_search",
      "wiki_status",
    ]);
    expect(results.get("wiki_status")?.isError).toBe(false);
    expect(text("wiki_status")).toMatch(/^vault {3}.*\(project\)/);
    expect(text("wiki_status")).toContain("index   ready, 35 documents");
    expect(text("wiki_search")).toContain("concepts/cache-invalidation  Cache invalidation");
    expect(results.get("wiki_ensure_page")?.isError).toBe(false);
    expect(text("wiki_ensure_page")).toBe(
      "created concepts/backpressure (.llm-wiki/wiki/concepts/backpressure.md)",
    );
    expect(existsSync(join(dirs.project, ".llm-wiki/wiki/concepts/backpressure.md"))).toBe(true);
    expect(results.get("wiki_reindex")?.isError).toBe(false);
    expect(text("wiki_reindex")).toContain(`${dirs.project}: `);
    // The alias says it is deprecated, and reports the missing model as a failure.
    expect(results.get("wiki_reindex_embeddings")?.isError).toBe(true);
    expect(text("wiki_reindex_embeddings")).toMatch(
      /^wiki_reindex_embeddings is deprecated; use wiki_reindex/,
    );
    expect(text("wiki_reindex_embeddings")).toContain("error: vectors not built");
    expect(results.get("wiki_reindex_embeddings")?.details).toMatchObject({
      ok: false,
      diagnostics: [{ code: "model_unavailable", severity: "error" }],
    });
    // The page made by wiki_ensure_page is indexed too.
    expect(
      await eventually(async () =>
        (await recallIds(dirs.project, "quokka relay")).includes("concepts/backpressure"),
      ),
    ).toBe(true);
    expect(pi.errors).toEqual([]);
  });
});
