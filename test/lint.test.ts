import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LintFinding, LintResult } from "../extensions/llm-wiki/lib/lint/types.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { runCli } from "./helpers/cli.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  removeTempDirs,
  snapshotFiles,
} from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
/** The moment every test judges staleness at. */
const NOW = new Date("2026-06-01T12:00:00Z");

/** The findings of the only linted vault. */
function findingsOf(result: LintResult): LintFinding[] {
  expect(result.vaults).toHaveLength(1);
  return result.vaults[0]?.findings ?? [];
}

/** `code path` per finding, sorted, so a whole lint answer compares in one assertion. */
function codesAndPaths(findings: LintFinding[]): string[] {
  return findings.map((f) => `${f.code} ${f.path ?? "-"}`).sort();
}

function one(findings: LintFinding[], code: string, path?: string): LintFinding {
  const hits = findings.filter((f) => f.code === code && f.path === path);
  expect(hits, `${code} ${path}`).toHaveLength(1);
  return hits[0] as LintFinding;
}

const concept = (title: string, body = "", extra: Record<string, string> = {}) =>
  pageText({ type: "concept", title, ...extra }, body);

/** A vault seeded with one of each problem lint looks for (and no search index). */
function problemVault() {
  return makeTempVault({
    pages: {
      // The entry page: nothing links to it, yet it is no orphan.
      "syntheses/overview": pageText(
        { type: "synthesis", title: "Overview" },
        [
          "[[concepts/rag]] [[concepts/rag-notes]] [[concepts/vector-search]]",
          "[[concepts/embeddings]] [[concepts/old-policy]] [[concepts/claim-a]]",
          "[[concepts/claim-b]] [[entities/api]] [[entities/cache]] [[concepts/cache]]",
        ].join("\n"),
      ),
      "concepts/broken": "---\ntype: [\n---\nbody\n",
      "concepts/lonely": concept("Lonely"),
      // A missing link (one linker only, so no gap), an ambiguous one, and a gap.
      "entities/api": pageText(
        { type: "entity", title: "API" },
        "See [[concepts/nowhere]], the [[cache]] and [[concepts/retry-budget]].\n",
      ),
      "concepts/cache": concept("Cache (concept)"),
      "entities/cache": pageText({ type: "entity", title: "Cache service" }),
      // Duplicate titles: equal after NFKC and case folding (fullwidth letters).
      "concepts/rag": concept("RAG", "Budget: [[concepts/retry-budget]].\n"),
      "concepts/rag-notes": concept("ｒａｇ"),
      // A title equal to another page's alias.
      "concepts/vector-search": concept("Vector search", "", { aliases: "[Semantic Search]" }),
      "concepts/embeddings": concept("semantic  search"),
      "concepts/old-policy": concept("Old policy", "", {
        updated: "2025-12-01",
        stale_after: "90d",
      }),
      "concepts/claim-a": concept(
        "Claim A",
        "Text.\n\n> Contradiction: [[concepts/claim-b]] measured the opposite.\n",
      ),
      "concepts/claim-b": concept("Claim B"),
      // Evidence nobody links to is not an orphan.
      "sources/paper": pageText({ type: "source", title: "A paper" }),
    },
  });
}

describe("lint findings", () => {
  it("reports each seeded problem with its code and path, and nothing else", async () => {
    const vault = problemVault();
    const result = await serviceFor(vault.root).lint({ now: NOW });
    const findings = findingsOf(result);

    expect(codesAndPaths(findings)).toEqual(
      [
        "index_missing -",
        "frontmatter_parse_error wiki/concepts/broken.md",
        "link_missing wiki/entities/api.md",
        "link_missing wiki/entities/api.md",
        "link_missing wiki/concepts/rag.md",
        "link_ambiguous wiki/entities/api.md",
        "knowledge_gap wiki/concepts/retry-budget.md",
        "duplicate_title wiki/concepts/rag.md",
        "duplicate_alias wiki/concepts/embeddings.md",
        "contradiction wiki/concepts/claim-a.md",
        "contradiction wiki/concepts/claim-b.md",
        "page_stale wiki/concepts/old-policy.md",
        "page_orphan wiki/concepts/lonely.md",
      ].sort(),
    );
    // The malformed page and nothing else is an error: the CLI exits 1 on it.
    expect(result.ok).toBe(false);
    expect(result.counts).toEqual({ error: 1, warning: 10, info: 2 });
    expect(one(findings, "frontmatter_parse_error", "wiki/concepts/broken.md")).toMatchObject({
      check: "malformed",
      severity: "error",
    });
  });

  it("names the linking page and target of missing and ambiguous links, with the candidates", async () => {
    const vault = problemVault();
    const findings = findingsOf(await serviceFor(vault.root).lint({ now: NOW }));
    const missing = findings.filter((f) => f.code === "link_missing");
    expect(missing.map((f) => [f.path, f.target])).toEqual([
      ["wiki/concepts/rag.md", "concepts/retry-budget"],
      ["wiki/entities/api.md", "concepts/nowhere"],
      ["wiki/entities/api.md", "concepts/retry-budget"],
    ]);
    expect(one(findings, "link_ambiguous", "wiki/entities/api.md")).toMatchObject({
      target: "cache",
      candidates: ["concepts/cache", "entities/cache"],
    });
  });

  it("reports a knowledge gap once, listing every page that links the missing page", async () => {
    const vault = problemVault();
    const findings = findingsOf(await serviceFor(vault.root).lint({ now: NOW }));
    expect(one(findings, "knowledge_gap", "wiki/concepts/retry-budget.md")).toMatchObject({
      severity: "info",
      target: "concepts/retry-budget",
      pages: ["wiki/concepts/rag.md", "wiki/entities/api.md"],
      repair: "llm-wiki lint --fix",
    });
    // `concepts/nowhere` has one linker: a missing link, not a gap.
    expect(findings.filter((f) => f.code === "knowledge_gap")).toHaveLength(1);
  });

  it("names every page sharing a title or alias, compared after NFKC and case folding", async () => {
    const vault = problemVault();
    const findings = findingsOf(await serviceFor(vault.root).lint({ now: NOW }));
    // One finding per name, on the first page in id order, naming the others.
    expect(one(findings, "duplicate_title", "wiki/concepts/rag.md").pages).toEqual([
      "wiki/concepts/rag-notes.md",
    ]);
    const alias = one(findings, "duplicate_alias", "wiki/concepts/embeddings.md");
    expect(alias.pages).toEqual(["wiki/concepts/vector-search.md"]);
    expect(alias.message).toContain("wiki/concepts/vector-search.md (alias)");
  });

  it("reports a contradiction marker on both pages, with the marker's line", async () => {
    const vault = problemVault();
    const findings = findingsOf(await serviceFor(vault.root).lint({ now: NOW }));
    expect(one(findings, "contradiction", "wiki/concepts/claim-a.md")).toMatchObject({
      line: 7,
      pages: ["wiki/concepts/claim-b.md"],
    });
    expect(vault.readPage("concepts/claim-a").split("\n")[6]).toMatch(/^> Contradiction:/);
    expect(one(findings, "contradiction", "wiki/concepts/claim-b.md")).toMatchObject({
      pages: ["wiki/concepts/claim-a.md"],
    });
  });

  it("reads `contradicts:` frontmatter and marker variants, but not markers in code", async () => {
    const vault = makeTempVault({
      pages: {
        "syntheses/index": pageText(
          { type: "synthesis", title: "Index" },
          "[[concepts/a]] [[concepts/b]] [[concepts/c]] [[concepts/d]]\n",
        ),
        "concepts/a": concept("A", "", { contradicts: "[concepts/b, '[[concepts/d]]']" }),
        "concepts/b": concept(
          "B",
          "> **Contradiction:** see\n> [[concepts/c]] for the other view\n",
        ),
        "concepts/c": concept("C", "```\n> Contradiction: [[concepts/a]] in a code block\n```\n"),
        "concepts/d": concept("D", "> [!contradiction]\n> nothing linked here\n"),
      },
    });
    const findings = findingsOf(await serviceFor(vault.root).lint({ now: NOW })).filter(
      (f) => f.check === "contradiction",
    );
    expect(findings.map((f) => [f.path, f.line, f.pages])).toEqual([
      ["wiki/concepts/a.md", undefined, ["wiki/concepts/b.md", "wiki/concepts/d.md"]],
      ["wiki/concepts/b.md", undefined, ["wiki/concepts/a.md"]],
      ["wiki/concepts/b.md", 5, ["wiki/concepts/c.md"]],
      ["wiki/concepts/c.md", undefined, ["wiki/concepts/b.md"]],
      ["wiki/concepts/d.md", undefined, ["wiki/concepts/a.md"]],
      ["wiki/concepts/d.md", 5, []],
    ]);
  });

  it("judges stale_after as a date or a duration from updated (else created), at the given now", async () => {
    const pages: Record<string, string> = {
      "syntheses/index": pageText({ type: "synthesis", title: "Index" }),
      "sources/days": pageText({
        type: "source",
        title: "Days",
        updated: "2026-03-01",
        stale_after: "90d",
      }),
      "sources/days-fresh": pageText({
        type: "source",
        title: "Days fresh",
        updated: "2026-03-04",
        stale_after: "90d",
      }),
      "sources/months": pageText({
        type: "source",
        title: "Months",
        created: "2025-11-01",
        stale_after: "6m",
      }),
      "sources/updated-wins": pageText({
        type: "source",
        title: "Updated wins",
        created: "2025-01-01",
        updated: "2026-05-01",
        stale_after: "6m",
      }),
      "sources/date-past": pageText({
        type: "source",
        title: "Date past",
        stale_after: "2026-06-01",
      }),
      "sources/date-future": pageText({
        type: "source",
        title: "Date future",
        stale_after: "2026-06-02",
      }),
      "sources/no-date": pageText({ type: "source", title: "No date", stale_after: "1y" }),
      // Quoted: unquoted, YAML itself would roll the 30th of February over to March.
      "sources/bad": pageText({ type: "source", title: "Bad", stale_after: '"2026-02-30"' }),
      "sources/none": pageText({ type: "source", title: "None", updated: "2020-01-01" }),
    };
    const vault = makeTempVault({ pages });
    const service = serviceFor(vault.root);
    const stale = async (now: Date) =>
      findingsOf(await service.lint({ now }))
        .filter((f) => f.check === "stale")
        .map((f) => `${f.code} ${f.path}`);
    expect(await stale(NOW)).toEqual([
      "stale_after_invalid wiki/sources/bad.md",
      "page_stale wiki/sources/date-past.md",
      "page_stale wiki/sources/days.md",
      "page_stale wiki/sources/months.md",
      "stale_after_invalid wiki/sources/no-date.md",
    ]);
    // Just before 2026-05-30 (2026-03-01 + 90 days), neither it nor the dated page is due.
    expect(await stale(new Date("2026-05-29T23:59:59Z"))).toEqual([
      "stale_after_invalid wiki/sources/bad.md",
      "page_stale wiki/sources/months.md",
      "stale_after_invalid wiki/sources/no-date.md",
    ]);
  });

  it("finds nothing in a clean, indexed vault", async () => {
    const vault = makeTempVault({
      pages: {
        "syntheses/overview": pageText(
          { type: "synthesis", title: "Overview" },
          "[[concepts/a]] and [B](/concepts/b.md)\n",
        ),
        "concepts/a": concept("A", "[[concepts/b]]\n", { stale_after: "2027-01-01" }),
        "concepts/b": concept("B", "[[concepts/a]], from [[sources/paper]]\n", {
          aliases: "[Bee]",
        }),
        "sources/paper": pageText({ type: "source", title: "Paper" }),
      },
    });
    const service = serviceFor(vault.root);
    const before = findingsOf(await service.lint({ now: NOW }));
    // Without an index, its state is the only finding, with the repair command.
    expect(before.map((f) => [f.code, f.repair])).toEqual([["index_missing", "llm-wiki reindex"]]);

    const reindexed = await service.reindex();
    expect(reindexed.ok).toBe(true);
    const result = await service.lint({ now: NOW });
    expect(findingsOf(result)).toEqual([]);
    expect(result).toMatchObject({ ok: true, counts: { error: 0, warning: 0, info: 0 } });

    vault.writePage("sources/c", pageText({ type: "source", title: "C" }, "[[concepts/a]]\n"));
    expect(findingsOf(await service.lint({ now: NOW })).map((f) => [f.code, f.repair])).toEqual([
      ["index_stale", "llm-wiki reindex"],
    ]);
  });

  it("answers with a vault_not_found diagnostic when there is no vault", async () => {
    const result = await serviceFor(makeTempDir()).lint({ now: NOW });
    expect(result).toMatchObject({
      ok: false,
      vaults: [],
      diagnostics: [{ code: "vault_not_found", severity: "error" }],
    });
  });
});

describe("lint --fix", () => {
  /** Gaps: one fixable, one blocked by a malformed file, one without a folder; one plain missing link. */
  function gapVault() {
    return makeTempVault({
      pages: {
        "syntheses/index": pageText(
          { type: "synthesis", title: "Index" },
          "[[concepts/a]] [[entities/b]]\n",
        ),
        "concepts/a": concept(
          "A",
          "[[concepts/Retry Budget]] [[entities/widget]] [[Flaky Tests]] [[concepts/once]]\n",
        ),
        "entities/b": pageText(
          { type: "entity", title: "B" },
          "[[concepts/retry-budget]] [[entities/widget]] [[Flaky Tests]]\n",
        ),
        // No type and no text: not a page.
        "entities/widget": "---\ntitle: Widget\n---\n",
      },
    });
  }

  it("creates exactly the gap stubs, overwrites nothing, and a second run changes nothing", async () => {
    const vault = gapVault();
    const before = snapshotFiles(vault.paths.wiki);
    const first = await serviceFor(vault.root).lint({ fix: true, now: NOW });
    const report = first.vaults[0];

    expect(report?.fixed).toEqual([
      {
        code: "gap_stub_created",
        target: "concepts/Retry Budget",
        id: "concepts/retry-budget",
        path: "wiki/concepts/retry-budget.md",
        linkedFrom: ["wiki/concepts/a.md", "wiki/entities/b.md"],
      },
    ]);
    expect(report?.skipped.map((s) => [s.target, s.path])).toEqual([
      ["entities/widget", "wiki/entities/widget.md"],
      ["Flaky Tests", undefined],
    ]);
    expect(report?.skipped[0]?.reason).toContain("left unchanged");
    expect(report?.skipped[1]?.reason).toContain("no page folder");

    // The stub: a concept, status stub, dated `now`, listing who links to it.
    const stubBytes = readFileSync(vault.pageFile("concepts/retry-budget"));
    const parsed = parsePage("concepts/retry-budget", "wiki/concepts/retry-budget.md", stubBytes);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.page).toMatchObject({
      type: "concept",
      title: "Retry Budget",
      status: "stub",
      created: "2026-06-01",
    });
    expect(parsed.page.body).toContain("- [[concepts/a]]\n- [[entities/b]]");

    // Every file that was there is byte-identical; the stub is the only new one.
    const after = snapshotFiles(vault.paths.wiki);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
    expect([...after.keys()].filter((p) => !before.has(p))).toEqual(["concepts/retry-budget.md"]);
    expect(existsSync(join(vault.paths.meta, "backups"))).toBe(false);

    // Findings describe the vault after the fix: the closed gap is gone, the rest remain.
    const findings = findingsOf(first);
    expect(findings.filter((f) => f.code === "knowledge_gap").map((f) => f.target)).toEqual([
      "Flaky Tests",
      "entities/widget",
    ]);
    expect(one(findings, "knowledge_gap", "wiki/entities/widget.md").repair).toBeUndefined();
    expect(findings.some((f) => f.target === "concepts/Retry Budget")).toBe(false);
    expect(one(findings, "page_missing_type", "wiki/entities/widget.md").severity).toBe("error");

    const settled = snapshotFiles(vault.paths.dir);
    const second = await serviceFor(vault.root).lint({ fix: true, now: NOW });
    expect(second.vaults[0]?.fixed).toEqual([]);
    expect(second.vaults[0]?.skipped).toEqual(report?.skipped);
    expect(findingsOf(second)).toEqual(findings);
    expect(snapshotFiles(vault.paths.dir)).toEqual(settled);
  });

  it("changes nothing without --fix", async () => {
    const vault = gapVault();
    const before = snapshotFiles(vault.paths.wiki);
    const result = await serviceFor(vault.root).lint({ now: NOW });
    expect(result.vaults[0]?.fixed).toEqual([]);
    expect(snapshotFiles(vault.paths.wiki)).toEqual(before);
  });
});

describe("llm-wiki lint (CLI)", () => {
  const run = (cwd: string, args: string[]) =>
    runCli(args, { cwd, env: { HOME: makeTempDir("llm-wiki-home-") } });

  it("returns the service's findings as JSON and exits 1 on an error finding", async () => {
    const vault = problemVault();
    const service = findingsOf(await serviceFor(vault.root).lint());
    const out = run(makeTempDir(), ["lint", "--json", "--vault", vault.root]);
    expect(out.status).toBe(1);
    const json = JSON.parse(out.stdout) as LintResult;
    expect(json.ok).toBe(false);
    expect(findingsOf(json)).toEqual(service);
  });

  it("exits 0 with warnings only, and prints one line per finding as text", () => {
    const vault = makeTempVault({
      pages: { "concepts/a": concept("A", "[[concepts/gone]]\n") },
    });
    const out = run(vault.root, ["lint"]);
    expect(out.status).toBe(0);
    const lines = out.stdout.trim().split("\n");
    expect(lines[0]).toBe(
      `${vault.root} (project): 3 finding(s): 0 error(s), 2 warning(s), 1 info`,
    );
    expect(lines.slice(1)).toEqual([
      "  warning index_missing: this vault has no search index yet (fix: llm-wiki reindex)",
      "  warning link_missing: wiki/concepts/a.md: link [[concepts/gone]] names no page",
      "  info page_orphan: wiki/concepts/a.md: no other page links to this concept",
    ]);
  });

  it("creates stubs with --fix and rejects arguments it does not know", () => {
    const vault = makeTempVault({
      pages: {
        "concepts/a": concept("A", "[[concepts/b]] [[concepts/gap]]\n"),
        "concepts/b": concept("B", "[[concepts/a]] [[concepts/gap]]\n"),
      },
    });
    const out = run(vault.root, ["lint", "--fix", "--json"]);
    expect(out.status).toBe(0);
    const json = JSON.parse(out.stdout) as LintResult;
    expect(json.vaults[0]?.fixed.map((f) => f.path)).toEqual(["wiki/concepts/gap.md"]);
    expect(existsSync(vault.pageFile("concepts/gap"))).toBe(true);
    expect(run(vault.root, ["lint", "extra"]).status).toBe(2);
    expect(run(vault.root, ["lint", "--which", "nowhere"]).status).toBe(2);
  });
});

describe("the example vault", () => {
  it("has one contradiction, marked and declared, reported once as the relation; claim cards without evidence as info", async () => {
    const root = makeTempDir();
    // Without meta/: a checkout that ran the README example has an index there.
    cpSync(EXAMPLE, root, { recursive: true, filter: (src) => !/[\\/]meta([\\/]|$)/.test(src) });
    const result = await serviceFor(root).lint({ now: NOW });
    const findings = findingsOf(result);
    expect(codesAndPaths(findings)).toEqual([
      "card_without_evidence wiki/analyses/incident-2026-02-duplicate-notes.md",
      "card_without_evidence wiki/analyses/incident-2026-03-reconnect-storm.md",
      "card_without_evidence wiki/concepts/rate-limiting.md",
      "card_without_evidence wiki/concepts/tombstones.md",
      "contradiction_unresolved wiki/requirements/sync-latency-slo.md",
      "index_missing -",
    ]);
    for (const f of findings.filter((x) => x.code === "card_without_evidence"))
      expect(f.severity).toBe("info");
    // Its `> Contradiction:` line names the page its typed relation names: one conflict.
    expect(
      one(findings, "contradiction_unresolved", "wiki/requirements/sync-latency-slo.md"),
    ).toMatchObject({ pages: ["wiki/analyses/sync-latency-profile.md"] });
    expect(result.ok).toBe(true);
  });
});
