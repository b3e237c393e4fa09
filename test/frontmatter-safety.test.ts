/**
 * Front matter is data, never code. A page from an untrusted repository
 * whose fence names an evaluating language (`---js`, `---javascript`,
 * `---coffee`, in any case or spacing) is refused with
 * `frontmatter_language_refused`, the vault's other pages are served, and
 * the page's code runs in no host: the service, the CLI, the MCP server and
 * a Pi session. Fence spellings and payload markers are drawn afresh on
 * every run.
 */
import { randomBytes, randomInt } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FrontmatterLanguageError,
  fenceLanguage,
  readFrontmatter,
} from "../extensions/llm-wiki/lib/vault/frontmatter.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { piPerTest } from "./helpers/pi-session.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const EVALUATING = ["js", "javascript", "coffee", "coffeescript", "cson"];

function pick<T>(items: readonly T[]): T {
  const item = items[randomInt(items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

/** `name` in a random mix of upper and lower case. */
function randomCase(name: string): string {
  return [...name].map((c) => (randomInt(2) === 0 ? c.toUpperCase() : c)).join("");
}

/** A random spelling of an opening fence naming `language`. */
function fence(language: string): string {
  const pad = () => pick(["", " ", "\t", "  ", " \t"]);
  return `${pick(["", "\uFEFF"])}---${pad()}${language}${pad()}`;
}

/**
 * A page whose front matter, if evaluated, writes `marker` and sets a
 * global: proof of execution in a child process and in this one.
 */
function hostilePage(language: string, marker: string, flag: string): string {
  const eol = pick(["\n", "\r\n"]);
  const code = `{ type: "concept", title: (globalThis[${JSON.stringify(flag)}] = 1, require("fs").writeFileSync(${JSON.stringify(marker)}, "ran"), "Owned") }`;
  return [fence(language), code, "---", "# Owned", "", "Nothing to see."].join(eol);
}

function freshMarker(dir: string): { marker: string; flag: string } {
  const tag = randomBytes(6).toString("hex");
  return { marker: join(dir, `ran-${tag}`), flag: `__llm_wiki_ran_${tag}` };
}

const GOOD = pageText(
  { type: "concept", title: "Harmless gardening" },
  "Tomatoes like sun and regular watering.\n",
);

afterEach(removeTempDirs);

describe("reading front matter", () => {
  it("refuses every evaluating language in any spelling, before anything runs", () => {
    const dir = makeTempDir();
    for (let i = 0; i < 40; i += 1) {
      const language = randomCase(pick(EVALUATING));
      const { marker, flag } = freshMarker(dir);
      const text = hostilePage(language, marker, flag);
      expect(() => readFrontmatter(text.replace(/^\uFEFF/, ""))).toThrow(FrontmatterLanguageError);
      const parsed = parsePage("concepts/owned", "wiki/concepts/owned.md", Buffer.from(text));
      expect(parsed.ok).toBe(false);
      expect(parsed.diagnostics.map((d) => d.code)).toEqual(["frontmatter_language_refused"]);
      expect(existsSync(marker)).toBe(false);
      expect((globalThis as Record<string, unknown>)[flag]).toBeUndefined();
    }
  });

  it("refuses any language it does not know, whatever its name", () => {
    const dir = makeTempDir();
    for (let i = 0; i < 40; i += 1) {
      const name = randomBytes(randomInt(1, 12))
        .toString("base64")
        .replace(/[^A-Za-z0-9]/g, "x");
      if (["yaml", "yml", "json"].includes(name.toLowerCase())) continue;
      const { marker, flag } = freshMarker(dir);
      const parsed = parsePage("c/x", "wiki/c/x.md", Buffer.from(hostilePage(name, marker, flag)));
      expect(parsed.ok).toBe(false);
      expect(parsed.diagnostics[0]?.code).toBe("frontmatter_language_refused");
      expect(existsSync(marker)).toBe(false);
    }
  });

  it("keeps reading YAML (plain or named) and JSON", () => {
    for (const language of ["", "yaml", "YML", " yaml "]) {
      const parsed = parsePage(
        "concepts/a",
        "wiki/concepts/a.md",
        Buffer.from(`---${language}\ntype: concept\ntitle: A\n---\nbody\n`),
      );
      expect(parsed.ok && parsed.page.title).toBe("A");
    }
    const json = parsePage(
      "concepts/b",
      "wiki/concepts/b.md",
      Buffer.from('---json\n{ "type": "concept", "title": "B" }\n---\nbody\n'),
    );
    expect(json.ok && json.page.title).toBe("B");
  });

  it("does not evaluate YAML tags that name code", () => {
    const parsed = parsePage(
      "concepts/t",
      "wiki/concepts/t.md",
      Buffer.from('---\ntype: concept\ntitle: !!js/function "function () { return 1 }"\n---\n'),
    );
    expect(parsed.ok).toBe(false);
    expect(parsed.diagnostics[0]?.code).toBe("frontmatter_parse_error");
  });

  it("names the fence language as gray-matter would see it", () => {
    expect(fenceLanguage("---js\n{}\n---\n")).toBe("js");
    expect(fenceLanguage("--- \tJavaScript \r\n{}\n---\n")).toBe("JavaScript");
    expect(fenceLanguage("---\ntype: concept\n---\n")).toBe("");
    expect(fenceLanguage("----\nnot front matter\n")).toBeUndefined();
    expect(fenceLanguage("# heading\n")).toBeUndefined();
  });

  it("keeps code front matter pasted into a new page as body text: stored, never run, the page readable", () => {
    const vault = makeTempVault();
    const { marker, flag } = freshMarker(vault.root);
    const service = createWikiService({ cwd: vault.root, env: {}, vault: vault.root });
    const pasted = hostilePage(randomCase(pick(EVALUATING)), marker, flag).replace(/^\uFEFF/, "");
    const result = service.ensurePage({ type: "concept", title: "Pasted", content: pasted });
    expect(result.created).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect((globalThis as Record<string, unknown>)[flag]).toBeUndefined();
    // The written page opens with its own YAML block; the pasted block is text after it.
    const written = parsePage(
      "concepts/pasted",
      result.path ?? "",
      readFileSync(join(vault.paths.dir, result.path ?? "")),
    );
    expect(written.ok && written.page.title).toBe("Pasted");
    expect(written.ok && written.page.body).toContain(pasted.split(/\r?\n/)[1]);
    // Read back by every host, it runs nothing either.
    expect(service.search({ query: "Pasted" }).hits.map((h) => h.id)).toContain("concepts/pasted");
    expect(existsSync(marker)).toBe(false);
  });
});

/** A vault holding one hostile page and one good one. */
function hostileVault(): { root: string; marker: string } {
  const root = makeTempDir("llm-wiki-hostile-");
  const { marker, flag } = freshMarker(root);
  makeTempVault({
    root,
    pages: {
      "concepts/owned": hostilePage(randomCase(pick(EVALUATING)), marker, flag),
      "concepts/gardening": GOOD,
    },
  });
  return { root, marker };
}

describe("no host runs a page's front matter", () => {
  it("the CLI: status, reindex, recall and lint report the page and serve the others", () => {
    const { root, marker } = hostileVault();
    const env = childEnv({ HOME: root, WIKI_HOME: root });
    const status = runCli(["status", "--json", "--vault", root], { env });
    expect(status.stdout).toContain('"malformed": 1');
    const reindex = runCli(["reindex", "--vault", root], { env });
    expect(reindex.status).toBe(0);
    const recall = runCli(["recall", "tomatoes watering", "--json", "--vault", root], { env });
    expect(recall.stdout).toContain("concepts/gardening");
    const lint = runCli(["lint", "--json", "--vault", root], { env });
    expect(lint.stdout).toContain("frontmatter_language_refused");
    expect(existsSync(marker)).toBe(false);
  });

  it("the MCP server: from start to a recall", async () => {
    const { root, marker } = hostileVault();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", root],
      env: childEnv({ HOME: root, WIKI_HOME: root }) as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "frontmatter-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const reindex = (await client.callTool({
        name: "wiki_reindex",
        arguments: {},
      })) as CallToolResult;
      expect(reindex.isError ?? false).toBe(false);
      const recall = (await client.callTool({
        name: "wiki_recall",
        arguments: { query: "tomatoes watering" },
      })) as CallToolResult;
      expect(JSON.stringify(metaResult(recall))).toContain("concepts/gardening");
    } finally {
      await client.close();
    }
    expect(existsSync(marker)).toBe(false);
  });

  describe("a Pi session", () => {
    const fixture = piPerTest("llm-wiki-frontmatter-");
    let marker = "";
    beforeEach(() => {
      ({ marker } = freshMarker(fixture.dirs.root));
      makeTempVault({
        root: fixture.dirs.project,
        pages: {
          "concepts/owned": hostilePage(randomCase(pick(EVALUATING)), marker, "__unused"),
          "concepts/gardening": GOOD,
        },
      });
    });

    it("reads the vault on start and on a turn without running the page", async () => {
      const pi = await fixture.start();
      pi.script("ok");
      await pi.session.prompt("how often do tomatoes need watering");
      await pi.session.waitForIdle();
      expect(existsSync(marker)).toBe(false);
    });
  });
});

// Guards the guard: the same payload does run when handed to gray-matter's
// defaults, so the checks above can fail.
it("the payload used here does execute under gray-matter's default engines", async () => {
  const { default: matter } = await import("gray-matter");
  const dir = makeTempDir();
  const { marker, flag } = freshMarker(dir);
  matter(hostilePage("js", marker, flag).replace(/^\uFEFF/, ""), { excerpt: false });
  expect(existsSync(marker)).toBe(true);
});
