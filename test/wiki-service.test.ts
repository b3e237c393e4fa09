import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { afterEach, describe, expect, it } from "vitest";
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { VAULT_GITIGNORE } from "../extensions/llm-wiki/lib/vault/bootstrap.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  readEvents,
  removeTempDirs,
  snapshotFiles,
} from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** A service working in `cwd` that finds its vault as a host does (or is given `vault`). */
function serviceIn(cwd: string, home?: string, vault?: string) {
  return serviceFor(cwd, { discover: true, home, vault });
}

/** Code and path of the diagnostics about pages (status also reports on the search index). */
function pageDiagnostics(diagnostics: Diagnostic[]): Array<[string, string | undefined]> {
  return diagnostics.filter((d) => d.path?.startsWith("wiki/")).map((d) => [d.code, d.path]);
}

function configCodes(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => d.code).filter((code) => code.startsWith("config_"));
}

function noTempFiles(dir: string): void {
  const leftovers = [...snapshotFiles(dir).keys()].filter((p) => p.includes(".tmp-"));
  expect(leftovers).toEqual([]);
}

describe("bootstrap", () => {
  it("creates the vault layout, a config, a .gitignore for derived files and one event", () => {
    const root = makeTempDir();
    const result = serviceIn(root).bootstrap({ name: "Acme", topic: "billing" });
    expect(result.ok).toBe(true);
    expect(result.created).toBe(true);
    expect(result.diagnostics).toEqual([]);
    const dir = join(root, ".llm-wiki");
    for (const folder of ["entities", "concepts", "syntheses", "analyses", "sources"]) {
      expect(existsSync(join(dir, "wiki", folder))).toBe(true);
    }
    for (const folder of ["requirements", "skills", "cases"]) {
      expect(existsSync(join(dir, "wiki", folder))).toBe(true);
    }
    expect(existsSync(join(dir, "raw", "sources"))).toBe(true);
    expect(existsSync(join(dir, "meta"))).toBe(true);

    const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({
      name: "Acme",
      topic: "billing",
      mode: "project",
      knowledge_format: "okf-0.2",
    });
    expect(config.vault_id).toMatch(/^[0-9a-f-]{36}$/);

    const gitignore = readFileSync(join(dir, ".gitignore"), "utf8");
    expect(gitignore).toBe(VAULT_GITIGNORE);
    const ignored = gitignore.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    expect(ignored).toEqual(
      expect.arrayContaining(["meta/qmd/", "meta/registry.json", "meta/backlinks.json"]),
    );
    // The event log is authoritative and must stay tracked.
    expect(gitignore).not.toMatch(/events\.jsonl|^meta\/?$|^meta\/\*$/m);

    const events = readEvents(vaultPaths(root, "project"));
    expect(events).toEqual([
      {
        ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        kind: "vault_initialized",
        name: "Acme",
        mode: "project",
        // The same moment under @zosmaai/pi-llm-wiki's key.
        timestamp: events[0]?.ts,
      },
    ]);
    noTempFiles(dir);
  });

  it("names the vault after its folder by default", () => {
    const root = join(makeTempDir(), "my-project");
    mkdirSync(root);
    serviceIn(root).bootstrap({});
    const config = JSON.parse(readFileSync(join(root, ".llm-wiki", "config.json"), "utf8"));
    expect(config.name).toBe("my-project");
  });

  it("is idempotent: a second call changes no byte and logs no second event", () => {
    const root = makeTempDir();
    const service = serviceIn(root);
    service.bootstrap({ name: "First" });
    const before = snapshotFiles(join(root, ".llm-wiki"));
    const again = service.bootstrap({ name: "Second", mode: "research" });
    expect(again.ok).toBe(true);
    expect(again.created).toBe(false);
    expect(again.createdPaths).toEqual([]);
    expect(again.diagnostics.map((d) => d.code)).toEqual(["vault_exists"]);
    expect(snapshotFiles(join(root, ".llm-wiki"))).toEqual(before);
  });

  it("completes a partial vault without touching what is there", () => {
    const root = makeTempDir();
    const service = serviceIn(root);
    service.bootstrap({});
    const dir = join(root, ".llm-wiki");
    rmSync(join(dir, "wiki", "skills"), { recursive: true });
    writeFileSync(join(dir, ".gitignore"), "# mine\n*.bak\n");
    const config = readFileSync(join(dir, "config.json"));
    const result = service.bootstrap({});
    expect(result.createdPaths).toEqual(["wiki/skills/"]);
    expect(existsSync(join(dir, "wiki", "skills"))).toBe(true);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("# mine\n*.bak\n");
    expect(readFileSync(join(dir, "config.json"))).toEqual(config);
  });

  it("creates the vault at --vault, given as the root or as the .llm-wiki folder", () => {
    const cwd = makeTempDir();
    const target = makeTempDir();
    const result = serviceIn(cwd, undefined, join(target, ".llm-wiki")).bootstrap({});
    expect(result.vault.root).toBe(target);
    expect(existsSync(join(target, ".llm-wiki", "config.json"))).toBe(true);
    expect(existsSync(join(cwd, ".llm-wiki"))).toBe(false);
  });
});

describe("ensurePage", () => {
  function vaultService() {
    const vault = makeTempVault();
    mkdirSync(vault.paths.meta, { recursive: true });
    return { vault, service: serviceIn(vault.root) };
  }

  it("creates a page in its type's folder with parseable frontmatter and logs it", () => {
    const { vault, service } = vaultService();
    const result = service.ensurePage({
      type: "concept",
      title: "Reciprocal Rank Fusion",
      content: "Fuses rankings.",
      tags: ["retrieval"],
      description: "1/(k+rank)",
    });
    expect(result).toMatchObject({
      ok: true,
      created: true,
      id: "concepts/reciprocal-rank-fusion",
      path: "wiki/concepts/reciprocal-rank-fusion.md",
    });
    const bytes = readFileSync(vault.pageFile("concepts/reciprocal-rank-fusion"));
    const parsed = parsePage("concepts/reciprocal-rank-fusion", "wiki/x.md", bytes);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
    expect(parsed.page).toMatchObject({
      type: "concept",
      title: "Reciprocal Rank Fusion",
      tags: ["retrieval"],
      description: "1/(k+rank)",
      status: "draft",
      created: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      updated: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
    });
    expect(parsed.page.body).toBe("Fuses rankings.\n");
    const events = readEvents(vault.paths);
    expect(events.at(-1)).toMatchObject({
      kind: "page_created",
      id: "concepts/reciprocal-rank-fusion",
      type: "concept",
    });
    noTempFiles(vault.paths.dir);
  });

  it("puts evidence pages under sources/", () => {
    const { service } = vaultService();
    expect(service.ensurePage({ type: "observation", title: "Flaky CI" }).id).toBe(
      "sources/flaky-ci",
    );
  });

  it("creates one page for the same title twice and reports page_exists", () => {
    const { vault, service } = vaultService();
    const first = service.ensurePage({ type: "concept", title: "BM25", content: "first" });
    const bytes = readFileSync(vault.pageFile("concepts/bm25"));
    const second = service.ensurePage({ type: "concept", title: "  bm25 ", content: "second" });
    expect(second).toMatchObject({ ok: true, created: false, id: first.id, path: first.path });
    expect(second.diagnostics.map((d) => d.code)).toEqual(["page_exists"]);
    expect(readFileSync(vault.pageFile("concepts/bm25"))).toEqual(bytes);
    expect(existsSync(vault.pageFile("concepts/bm25-2"))).toBe(false);
    expect(readEvents(vault.paths).filter((e) => e.kind === "page_created")).toHaveLength(1);
  });

  it("never overwrites a hand-written page at the same path", () => {
    const { vault, service } = vaultService();
    const mine = "---\ntype: concept\ntitle: BM25\nowner: me\n---\nMy careful notes.\n";
    vault.writePage("concepts/bm25", mine);
    const result = service.ensurePage({ type: "concept", title: "BM25", content: "replacement" });
    expect(result.created).toBe(false);
    expect(vault.readPage("concepts/bm25")).toBe(mine);
  });

  it("gives two Chinese titles two pages (召回策略, 召回评估)", () => {
    const { vault, service } = vaultService();
    const a = service.ensurePage({ type: "concept", title: "召回策略", content: "策略" });
    const b = service.ensurePage({ type: "concept", title: "召回评估", content: "评估" });
    expect(a.created).toBe(true);
    expect(b.created).toBe(true);
    expect(a.id).not.toBe(b.id);
    expect(vault.readPage(a.id ?? "")).toContain("策略");
    expect(vault.readPage(b.id ?? "")).toContain("评估");
  });

  it("gives different titles that share a slug distinct slugs, and finds each again", () => {
    const { vault, service } = vaultService();
    const plus = service.ensurePage({ type: "concept", title: "C++" });
    const sharp = service.ensurePage({ type: "concept", title: "C#" });
    expect(plus.id).toBe("concepts/c");
    expect(sharp.id).toBe("concepts/c-2");
    expect(matter(vault.readPage("concepts/c")).data.title).toBe("C++");
    expect(matter(vault.readPage("concepts/c-2")).data.title).toBe("C#");
    const again = service.ensurePage({ type: "concept", title: "C#" });
    expect(again).toMatchObject({ created: false, id: "concepts/c-2" });
  });

  it("skips a malformed page that holds the slug instead of overwriting it", () => {
    const { vault, service } = vaultService();
    vault.writePage("concepts/bm25", "---\ntype: [\n---\nbroken");
    const result = service.ensurePage({ type: "concept", title: "BM25" });
    expect(result).toMatchObject({ created: true, id: "concepts/bm25-2" });
    expect(vault.readPage("concepts/bm25")).toBe("---\ntype: [\n---\nbroken");
  });

  it("merges frontmatter pasted into the content, explicit fields winning", () => {
    const { vault, service } = vaultService();
    const content =
      "---\ntype: entity\ntitle: Pasted\ntags: [old]\nowner: search-team\nstatus: stable\n---\n# Body\nText.\n";
    const result = service.ensurePage({
      type: "concept",
      title: "Query Expansion",
      content,
      tags: ["retrieval"],
    });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["page_frontmatter_merged"]);
    const file = matter(vault.readPage(result.id ?? ""));
    expect(file.data).toMatchObject({
      type: "concept",
      title: "Query Expansion",
      tags: ["retrieval"],
      owner: "search-team",
      status: "stable",
    });
    expect(file.content).toBe("# Body\nText.\n");
    expect(file.content).not.toContain("---");
  });

  it("keeps content that only looks like frontmatter as text, with a warning", () => {
    const { vault, service } = vaultService();
    const result = service.ensurePage({
      type: "note",
      title: "Odd",
      content: "---\nkey: [unclosed\n---\nrest",
    });
    expect(result.created).toBe(true);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["page_frontmatter_kept_as_text"]);
    const page = parsePage(
      result.id ?? "",
      "wiki/x.md",
      readFileSync(vault.pageFile(result.id ?? "")),
    );
    if (!page.ok) throw new Error(JSON.stringify(page.diagnostics));
    expect(page.page.type).toBe("note");
    expect(page.page.body).toBe("---\nkey: [unclosed\n---\nrest\n");
  });

  it("keeps a leading rule around a paragraph as text instead of reading it as fields", () => {
    const { vault, service } = vaultService();
    const content = "---\nJust a paragraph between rules.\n---\nMore text.\n";
    const result = service.ensurePage({ type: "note", title: "Rules", content });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["page_frontmatter_kept_as_text"]);
    const file = matter(vault.readPage(result.id ?? ""));
    expect(Object.keys(file.data).sort()).toEqual([
      // Who wrote it: the teammate and the agent (vault/writer.ts).
      "agent",
      "author",
      "created",
      "status",
      "title",
      "type",
      "updated",
    ]);
    expect(file.content).toBe(content);
  });

  it("keeps extra frontmatter keys and skips those whose value is undefined", () => {
    const { vault, service } = vaultService();
    const result = service.ensurePage({
      type: "concept",
      title: "Extras",
      extra: { owner: "search-team", reviewer: undefined, review: { cadence: "monthly" } },
    });
    expect(result).toMatchObject({ ok: true, created: true });
    const data = matter(vault.readPage(result.id ?? "")).data;
    expect(data.owner).toBe("search-team");
    expect(data.review).toEqual({ cadence: "monthly" });
    expect(data).not.toHaveProperty("reviewer");
  });

  it("refuses an unknown type or an empty title with a diagnostic and writes nothing", () => {
    const { vault, service } = vaultService();
    const before = snapshotFiles(vault.paths.wiki);
    const badType = service.ensurePage({ type: "recipe", title: "Soup" });
    expect(badType.ok).toBe(false);
    expect(badType.diagnostics).toEqual([
      expect.objectContaining({ code: "page_invalid_input", severity: "error" }),
    ]);
    expect(service.ensurePage({ type: "concept", title: "   " }).ok).toBe(false);
    expect(snapshotFiles(vault.paths.wiki)).toEqual(before);
  });

  it("fails with vault_not_found when there is no vault", () => {
    const result = serviceIn(makeTempDir()).ensurePage({ type: "concept", title: "X" });
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({
      code: "vault_not_found",
      repair: "llm-wiki init",
    });
  });
});

describe("search", () => {
  const PAGES = {
    "concepts/rag": pageText({ type: "concept", title: "Retrieval-Augmented Generation" }),
    "entities/cloth": pageText({ type: "entity", title: "Rag" }),
    "concepts/retrieval": pageText({ type: "concept", title: "Retrieval", aliases: "[RAG]" }),
    "concepts/grounding": pageText({ type: "concept", title: "Grounding", tags: "[rag]" }),
    "entities/rag-tool": pageText({ type: "entity", title: "Ragtime tool" }),
    "concepts/bm25": pageText({ type: "concept", title: "BM25" }),
    "concepts/broken": "---\ntitle: rag\n---\n",
  };

  it("puts exact id, title and alias matches before tag and partial matches", () => {
    const vault = makeTempVault({ pages: PAGES });
    const result = serviceIn(vault.root).search({ query: "RAG" });
    expect(result.ok).toBe(true);
    expect(result.hits.map((h) => [h.id, h.match])).toEqual([
      ["concepts/rag", "id"],
      ["entities/cloth", "title"],
      ["concepts/retrieval", "alias"],
      ["concepts/grounding", "tag"],
      ["entities/rag-tool", "partial"],
    ]);
    expect(result.hits[0]).toMatchObject({
      title: "Retrieval-Augmented Generation",
      type: "concept",
      role: "canonical",
      vault: "project",
    });
  });

  it("matches a full id, ignores case, width and extra spaces", () => {
    const vault = makeTempVault({ pages: PAGES });
    const service = serviceIn(vault.root);
    expect(service.search({ query: "concepts/bm25" }).hits.map((h) => h.id)).toEqual([
      "concepts/bm25",
    ]);
    expect(service.search({ query: "ＢＭ２５" }).hits.map((h) => h.id)).toEqual(["concepts/bm25"]);
    expect(service.search({ query: "  retrieval-augmented   generation " }).hits[0]?.id).toBe(
      "concepts/rag",
    );
  });

  it("honours the limit and returns nothing for an empty query or no match", () => {
    const vault = makeTempVault({ pages: PAGES });
    const service = serviceIn(vault.root);
    expect(service.search({ query: "rag", limit: 2 }).hits.map((h) => h.id)).toEqual([
      "concepts/rag",
      "entities/cloth",
    ]);
    expect(service.search({ query: "   " }).hits).toEqual([]);
    expect(service.search({ query: "zebra" })).toMatchObject({ ok: true, hits: [] });
  });

  it("finds a page created a moment ago and never a malformed one", () => {
    const vault = makeTempVault({ pages: PAGES });
    const service = serviceIn(vault.root);
    service.ensurePage({ type: "skill", title: "Release checklist", aliases: ["ship it"] });
    expect(service.search({ query: "ship it" }).hits.map((h) => [h.id, h.match])).toEqual([
      ["skills/release-checklist", "alias"],
    ]);
    expect(service.search({ query: "broken" }).hits.map((h) => h.id)).not.toContain(
      "concepts/broken",
    );
  });

  it("searches the project and personal vaults, exact matches first, project winning ties", () => {
    const home = makeTempDir("llm-wiki-home-");
    makeTempVault({
      root: home,
      kind: "personal",
      pages: {
        "concepts/bm25": pageText({ type: "concept", title: "BM25" }),
        "concepts/bm25-tuning": pageText({ type: "concept", title: "BM25 tuning" }),
      },
    });
    const project = makeTempVault({
      pages: {
        "concepts/bm25-variants": pageText({ type: "concept", title: "BM25 variants" }),
        "entities/okapi": pageText({ type: "entity", title: "Okapi", aliases: "[bm25]" }),
      },
    });
    const hits = serviceIn(project.root, home).search({ query: "bm25" }).hits;
    expect(hits.map((h) => [h.vault, h.id, h.match])).toEqual([
      ["personal", "concepts/bm25", "id"],
      ["project", "entities/okapi", "alias"],
      ["project", "concepts/bm25-variants", "partial"],
      ["personal", "concepts/bm25-tuning", "partial"],
    ]);
  });

  it("fails with vault_not_found when there is no vault at all", () => {
    const result = serviceIn(makeTempDir()).search({ query: "x" });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["vault_not_found"]);
  });
});

describe("status", () => {
  it("counts pages by type and role, malformed pages, links and reports diagnostics", () => {
    const vault = makeTempVault({
      config: { name: "Acme", topic: "billing", extra_key: 1 },
      pages: {
        "concepts/a": pageText({ type: "concept" }, "[[concepts/b]] [[missing]] [[dup]]"),
        "concepts/b": pageText({ type: "concept" }),
        "entities/dup": pageText({ type: "entity" }),
        "skills/dup": pageText({ type: "skill" }),
        "sources/s1": pageText({ type: "source" }),
        "sources/o1": pageText({ type: "observation" }),
        "sources/bad": "---\ntitle: No type\n---\n",
        "concepts/odd": pageText({ type: "concept", status: "shiny" }),
      },
    });
    const result = serviceIn(vault.root).status();
    expect(result.ok).toBe(true);
    expect(result.vault).toMatchObject({
      kind: "project",
      root: vault.root,
      name: "Acme",
      pages: 7,
      byType: { concept: 3, entity: 1, observation: 1, skill: 1, source: 1 },
      byRole: { canonical: 5, evidence: 2 },
      malformed: 1,
      links: { resolved: 1, missing: 1, ambiguous: 1 },
    });
    expect(Object.keys(result.vault?.byType ?? {})).toEqual([
      "concept",
      "entity",
      "observation",
      "skill",
      "source",
    ]);
    expect(result.vault?.config).toMatchObject({ name: "Acme", topic: "billing", extra_key: 1 });
    expect(pageDiagnostics(result.diagnostics)).toEqual([
      ["page_unknown_status", "wiki/concepts/odd.md"],
      ["page_missing_type", "wiki/sources/bad.md"],
    ]);
  });

  it("warns about a missing or invalid config but still reports the pages", () => {
    const missing = makeTempVault({
      config: null,
      pages: { "concepts/a": pageText({ type: "concept" }) },
    });
    const a = serviceIn(missing.root).status();
    expect(a.ok).toBe(true);
    expect(a.vault?.pages).toBe(1);
    expect(configCodes(a.diagnostics)).toEqual(["config_missing"]);
    expect(pageDiagnostics(a.diagnostics)).toEqual([]);

    const invalid = makeTempVault({ config: '{"name": 42, "mode": "team"}' });
    const b = serviceIn(invalid.root).status();
    expect(b.vault?.config).toEqual({ mode: "team" });
    expect(configCodes(b.diagnostics)).toEqual(["config_invalid_value"]);

    const broken = makeTempVault({ config: "{nope" });
    expect(configCodes(serviceIn(broken.root).status().diagnostics)).toEqual(["config_invalid"]);
  });

  it("uses the project vault when there is one and the personal vault otherwise", () => {
    const home = makeTempDir("llm-wiki-home-");
    makeTempVault({ root: home, kind: "personal", config: { name: "Me" } });
    const project = makeTempVault({ config: { name: "Proj" } });
    expect(serviceIn(project.root, home).status().vault).toMatchObject({
      kind: "project",
      name: "Proj",
    });
    expect(serviceIn(makeTempDir(), home).status().vault).toMatchObject({
      kind: "personal",
      name: "Me",
    });
    expect(serviceIn(project.root, home).status({ vault: "personal" }).vault?.name).toBe("Me");
  });

  it("fails with a repair command when there is no vault, naming --vault when one was given", () => {
    const none = serviceIn(makeTempDir()).status();
    expect(none.ok).toBe(false);
    expect(none.vault).toBeUndefined();
    expect(none.diagnostics).toEqual([
      expect.objectContaining({
        code: "vault_not_found",
        severity: "error",
        repair: "llm-wiki init",
      }),
    ]);
    const dir = makeTempDir();
    const explicit = serviceIn(makeTempDir(), undefined, dir).status();
    expect(explicit.diagnostics[0]?.repair).toBe(`llm-wiki init --vault ${dir}`);
  });

  it("opens an existing vault without modifying any authoritative file", () => {
    const vault = makeTempVault({
      config: { name: "Legacy", mode: "project", vault_id: "abc", knowledge_format: "okf" },
      pages: {
        "concepts/rag": pageText(
          { type: "concept", title: "RAG", status: "ingested", created: "2024-01-02" },
          "See [[entities/qmd]].\n",
        ),
        "entities/qmd": pageText({ type: "entity", title: "QMD", status: "skeleton" }),
      },
    });
    mkdirSync(vault.paths.meta, { recursive: true });
    writeFileSync(vault.paths.events, '{"ts":"2024-01-02T00:00:00.000Z","kind":"ingest"}\n');
    const authoritative = (): Map<string, Buffer> =>
      new Map(
        [...snapshotFiles(vault.paths.dir)].filter(
          ([path]) => !path.startsWith("meta/cache/") && path !== "meta/backlinks.json",
        ),
      );
    const before = authoritative();
    const service = serviceIn(vault.root);
    expect(service.status().vault?.pages).toBe(2);
    service.search({ query: "rag" });
    expect(authoritative()).toEqual(before);
  });
});
