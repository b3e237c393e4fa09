/**
 * Front matter cannot make a reader do unbounded work. YAML aliases nested
 * inside aliases ("billion laughs") parse into a few shared objects but
 * expand to millions of nodes in every reader that copies or writes the
 * data; such a page is refused with `frontmatter_too_complex` before any
 * reader sees it, the vault's other pages are served, and a client pasting
 * one into a new page gets an answer (the server is not held). Shapes,
 * anchor names and fan-outs are drawn afresh on every run.
 */
import { randomInt } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkExpansion,
  countAliasTokens,
  MAX_FRONTMATTER_ALIASES,
  MAX_FRONTMATTER_DEPTH,
} from "../extensions/llm-wiki/lib/vault/frontmatter-bounds.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import {
  answered,
  initializeRequest,
  isolatedEnv,
  type RawServer,
  responseTo,
  spawnRawServer,
} from "./helpers/mcp-child.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const started: RawServer[] = [];
afterEach(() => {
  for (const s of started.splice(0)) if (s.child.exitCode === null) s.child.kill("SIGKILL");
  removeTempDirs();
});

/** Distinct random anchor names. */
function anchorNames(count: number): string[] {
  const names = new Set<string>();
  while (names.size < count) names.add(`${randomWord(2, 6)}${names.size}`);
  return [...names];
}

/**
 * YAML lines where each anchor's node holds `fanOut` aliases of the one
 * before: `levels` levels expand to fanOut^levels leaves. Sequences or
 * mappings, flow or block, at random.
 */
function laughs(levels: number, fanOut: number): string {
  const names = anchorNames(levels);
  const lines = [`${names[0]}: &${names[0]} ${randomWord()}`];
  for (let i = 1; i < levels; i += 1) {
    const prev = names[i - 1];
    const kind = randomInt(3);
    if (kind === 0) {
      lines.push(`${names[i]}: &${names[i]} [${Array(fanOut).fill(`*${prev}`).join(", ")}]`);
    } else if (kind === 1) {
      const pairs = Array.from({ length: fanOut }, (_, k) => `k${k}: *${prev}`).join(", ");
      lines.push(`${names[i]}: &${names[i]} {${pairs}}`);
    } else {
      lines.push(`${names[i]}: &${names[i]}`);
      for (let k = 0; k < fanOut; k += 1) lines.push(`  - *${prev}`);
    }
  }
  return lines.join("\n");
}

/** A page whose front matter is `yaml` after a random type line. */
function page(yaml: string): string {
  return `---\ntype: ${["concept", "note", "entity"][randomInt(3)]}\ntitle: ${randomWord()}\n${yaml}\n---\nBody ${randomWord()}.\n`;
}

function parse(text: string) {
  return parsePage("concepts/x", "wiki/concepts/x.md", Buffer.from(text));
}

describe("YAML aliases", () => {
  it("refuses nested aliases that expand past the bound, whatever their shape", () => {
    for (let run = 0; run < 20; run += 1) {
      const yaml = laughs(randomInt(6, 11), randomInt(6, 11));
      const result = parse(page(yaml));
      expect(result.ok, yaml).toBe(false);
      expect(result.diagnostics.map((d) => d.code)).toEqual(["frontmatter_too_complex"]);
      expect(result.diagnostics[0]?.message).toContain("wiki/concepts/x.md");
    }
  });

  it("reads a page that shares a few anchors, expanded as YAML says", () => {
    const [base, other] = anchorNames(2);
    const value = randomWord();
    const yaml = `${base}: &${base} {owner: ${value}, tier: 2}\n${other}: *${base}\ntags: &t [${randomWord()}, ${randomWord()}]\naliases: *t`;
    const result = parse(page(yaml));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.page.frontmatter[other as string]).toEqual({ owner: value, tier: 2 });
    expect(result.page.aliases).toEqual(result.page.tags);
  });

  it("refuses a block with more aliases than are read before parsing it", () => {
    const name = randomWord();
    const count = MAX_FRONTMATTER_ALIASES + randomInt(1, 500);
    const yaml = `${name}: &${name} x\nmany: [${Array(count).fill(`*${name}`).join(",")}]`;
    expect(countAliasTokens(yaml)).toBeGreaterThan(MAX_FRONTMATTER_ALIASES);
    const result = parse(page(yaml));
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.code).toBe("frontmatter_too_complex");
    expect(result.diagnostics[0]?.message).toMatch(/aliases/);
  });

  it("refuses aliases stacked deeper than the nesting bound, even when small", () => {
    const names = anchorNames(MAX_FRONTMATTER_DEPTH + randomInt(2, 10));
    const lines = [`${names[0]}: &${names[0]} [x]`];
    for (let i = 1; i < names.length; i += 1) {
      lines.push(`${names[i]}: &${names[i]} [*${names[i - 1]}]`);
    }
    const result = parse(page(lines.join("\n")));
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.message).toMatch(/nests deeper/);
  });

  it("refuses written-out nesting past the bound, block or flow", () => {
    // Block indentation grows as depth squared: kept under the page size limit.
    const depth = MAX_FRONTMATTER_DEPTH + randomInt(2, 900);
    const block = Array.from({ length: depth }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n");
    const flow = `deep: ${"[".repeat(depth)}${"]".repeat(depth)}`;
    for (const yaml of [`${block} end`, flow]) {
      const result = parse(page(yaml));
      expect(result.ok).toBe(false);
      expect(result.diagnostics[0]?.code).toMatch(/^frontmatter_(too_complex|parse_error)$/);
    }
  });

  it("refuses JSON front matter nested past the bound", () => {
    const depth = MAX_FRONTMATTER_DEPTH + randomInt(2, 50_000);
    const json = `{"type": "concept", "deep": ${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const result = parse(`---json\n${json}\n---\nbody\n`);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.code).toBe("frontmatter_too_complex");
  });

  it("measures each shared object once, so even an astronomical expansion is cheap to judge", () => {
    // 40 levels of 40: 40^40 nodes, far past any number a walk could count one by one.
    let node: unknown = [randomWord()];
    for (let i = 0; i < 40; i += 1) node = Array(40).fill(node);
    expect(() => checkExpansion({ root: node }, 1_000)).toThrow(/expands|nests/);
  });
});

describe("a vault holding a bomb", () => {
  function bombVault() {
    const good = randomWord(6, 9);
    const vault = makeTempVault({
      pages: {
        "concepts/laughs": page(laughs(9, 9)),
        "concepts/garden": pageText(
          { type: "concept", title: `Garden ${good}` },
          `Tomatoes and ${good} like sun.\n`,
        ),
      },
    });
    return { vault, good };
  }

  it("lint names the page; search serves the others", async () => {
    const { vault, good } = bombVault();
    const service = createWikiService({ cwd: vault.root, vault: vault.root, env: {} });
    const codes = (await service.lint()).vaults.flatMap((v) => v.findings.map((f) => f.code));
    expect(codes).toContain("frontmatter_too_complex");
    expect(service.search({ query: good }).hits.map((h) => h.id)).toContain("concepts/garden");
  });

  it("the MCP server answers a pasted bomb, a ping behind it and a lint, and serves the other pages", async () => {
    const { vault, good } = bombVault();
    const server = spawnRawServer(vault.root, isolatedEnv());
    started.push(server);
    await server.send(initializeRequest("init"));
    await server.waitFor(answered("init"));
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const content = `---\n${laughs(randomInt(7, 10), randomInt(7, 10))}\n---\n${randomWord()}\n`;
    await server.send({
      jsonrpc: "2.0",
      id: "paste",
      method: "tools/call",
      params: {
        name: "wiki_ensure_page",
        arguments: { type: "concept", title: `Pasted ${randomWord()}`, content },
      },
    });
    await server.send({ jsonrpc: "2.0", id: "ping", method: "ping" });
    await server.send({
      jsonrpc: "2.0",
      id: "lint",
      method: "tools/call",
      params: { name: "wiki_lint", arguments: {} },
    });
    await server.send({
      jsonrpc: "2.0",
      id: "search",
      method: "tools/call",
      params: { name: "wiki_search", arguments: { query: good } },
    });
    // A hang guard only: before the bound this took minutes per call.
    await server.waitFor(
      (ms) => ["paste", "ping", "lint", "search"].every((id) => answered(id)(ms)),
      60_000,
    );
    const paste = JSON.stringify(responseTo(server.messages, "paste"));
    // The pasted block is not read as fields: kept as the page's text.
    expect(paste).toContain("page_frontmatter_kept_as_text");
    expect(JSON.stringify(responseTo(server.messages, "lint"))).toContain(
      "frontmatter_too_complex",
    );
    expect(JSON.stringify(responseTo(server.messages, "search"))).toContain("concepts/garden");
  });
});
