/**
 * The OKF bundle tools as a model calls them: over MCP (the real stdio
 * server as a child process) an import is a review that writes nothing
 * until `apply: true`, which creates only; an export lands in the project;
 * and a folder outside the project — named directly or through a symlink
 * inside it — is refused (`okf_dir_outside`) with nothing written. In Pi
 * (faux model) the same tools answer from the same service, confined the
 * same way. Words are fresh each run.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  readEvents,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");

interface Item {
  path: string;
}
const paths = (items: unknown) => (items as Item[]).map((i) => i.path).sort();

/** A bundle of two fresh concepts (and the reserved root index) in `dir`. */
function writeBundle(dir: string): { ids: string[]; word: string } {
  const word = `zq${randomWord(6, 9)}`;
  const ids = [`concepts/${word}-alpha`, `concepts/${word}-beta`];
  mkdirSync(join(dir, "concepts"), { recursive: true });
  writeFileSync(join(dir, "index.md"), '---\nokf_version: "0.2"\n---\n# Bundle\n');
  for (const id of ids) {
    writeFileSync(
      join(dir, `${id}.md`),
      pageText({ type: "concept", title: id.slice(9) }, `${randomWords(8)} ${word}\n`),
    );
  }
  return { ids, word };
}

/** The diagnostic codes of a result (`structuredContent` over MCP, `details` in Pi). */
function codes(result: unknown): string[] {
  const diagnostics = (result as { diagnostics?: Array<{ code: string }> } | undefined)
    ?.diagnostics;
  return (diagnostics ?? []).map((d) => d.code);
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

describe("OKF tools over MCP", () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    removeTempDirs();
  });

  async function start(vault: TempVault, env = isolatedEnv(), cwd = REPO): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", vault.root],
      cwd,
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-okf-test", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  it("reviews a bundle in the project without writing, then applies creating only", async () => {
    const vault = makeTempVault();
    const bundle = join(vault.root, "incoming");
    const { ids, word } = writeBundle(bundle);
    const client = await start(vault);
    const before = snapshotFiles(vault.paths.wiki);

    const review = await call(client, "wiki_okf_import", { dir: bundle });
    expect(review.isError).toBeFalsy();
    const planned = review.structuredContent as Record<string, unknown>;
    expect(planned.applied).toBe(false);
    expect(paths(planned.creates)).toEqual(ids.map((id) => `wiki/${id}.md`));
    expect(text(review)).toContain("dry run: nothing written");
    expect(text(review)).toContain("apply: true");
    expect(snapshotFiles(vault.paths.wiki)).toEqual(before);
    expect(readEvents(vault.paths).some((e) => e.kind === "okf_import")).toBe(false);

    const applied = await call(client, "wiki_okf_import", { dir: bundle, apply: true });
    expect(applied.isError).toBeFalsy();
    const done = applied.structuredContent as Record<string, unknown>;
    expect(done.applied).toBe(true);
    expect(paths(done.creates)).toEqual(ids.map((id) => `wiki/${id}.md`));
    for (const id of ids) {
      expect(readFileSync(vault.pageFile(id)).equals(readFileSync(join(bundle, `${id}.md`)))).toBe(
        true,
      );
    }
    expect(existsSync(join(vault.paths.wiki, "index.md"))).toBe(false);
    expect(readEvents(vault.paths).filter((e) => e.kind === "okf_import")).toHaveLength(1);
    const recalled = await call(client, "wiki_recall", { query: word });
    expect(text(recalled)).toContain(ids[0]);

    // Applying again creates nothing: the pages are identical now, never rewritten.
    const again = await call(client, "wiki_okf_import", { dir: bundle, apply: true });
    const second = again.structuredContent as Record<string, unknown>;
    expect(second.creates).toEqual([]);
    expect(paths(second.identical)).toEqual(ids.map((id) => `wiki/${id}.md`));
  });

  it("exports inside the project and refuses a folder outside it, named or through a symlink", async () => {
    const vault = makeTempVault({
      pages: { "concepts/ledger": pageText({ type: "concept", title: "Ledger" }, randomWords(6)) },
    });
    const client = await start(vault);
    const inside = join(vault.root, "exports", randomWord());
    const exported = await call(client, "wiki_okf_export", { dir: inside });
    expect(exported.isError).toBeFalsy();
    expect(
      readFileSync(join(inside, "concepts", "ledger.md")).equals(
        readFileSync(vault.pageFile("concepts/ledger")),
      ),
    ).toBe(true);

    const elsewhere = makeTempDir("okf-elsewhere-");
    const link = join(vault.root, `link-${randomWord()}`);
    symlinkSync(elsewhere, link);
    for (const dir of [join(elsewhere, "bundle"), join(link, "bundle")]) {
      const refused = await call(client, "wiki_okf_export", { dir });
      expect(refused.isError).toBe(true);
      expect(codes(refused.structuredContent)).toEqual(["okf_dir_outside"]);
      expect(text(refused)).toContain("is outside the project");
    }
    expect(readdirSync(elsewhere)).toEqual([]);

    writeBundle(elsewhere);
    const before = snapshotFiles(vault.paths.wiki);
    const pulled = await call(client, "wiki_okf_import", { dir: link, apply: true });
    expect(pulled.isError).toBe(true);
    expect(codes(pulled.structuredContent)).toEqual(["okf_dir_outside"]);
    expect(snapshotFiles(vault.paths.wiki)).toEqual(before);
  });

  it("does not take a server started in the home folder for a project folder", async () => {
    const vault = makeTempVault();
    const env = isolatedEnv();
    const home = env.HOME as string;
    const client = await start(vault, env, home);
    const target = join(home, `out-${randomWord()}`);
    const refused = await call(client, "wiki_okf_export", { dir: target });
    expect(codes(refused.structuredContent)).toEqual(["okf_dir_outside"]);
    expect(existsSync(target)).toBe(false);
  });
});

describe("OKF tools in Pi", () => {
  const fixture = piPerTest("llm-wiki-okf-pi-");
  let vault: TempVault;
  beforeEach(() => {
    vault = makeTempVault({ root: fixture.dirs.project });
  });

  it("reviews, then applies a bundle in the project; refuses one outside it", async () => {
    const bundle = join(fixture.dirs.project, "bundle");
    const { ids } = writeBundle(bundle);
    const outside = join(fixture.dirs.root, "outside");
    writeBundle(outside);
    const pi = await fixture.start();
    pi.script(
      [fauxToolCall("wiki_okf_import", { dir: "bundle" })],
      [fauxToolCall("wiki_okf_import", { dir: "bundle", apply: true })],
      [fauxToolCall("wiki_okf_import", { dir: outside, apply: true })],
      [fauxToolCall("wiki_okf_export", { dir: join(fixture.dirs.root, "out") })],
      "done",
    );
    await pi.session.prompt("bring in the bundle after showing me what it holds");
    const [review, applied, refusedImport, refusedExport] = toolResults(pi.session);
    expect(review?.isError).toBe(false);
    expect(textOf(review as never)).toContain("dry run: nothing written");
    expect(applied?.isError).toBe(false);
    for (const id of ids) expect(existsSync(vault.pageFile(id))).toBe(true);
    for (const refused of [refusedImport, refusedExport]) {
      expect(refused?.isError).toBe(true);
      expect(codes(refused?.details)).toEqual(["okf_dir_outside"]);
      expect(textOf(refused as never)).toContain("is outside the project");
    }
    expect(existsSync(join(fixture.dirs.root, "out"))).toBe(false);
    expect(readEvents(vault.paths).filter((e) => e.kind === "okf_import")).toHaveLength(1);
  });
});
