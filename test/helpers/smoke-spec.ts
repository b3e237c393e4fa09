/**
 * The smoke specification of what ships, run against any `ShippedPackage`
 * (the bundled `dist/`, the packed tarball installed with npm): every host
 * (the CLI, its agent hooks, the MCP server over stdio, the Pi extension
 * loaded from the package folder) and every capture format (HTML, PDF,
 * JSON, XML, text, a URL on a loopback server the settings allow), recall,
 * reindex (and its vectors, through QMD's native model runtime), lint,
 * status and an OKF export imported into another vault.
 * Each case checks what the user would see (ids, titles, extracted text),
 * not only an exit status: a bundling mistake fails here.
 *
 * The cases share one project, in order: the vault `init` makes is the one
 * the later cases capture into and recall from.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { DefaultResourceLoader, SettingsManager } from "@earendil-works/pi-coding-agent";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { gpuBuilds } from "../../extensions/llm-wiki/lib/index/llama-backend.ts";
import { buildImportLog } from "./build-import-log.ts";
import { makeRepo } from "./git-repo.ts";
import { childEnv } from "./index-services.ts";
import { metaResult } from "./mcp-result.ts";
import { startPi, textOf, toolResults } from "./pi-session.ts";
import { type BinRun, connectBin, runBin, type ShippedPackage } from "./shipped-package.ts";
import { SERVED_PAGE, SMOKE_DOCUMENTS } from "./smoke-documents.ts";
import { removeTempDirs } from "./temp-vault.ts";

const BRANCH = "feature/harbour-crane";
const COMMIT = "Rotate the harbour crane schedule";
const CRANE = {
  id: "concepts/harbour-crane",
  title: "Harbour crane",
  body: "The harbour crane schedule rotates weekly on Mondays.",
  asked: "when does the harbour crane schedule rotate",
};

/** What `capture --json` and the capture tools answer, as far as the smoke specs read it. */
interface Captured {
  ok: boolean;
  id: string;
  packet: string;
  page: string;
  manifest: { format: string; title: string; extraction_status: string };
}

/** An HTML page of one paragraph, for the hosts that capture their own file. */
function htmlPage(title: string, sentence: string): string {
  return `<html><head><title>${title}</title></head><body><h2>${title}</h2><p>${sentence}</p></body></html>`;
}

function expectOk(run: BinRun, what: string): void {
  expect(run.status, `${what}: ${run.stderr}`).toBe(0);
}

/**
 * Registers the smoke cases for the package `shipped()` returns (set up by
 * the caller's `beforeAll`, which runs before these).
 */
export function smokeSpec(label: string, shipped: () => ShippedPackage): void {
  describe(`what ships (${label})`, () => {
    let base = "";
    let home = "";
    let project = "";
    let env: NodeJS.ProcessEnv = {};
    let server: Server | undefined;
    let site = "";
    const cli = (args: string[], input?: string) =>
      runBin(shipped().llmWiki, args, {
        cwd: project,
        env,
        ...(input === undefined ? {} : { input }),
      });
    const sourceText = (captured: Captured) =>
      readFileSync(join(project, ".llm-wiki", captured.packet, "source.md"), "utf8");

    beforeAll(async () => {
      // Not the temp-vault helper's folders: a Pi case's cleanup must not remove them.
      base = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-smoke-")));
      home = join(base, "home");
      project = join(base, "project");
      mkdirSync(home);
      mkdirSync(join(project, "docs"), { recursive: true });
      makeRepo(project, BRANCH, [COMMIT]);
      for (const doc of SMOKE_DOCUMENTS) writeFileSync(join(project, "docs", doc.file), doc.bytes);
      const settings = join(base, "settings.json");
      writeFileSync(settings, JSON.stringify({ "llm-wiki": { captureAllowHosts: ["127.0.0.1"] } }));
      env = { ...childEnv(), HOME: home, WIKI_HOME: home, LLM_WIKI_SETTINGS: settings };
      const listener = createServer((req, res) => {
        if (req.url === SERVED_PAGE.path) {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(SERVED_PAGE.html);
        } else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
      server = listener;
      site = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      if (server) {
        const s = server;
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      rmSync(base, { recursive: true, force: true });
      removeTempDirs();
    });

    describe("the CLI", () => {
      it("prints its version and usage", async () => {
        const version = await cli(["--version"]);
        expectOk(version, "--version");
        expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
        const help = await cli(["--help"]);
        expect(help.stdout).toContain("usage: llm-wiki <command>");
      });

      it("init creates the project's vault; page writes a concept page there", async () => {
        const init = await cli(["init", "--name", "harbour"]);
        expectOk(init, "init");
        expect(init.stdout).toContain(join(project, ".llm-wiki"));
        const page = await cli([
          "page",
          "--type",
          "concept",
          "--title",
          CRANE.title,
          "--content",
          CRANE.body,
          "--json",
        ]);
        expectOk(page, "page");
        expect(JSON.parse(page.stdout)).toMatchObject({ ok: true, id: CRANE.id, created: true });
        expect(
          readFileSync(join(project, ".llm-wiki", "wiki", `${CRANE.id}.md`), "utf8"),
        ).toContain(CRANE.body);
      });

      it("reindex indexes the page, and status counts it in a ready index", async () => {
        const reindex = await cli(["reindex"]);
        expectOk(reindex, "reindex");
        expect(reindex.stdout).toContain("1 page(s) indexed");
        const status = await cli(["status", "--json"]);
        expectOk(status, "status");
        expect(JSON.parse(status.stdout)).toMatchObject({
          vault: { pages: 1, byType: { concept: 1 }, index: { state: "ready", documents: 1 } },
        });
      });

      it("recall ranks the page for a question in its words; recall --auto prints the fenced block", async () => {
        const recall = await cli(["recall", CRANE.asked, "--json"]);
        expectOk(recall, "recall");
        const answer = JSON.parse(recall.stdout) as {
          results: Array<{ id: string; title: string }>;
        };
        expect(answer.results[0]).toMatchObject({ id: CRANE.id, title: CRANE.title });
        const auto = await cli(["recall", "--auto", CRANE.asked]);
        expectOk(auto, "recall --auto");
        expect(auto.stdout).toContain('<wiki-recall source="llm-wiki">');
        expect(auto.stdout).toContain(`id: ${CRANE.id}`);
        expect(auto.stdout).toContain(CRANE.body);
        expect(auto.stdout.trimEnd().endsWith("</wiki-recall>")).toBe(true);
      });

      it("lint checks the vault and finds no error", async () => {
        const lint = await cli(["lint", "--json"]);
        expectOk(lint, "lint");
        const report = JSON.parse(lint.stdout) as {
          ok: boolean;
          vaults: Array<{ root: string; findings: Array<{ severity: string }> }>;
        };
        expect(report.ok).toBe(true);
        expect(report.vaults.map((v) => v.root)).toEqual([project]);
        expect(report.vaults[0]?.findings.filter((f) => f.severity === "error")).toEqual([]);
      });
    });

    describe("capture, every format", () => {
      for (const doc of SMOKE_DOCUMENTS) {
        it(`capture --file ${doc.file} stores the ${doc.format} document's text`, async () => {
          const run = await cli(["capture", "--file", join("docs", doc.file), "--json"]);
          expectOk(run, `capture ${doc.file}`);
          const captured = JSON.parse(run.stdout) as Captured;
          expect(captured).toMatchObject({
            ok: true,
            manifest: { format: doc.format, title: doc.title, extraction_status: "success" },
          });
          expect(sourceText(captured)).toContain(doc.text);
        });
      }

      it("capture --text stores the text with a secret in it redacted", async () => {
        // A GitHub token's shape, spelled in two parts so no scanner takes this file for a leak.
        const secret = `ghp_${"aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"}`;
        const run = await cli([
          "capture",
          "--text",
          `Fog signal drills run monthly; the token ${secret} opens the siren panel.`,
          "--title",
          "Fog signal drill",
          "--json",
        ]);
        expectOk(run, "capture --text");
        const captured = JSON.parse(run.stdout) as Captured;
        expect(captured).toMatchObject({ ok: true, manifest: { title: "Fog signal drill" } });
        const text = sourceText(captured);
        expect(text).toContain("Fog signal drills run monthly");
        expect(text).toContain("[REDACTED:github_token]");
        expect(text).not.toContain(secret);
      });

      it("capture --url fetches a page from a loopback server the user's settings allow", async () => {
        const run = await cli(["capture", "--url", `${site}${SERVED_PAGE.path}`, "--json"]);
        expectOk(run, "capture --url");
        const captured = JSON.parse(run.stdout) as Captured;
        expect(captured).toMatchObject({
          ok: true,
          manifest: { format: "html", title: SERVED_PAGE.title, extraction_status: "success" },
        });
        expect(sourceText(captured)).toContain(SERVED_PAGE.text);
      });

      it("reindex takes in the captured sources, and recall finds one by its extracted text", async () => {
        expectOk(await cli(["reindex"]), "reindex");
        const recall = await cli(["recall", "lock gate seals spring tide", "--json"]);
        expectOk(recall, "recall");
        const answer = JSON.parse(recall.stdout) as { results: Array<{ title: string }> };
        expect(answer.results.map((r) => r.title)).toContain("Tidal lock gate");
      });
    });

    describe("OKF", () => {
      it("export --okf writes the pages as a bundle that import --okf --apply creates in another vault", async () => {
        const exported = await cli(["export", "--okf", "okf-bundle", "--json"]);
        expectOk(exported, "export");
        const bundle = JSON.parse(exported.stdout) as { ok: boolean; pages: string[] };
        expect(bundle.ok).toBe(true);
        expect(bundle.pages).toContain(`${CRANE.id}.md`);

        const other = join(base, "other");
        mkdirSync(other);
        const otherCli = (args: string[]) => runBin(shipped().llmWiki, args, { cwd: other, env });
        expectOk(await otherCli(["init"]), "init (other)");
        const review = await otherCli(["import", "--okf", join(project, "okf-bundle"), "--json"]);
        expectOk(review, "import (review)");
        expect(JSON.parse(review.stdout)).toMatchObject({ ok: true, applied: false });
        const applied = await otherCli([
          "import",
          "--okf",
          join(project, "okf-bundle"),
          "--apply",
          "--json",
        ]);
        expectOk(applied, "import --apply");
        const result = JSON.parse(applied.stdout) as { creates: Array<{ id: string }> };
        expect(result.creates.map((c) => c.id)).toContain(CRANE.id);
        const search = await otherCli(["search", CRANE.title, "--json"]);
        expect(JSON.parse(search.stdout)).toMatchObject({
          hits: [{ id: CRANE.id, title: CRANE.title }],
        });
      });
    });

    describe("the agent hooks", () => {
      it("hook session-start primes the page the branch and its commit are about", async () => {
        const input = JSON.stringify({
          session_id: "smoke-session-start",
          cwd: project,
          hook_event_name: "SessionStart",
          source: "startup",
        });
        const run = await cli(["hook", "session-start"], input);
        expectOk(run, "hook session-start");
        expect(run.stdout.startsWith('<wiki-recall source="llm-wiki">')).toBe(true);
        expect(run.stdout).toContain(`id: ${CRANE.id}`);
      });

      it("hook user-prompt prints the recall block for a prompt about a page", async () => {
        const input = JSON.stringify({
          session_id: "smoke-user-prompt",
          cwd: project,
          hook_event_name: "UserPromptSubmit",
          prompt: CRANE.asked,
        });
        const run = await cli(["hook", "user-prompt", "--json"], input);
        expectOk(run, "hook user-prompt");
        const doc = JSON.parse(run.stdout) as {
          hookSpecificOutput: { hookEventName: string; additionalContext: string };
        };
        expect(doc.hookSpecificOutput.hookEventName).toBe("UserPromptSubmit");
        expect(doc.hookSpecificOutput.additionalContext).toContain(`id: ${CRANE.id}`);
        expect(doc.hookSpecificOutput.additionalContext).toContain(CRANE.body);
      });
    });

    describe("the MCP server", () => {
      it("answers wiki_recall and captures an HTML file over stdio", async () => {
        const file = join(project, "docs", "breakwater.html");
        writeFileSync(file, htmlPage("Breakwater survey", "The breakwater is surveyed by drone."));
        const client = await connectBin(shipped().mcp, project, env, "smoke");
        try {
          const recall = (await client.callTool({
            name: "wiki_recall",
            arguments: { query: CRANE.asked },
          })) as CallToolResult;
          expect(recall.isError ?? false).toBe(false);
          expect(JSON.stringify(metaResult(recall))).toContain(CRANE.id);
          const capture = (await client.callTool({
            name: "wiki_capture_source",
            arguments: { file },
          })) as CallToolResult;
          expect(capture.isError ?? false, JSON.stringify(capture.content)).toBe(false);
          const captured = capture.structuredContent as unknown as Captured;
          expect(captured).toMatchObject({
            ok: true,
            manifest: { format: "html", title: "Breakwater survey" },
          });
          expect(sourceText(captured)).toContain("The breakwater is surveyed by drone.");
        } finally {
          await client.close();
        }
      });
    });

    describe("the Pi extension, loaded from the package folder", () => {
      const piDirs = () => {
        const root = join(base, "pi");
        const dirs = { root, agentDir: join(root, "agent"), project };
        mkdirSync(dirs.agentDir, { recursive: true });
        // What `pi install` records for an installed package: its folder.
        writeFileSync(
          join(dirs.agentDir, "settings.json"),
          JSON.stringify({ packages: [shipped().packageDir] }),
        );
        return dirs;
      };

      it("Pi finds the extension through the package's manifest, with no error or warning", async () => {
        const dirs = piDirs();
        const loader = new DefaultResourceLoader({
          cwd: project,
          agentDir: dirs.agentDir,
          settingsManager: SettingsManager.create(project, dirs.agentDir, { projectTrusted: true }),
          noSkills: true,
          noPromptTemplates: true,
          noThemes: true,
          noContextFiles: true,
        });
        await loader.reload();
        const loaded = loader.getExtensions();
        expect(loaded.errors).toEqual([]);
        expect(loaded.warnings).toEqual([]);
        expect(loaded.extensions.map((e) => e.path)).toEqual([
          join(shipped().packageDir, "extensions", "llm-wiki", "index.ts"),
        ]);
      });

      it("a Pi session recalls automatically, and runs wiki_recall and wiki_capture_source", async () => {
        const dirs = piDirs();
        writeFileSync(
          join(project, "docs", "lighthouse.html"),
          htmlPage("Lighthouse lamp", "The lighthouse lamp is serviced every quarter."),
        );
        vi.stubEnv("HOME", home);
        vi.stubEnv("WIKI_HOME", home);
        vi.stubEnv("PI_CODING_AGENT_DIR", dirs.agentDir);
        const pi = await startPi(dirs, { extensions: [] });
        try {
          pi.script(
            [fauxToolCall("wiki_recall", { query: CRANE.asked })],
            [fauxToolCall("wiki_capture_source", { file: "docs/lighthouse.html" })],
            "Mondays; the lighthouse notes are captured.",
          );
          await pi.session.prompt(CRANE.asked);
          const firstRequest = (pi.requests[0] ?? []).map(textOf).join("\n");
          expect(firstRequest).toContain('<wiki-recall source="llm-wiki">');
          expect(firstRequest).toContain(`id: ${CRANE.id}`);
          const [recall, capture] = toolResults(pi.session);
          expect(recall?.toolName).toBe("wiki_recall");
          expect(recall?.isError).toBe(false);
          expect(textOf(recall as never)).toContain(CRANE.id);
          expect(capture?.toolName).toBe("wiki_capture_source");
          expect(capture?.isError, textOf(capture as never)).toBe(false);
          const captured = capture?.details as unknown as Captured;
          expect(captured).toMatchObject({
            ok: true,
            manifest: { format: "html", title: "Lighthouse lamp" },
          });
          expect(sourceText(captured)).toContain("The lighthouse lamp is serviced every quarter.");
        } finally {
          await pi.close();
          vi.unstubAllEnvs();
        }
        expect(pi.errors).toEqual([]);
      });
    });

    // Last: once the vectors exist, every later recall would load the embedding model too.
    describe("the search index's vectors", () => {
      it("reindex --vectors embeds every page with the configured model; recall --mode hybrid uses them", async () => {
        // QMD and its native model runtime load from the package's dependencies, not the bundle.
        const reindex = await cli(["reindex", "--vectors"]);
        expectOk(reindex, "reindex --vectors");
        expect(reindex.stdout).toMatch(/[1-9]\d* embedded/);
        const status = await cli(["status", "--json"]);
        expect(JSON.parse(status.stdout)).toMatchObject({
          vault: { index: { needsEmbedding: 0, vectors: { present: true } } },
        });
        const builds = buildImportLog(base);
        const recall = await runBin(
          shipped().llmWiki,
          ["recall", CRANE.asked, "--mode", "hybrid", "--json"],
          { cwd: project, env: { ...env, NODE_OPTIONS: builds.nodeOptions } },
        );
        expectOk(recall, "recall --mode hybrid");
        const answer = JSON.parse(recall.stdout) as {
          modeUsed: string;
          results: Array<{ id: string }>;
        };
        expect(answer.modeUsed).toBe("hybrid");
        expect(answer.results.map((r) => r.id)).toContain(CRANE.id);
        // Where no GPU build the package installed can start (npm installs
        // CUDA and Vulkan builds on Linux x64), none is even tried.
        const models = await cli(["models", "--json"]);
        const { backend } = JSON.parse(models.stdout) as { backend: { choice: string } };
        expect(builds.asked().length).toBeGreaterThan(0);
        if (backend.choice === "cpu") {
          const gpu = gpuBuilds(process.platform, process.arch).map((b) => b.package);
          expect(builds.asked().filter((name) => gpu.some((g) => name.startsWith(g)))).toEqual([]);
        }
      });
    });
  });
}
