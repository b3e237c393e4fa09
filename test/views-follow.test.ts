/**
 * Spec: the generated views follow writes through the service, and a
 * capture of content already captured returns the existing source. On real
 * temp vaults with the real service: a burst of writes gives one refresh
 * (counted through the service's `views.onRefresh` hook, not by timing);
 * the refreshed views are the bytes a full `rebuild-meta` writes; OKF's
 * `wiki/index.md` and `wiki/log.md` only where the vault is in OKF mode, a
 * foreign `okf_version` still guarded; pages, `raw/` and events untouched
 * by a refresh; a failed refresh is a diagnostic, never a failed write; the
 * incremental event-log reader gives what a full read gives, on random logs.
 */
import { randomInt } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readLogEntries } from "../extensions/llm-wiki/lib/views/event-entries.ts";
import { createLogFollower } from "../extensions/llm-wiki/lib/views/event-entries-follow.ts";
import type { ViewsRefresh } from "../extensions/llm-wiki/lib/views/views-follow.ts";
import { startVaultWatch } from "../extensions/llm-wiki/lib/watch/vault-watcher.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import {
  makeTempDir,
  makeTempVault,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const FOLLOWED = ["meta/index.md", "meta/log.md"];
const OKF_FOLLOWED = [...FOLLOWED, "wiki/index.md", "wiki/log.md"];

function page(title: string): string {
  return `---\n${JSON.stringify({ type: "concept", title, description: randomWords(3) })}\n---\n${randomWords(8)}\n`;
}

/** A vault with a few pages and an event, and a service whose refreshes are recorded. */
function setup(config: Record<string, unknown>, debounceMs = 60_000) {
  const pages: Record<string, string> = {};
  for (let i = 0; i < 4; i += 1) pages[`concepts/${randomWord(6, 6)}-${i}`] = page(randomWords(2));
  const vault = makeTempVault({ config, pages });
  mkdirSync(vault.paths.meta, { recursive: true });
  appendFileSync(
    vault.paths.events,
    `${JSON.stringify({ ts: "2026-03-01T10:00:00.000Z", kind: "page_created", id: "concepts/x" })}\n`,
  );
  const refreshes: ViewsRefresh[] = [];
  const service = serviceFor(vault.root, {
    views: { debounceMs, onRefresh: (r) => refreshes.push(r) },
  });
  return { vault, service, refreshes };
}

/** A view's text; "" while it does not exist. */
function read(vault: TempVault, rel: string): string {
  const path = join(vault.paths.dir, rel);
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/** Every file but the generated views (and the registry's caches under meta/). */
function sources(vault: TempVault): Map<string, Buffer> {
  const all = snapshotFiles(vault.paths.dir);
  for (const rel of [...all.keys()]) {
    const generated =
      (rel.startsWith("meta/") && rel !== "meta/events.jsonl") ||
      /(^|\/)index\.md$/.test(rel.replace(/^wiki\//, "")) ||
      rel === "wiki/log.md";
    if (generated) all.delete(rel);
  }
  return all;
}

/** A few writes of different kinds in one go; their titles. */
function burst(service: WikiService): string[] {
  const titles = [randomWords(3), randomWords(3), randomWords(3)];
  for (const title of titles) {
    const r = service.ensurePage({ type: "concept", title, description: randomWords(4) });
    expect(r.ok, JSON.stringify(r.diagnostics)).toBe(true);
  }
  expect(service.observe({ title: titles[0] ?? "", content: randomWords(6) }).ok).toBe(true);
  expect(service.logEvent({ kind: "query", detail: { question: randomWords(4) } }).ok).toBe(true);
  return titles;
}

/** Resolves once `pred` holds; a hang guard only, never a timing assertion. */
async function until(pred: () => boolean, guardMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!pred()) {
    if (Date.now() - start > guardMs) throw new Error("condition never held");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("views follow writes", () => {
  it("a burst of writes gives one refresh; the views are then what a full rebuild writes", async () => {
    const { vault, service, refreshes } = setup({ name: "v", knowledge_format: "okf" });
    await service.rebuildMeta();
    const titles = burst(service);
    const before = sources(vault);
    expect(refreshes).toEqual([]);
    await service.flushViews();
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]?.writes).toBe(5);
    expect(refreshes[0]?.written).toEqual(expect.arrayContaining(OKF_FOLLOWED));
    for (const title of titles) {
      expect(read(vault, "meta/index.md")).toContain(title);
      expect(read(vault, "wiki/index.md")).toContain("concepts/");
      expect(read(vault, "wiki/concepts/index.md")).toContain(title);
    }
    expect(read(vault, "meta/log.md")).toContain("query");
    expect(read(vault, "wiki/log.md")).toContain("**query**");
    // Pages, raw/ and the event log are only read.
    expect(sources(vault)).toEqual(before);
    // Nothing left pending: a second flush refreshes nothing.
    await service.flushViews();
    expect(refreshes).toHaveLength(1);
    // Byte-identical to a full rebuild: it finds every followed view as generated.
    const full = await service.rebuildMeta();
    const report = full.vaults[0];
    expect(report?.written.filter((p) => p !== "meta/lint-report.md")).toEqual([]);
    expect(report?.unchanged).toEqual(expect.arrayContaining(OKF_FOLLOWED));
  });

  it("refreshes on its own once the burst is quiet, once", async () => {
    const { vault, service, refreshes } = setup({ name: "v" }, 20);
    const titles = burst(service);
    await until(() => refreshes.length > 0);
    await service.flushViews();
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]?.writes).toBe(5);
    for (const title of titles) expect(read(vault, "meta/index.md")).toContain(title);
  });

  it("looks only at the page a write names", async () => {
    const { service, refreshes } = setup({ name: "v" });
    const r = service.ensurePage({ type: "concept", title: randomWords(3) });
    await service.flushViews();
    expect(refreshes[0]?.changed).toEqual([r.path]);
    // A write that cannot name its files makes the refresh look at every page.
    await service.lint({ fix: true });
    await service.flushViews();
    expect(refreshes[1]?.changed).toBeUndefined();
  });

  it("closing the service flushes what is pending", async () => {
    const { vault, service, refreshes } = setup({ name: "v" });
    const [title] = burst(service);
    await service.close();
    expect(refreshes).toHaveLength(1);
    expect(read(vault, "meta/index.md")).toContain(title);
  });

  it("never creates OKF's wiki/index.md or wiki/log.md outside OKF mode; a user's own stays", async () => {
    const bare = setup({ name: "v" });
    burst(bare.service);
    await bare.service.flushViews();
    expect(existsSync(join(bare.vault.paths.wiki, "index.md"))).toBe(false);
    expect(existsSync(join(bare.vault.paths.wiki, "log.md"))).toBe(false);
    expect(read(bare.vault, "meta/index.md")).toContain("# Wiki index");

    const own = setup({ name: "v", knowledge_format: "legacy" });
    const mine = `# My own index ${randomWord()}\n`;
    writeFileSync(join(own.vault.paths.wiki, "index.md"), mine);
    burst(own.service);
    await own.service.flushViews();
    expect(read(own.vault, "wiki/index.md")).toBe(mine);
  });

  it("keeps rebuild-meta's guard: a wiki/index.md of another OKF version is left as it is", async () => {
    const { vault, service, refreshes } = setup({ name: "v", knowledge_format: "okf" });
    const foreign = `---\nokf_version: "9.${randomInt(10)}"\n---\n\n# theirs\n`;
    writeFileSync(join(vault.paths.wiki, "index.md"), foreign);
    const r = service.ensurePage({ type: "concept", title: randomWords(3) });
    expect(r.ok).toBe(true);
    await service.flushViews();
    expect(read(vault, "wiki/index.md")).toBe(foreign);
    expect(existsSync(join(vault.paths.wiki, "log.md"))).toBe(false);
    expect(refreshes[0]?.diagnostics.map((d) => d.code)).toContain("okf_version_mismatch");
  });

  it("watch: a page written by hand is in the catalog once the watcher has seen it", async () => {
    const { vault, service } = setup({ name: "v", knowledge_format: "okf" }, 20);
    const [paths] = service.resolveVaults();
    const started = await startVaultWatch(service, paths ?? never(), { debounceMs: 20 });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics));
    try {
      const title = randomWords(3);
      vault.writePage(`concepts/${randomWord(8, 8)}`, page(title));
      await until(() => read(vault, "meta/index.md").includes(title));
      await until(() => read(vault, "wiki/concepts/index.md").includes(title));
    } finally {
      await started.watch.stop();
    }
  });

  it("a refresh that fails is a diagnostic; the write still succeeded", async () => {
    const { vault, service, refreshes } = setup({ name: "v" });
    // A folder where the catalog goes: it cannot be written.
    mkdirSync(join(vault.paths.meta, "index.md", "blocked"), { recursive: true });
    const title = randomWords(3);
    const r = service.ensurePage({ type: "concept", title });
    expect(r.ok).toBe(true);
    await service.flushViews();
    expect(refreshes[0]?.diagnostics.map((d) => d.code)).toContain("view_write_failed");
    expect(readFileSync(join(vault.paths.dir, r.path ?? ""), "utf8")).toContain(title);
    // The other views still followed.
    expect(read(vault, "meta/log.md")).toContain("page created");
  });
});

/** A random event line: valid, internal, malformed, or blank. */
function randomLine(): string {
  const ts = new Date(Date.UTC(2026, 0, 1) + randomInt(0, 10 * 86_400_000)).toISOString();
  switch (randomInt(6)) {
    case 0:
      return JSON.stringify({ ts, kind: "recall_feedback", visibility: "internal" });
    case 1:
      return `{not json ${randomWord()}`;
    case 2:
      return "";
    case 3:
      return JSON.stringify({ timestamp: ts, kind: randomWord(), note: "é ✓ 😀" });
    default:
      return JSON.stringify({ ts, kind: randomWord(), page: `concepts/${randomWord()}` });
  }
}

describe("the incremental event-log reader", () => {
  it("gives what a full read gives, append after append, and after a rewrite", () => {
    const seed = randomInt(2 ** 31);
    const dir = makeTempDir("llm-wiki-log-follow-");
    const path = join(dir, "events.jsonl");
    const follower = createLogFollower();
    const same = (step: string) =>
      expect(follower.read(path), `seed ${seed}, ${step}`).toEqual(readLogEntries(path));
    same("missing");
    writeFileSync(path, "");
    same("empty");
    for (let round = 0; round < 40; round += 1) {
      const lines = Array.from({ length: randomInt(1, 8) }, randomLine);
      const text = lines.join("\n");
      // Sometimes the last line comes without its newline (a write in progress).
      appendFileSync(path, randomInt(3) === 0 ? text : `${text}\n`);
      same(`round ${round}`);
      if (round === 20) {
        // Rewritten in place: shorter, then grown again.
        truncateSync(path, 10);
        same("truncated");
      }
      if (round === 30) {
        rmSync(path);
        writeFileSync(path, `${randomLine()}\n`);
        same("replaced");
      }
    }
  });
});

describe("capture dedupe", () => {
  function packets(vault: TempVault): string[] {
    const dir = join(vault.paths.raw, "sources");
    return existsSync(dir) ? readdirSync(dir).sort() : [];
  }

  it("capturing the same text twice returns the first source; different text with the same title is new", async () => {
    const { vault, service } = setup({ name: "v" });
    const text = `# ${randomWords(3)}\n\n${randomWords(40)}\n`;
    const title = randomWords(2);
    const first = await service.captureSource({ text, title });
    expect(first.ok, JSON.stringify(first.diagnostics)).toBe(true);
    expect(first.deduplicated).toBeUndefined();
    const again = await service.captureSource({ text, title: randomWords(2) });
    expect(again).toMatchObject({ ok: true, id: first.id, deduplicated: true, page: first.page });
    expect(again.diagnostics.map((d) => d.code)).toEqual(["capture_duplicate"]);
    expect(packets(vault)).toEqual([first.id]);
    const captured = readFileSync(vault.paths.events, "utf8")
      .split("\n")
      .filter((l) => l.includes('"source_captured"'));
    expect(captured).toHaveLength(1);

    const other = await service.captureSource({ text: `${text}${randomWord()}\n`, title });
    expect(other.ok).toBe(true);
    expect(other.deduplicated).toBeUndefined();
    expect(other.id).not.toBe(first.id);
    expect(packets(vault)).toHaveLength(2);
  });

  it("a file captured twice is one packet; an older packet without a recorded hash is still found", async () => {
    const { vault, service } = setup({ name: "v" });
    const file = "notes.md";
    writeFileSync(join(vault.root, file), `# Notes\n\n${randomWords(30)}\n`);
    const first = await service.captureSource({ file });
    expect(first.ok, JSON.stringify(first.diagnostics)).toBe(true);
    const id = first.id ?? "";
    // As an older llm-wiki left it: no hashes in the manifest.
    const manifestPath = join(vault.paths.raw, "sources", id, "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>;
    delete manifest.hashes;
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const again = await service.captureSource({ file });
    expect(again).toMatchObject({ ok: true, id, deduplicated: true });
    expect(again.manifest).toBeUndefined();
    expect(packets(vault)).toEqual([id]);
  });
});

function never(): never {
  throw new Error("no vault");
}
