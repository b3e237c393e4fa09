/**
 * A conflict written as text — our ingest hand-off's `> Contradiction: …
 * [[page]]` line, and pi-llm-wiki's forms (`> ⚠️ **Contradiction:**`, its
 * ingest worker's `## Contradictions` section of `⚠️ **Contradiction**:`
 * lines, localised) — is an unresolved `contradicts` edge from the page
 * holding it to each page it links. Recall shows both sides and the call
 * that resolves it, like a declared relation; once resolved it is gone;
 * lint reports it once. Code is never a conflict, and hostile text is
 * bounded.
 */
import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { LintFinding } from "../extensions/llm-wiki/lib/lint/types.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { type Registry, refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { openSavedRegistry } from "../extensions/llm-wiki/lib/vault/registry-saved.ts";
import type { RelationEdge, RelationGraph } from "../extensions/llm-wiki/lib/vault/relations.ts";
import { MAX_TARGETS } from "../extensions/llm-wiki/lib/vault/text-conflicts.ts";
import { mulberry32 } from "../scripts/test-models/mulberry32.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const concept = (title: string, body: string, extra: Record<string, string> = {}) =>
  pageText({ type: "concept", title, ...extra }, `# ${title}\n\n${body}\n`);

/** Unrelated pages, so the backup pages' terms are rare enough for automatic recall. */
const FILLER: Record<string, string> = {
  "concepts/deploy-pipeline": concept("Deploy pipeline", "Releases ship through a canary stage."),
  "concepts/rate-limits": concept("Rate limits", "The API allows sixty requests a minute."),
  "concepts/feature-flags": concept("Feature flags", "Flags live in the settings service."),
  "concepts/on-call": concept("On-call rotation", "Engineers rotate weekly, on Mondays."),
  "concepts/logging": concept("Logging", "Structured logs carry a trace id."),
  "concepts/migrations": concept("Schema migrations", "Migrations run before new code ships."),
};

/** The vault: two backup pages, one stating the conflict as our hand-off asks. */
function backupVault(
  contradiction = "> Contradiction: [[concepts/backup-snapshots]] says hourly snapshots to GCS.",
) {
  return makeTempVault({
    pages: {
      ...FILLER,
      "concepts/backup-schedule": concept(
        "Database backups",
        `How often we back up the database: nightly, to S3, at 02:00 UTC.\n\n${contradiction}`,
      ),
      "concepts/backup-snapshots": concept(
        "Backup snapshots",
        "How often we back up the database: every hour, as snapshots to GCS.",
      ),
    },
  });
}

/** The edges of `id` both ways, as `from type to [text]` lines. */
function edgesOf(graph: RelationGraph, id: string): string[] {
  const show = (e: RelationEdge) =>
    `${e.from} ${e.type} ${e.to}${e.origin === "text" ? " text" : ""}${e.resolution ? " resolved" : ""}`;
  return [...graph.outgoing(id).map(show), ...graph.incoming(id).map(show)].sort();
}

describe("the issue's backup pages, through the real CLI", () => {
  it("recall --auto shows one conflict with both sides and the resolve call; resolving it ends the conflict", () => {
    const vault = backupVault();
    const env = childEnv();
    const cli = (args: string[]) => runCli(args, { cwd: vault.root, env });
    expect(cli(["reindex"]).status).toBe(0);
    const query = "how often do we back up the database";
    const before = cli(["recall", "--auto", query]);
    expect(before.status, before.stderr).toBe(0);
    const conflictLines = before.stdout
      .split("\n")
      .filter((l) => l.startsWith("conflict, unresolved:"));
    expect(conflictLines).toHaveLength(1);
    expect(conflictLines[0]).toContain("concepts/backup-schedule");
    expect(conflictLines[0]).toContain("concepts/backup-snapshots");
    expect(conflictLines[0]).toContain("llm-wiki resolve-conflict");
    // Both sides in the block the agent reads, with the statement and the call.
    expect(before.stdout).toContain("id: concepts/backup-schedule ");
    expect(before.stdout).toContain("id: concepts/backup-snapshots ");
    expect(before.stdout.match(/CONFLICT, unresolved:/g)).toHaveLength(1);
    expect(before.stdout).toContain("wiki_resolve_conflict");
    expect(before.stdout).toMatch(/competing claim: .*stated in the text/);

    const resolved = cli([
      "resolve-conflict",
      "--selected",
      "concepts/backup-snapshots",
      "--other",
      "concepts/backup-schedule",
      "--relation",
      "supersedes",
    ]);
    expect(resolved.status, resolved.stderr).toBe(0);
    const after = cli(["recall", "--auto", query]);
    expect(after.status, after.stderr).toBe(0);
    expect(after.stdout).not.toMatch(/conflict, unresolved/i);
    expect(after.stdout).toContain("concepts/backup-snapshots");

    // Lint said so before the resolution and is quiet about the pair after it.
    const lint = JSON.parse(cli(["lint", "--json"]).stdout) as {
      vaults: Array<{ findings: LintFinding[] }>;
    };
    const about = (lint.vaults[0]?.findings ?? []).filter((f) => f.check === "contradiction");
    expect(about).toEqual([]);
  });

  it("explicit recall pairs the two sides the same way, whichever page the query finds first", async () => {
    const vault = backupVault();
    const service = serviceFor(vault.root, {
      settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
    });
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    for (const query of ["snapshots to GCS every hour", "nightly to S3 at 02:00"]) {
      const result = await service.recall({ query });
      expect(result.conflicts, query).toHaveLength(1);
      const pair = [result.conflicts[0]?.a.id, result.conflicts[0]?.b.id].sort();
      expect(pair).toEqual(["concepts/backup-schedule", "concepts/backup-snapshots"]);
      const competing = result.results.find((r) => r.part === "competing");
      expect(competing?.relation).toMatchObject({ type: "contradicts", origin: "text" });
    }
  });
});

describe("the text forms of a conflict", () => {
  /** One page per form, each linking `concepts/other` (and some `concepts/third`). */
  const FORMS: Record<string, string> = {
    ours: "> Contradiction: [[concepts/other]] says the opposite.",
    bold: "> **Contradiction:** [[concepts/other]] says the opposite.",
    "bold-colon-after": "> **contradiction**: [[concepts/other]] says the opposite.",
    "upper-case": "> CONTRADICTION: [[concepts/other|the other page]] disagrees.",
    callout: "> [!contradiction] Two measurements\n> see [[concepts/other]] for the other view",
    "callout-folded": "> [!Contradiction]- folded\n> [[concepts/other]]",
    "pi-skill":
      "> ⚠️ **Contradiction:** Source A claims X, but Source B claims Y.\n> See [[concepts/other]] and [[concepts/third]].",
    "pi-ingest":
      "## Contradictions\n\n⚠️ **Contradiction**: the blog says nightly; [Other](/concepts/other.md) says hourly.\n",
    "pi-ingest-de":
      "## Widersprüche\n\n⚠️ **Widerspruch**: [Other](/concepts/other.md) sagt stündlich.\n",
    "pi-ingest-ru": "## Противоречия\n\n⚠️ **Противоречие**: [[concepts/other]] говорит иначе.\n",
    "pi-ingest-ja": "## 矛盾\n\n⚠️ **矛盾**: [[concepts/other]] は異なる。\n",
    section:
      "## Contradictions\n\n- [[concepts/other]] measured the opposite.\n\n## Next\n\n[[concepts/third]] agrees.",
    nested: "> > Contradiction: [[concepts/other]] in a nested quote.",
  };

  it("makes each an unresolved contradicts edge from the page to each page it links", () => {
    const pages: Record<string, string> = {
      "concepts/other": concept("Other", "The other view."),
      "concepts/third": concept("Third", "A third view."),
    };
    for (const [name, body] of Object.entries(FORMS)) pages[`forms/${name}`] = concept(name, body);
    pages["forms/key"] = concept("key", "Disagrees with [[concepts/other]].", {
      contradicts: "['[[concepts/other]]']",
    });
    const vault = makeTempVault({ pages });
    const graph = refreshRegistry(vault.paths).relations;
    for (const name of [...Object.keys(FORMS), "key"]) {
      const expected = [`forms/${name} contradicts concepts/other text`];
      if (name === "pi-skill") expected.push(`forms/${name} contradicts concepts/third text`);
      expect(edgesOf(graph, `forms/${name}`), name).toEqual(expected);
    }
  });

  it("finds no conflict in code, in inline code, in prose, nor to a missing page or the page itself", () => {
    const vault = makeTempVault({
      pages: {
        "concepts/other": concept("Other", "The other view."),
        "notes/fenced": concept("Fenced", "```md\n> Contradiction: [[concepts/other]]\n```"),
        "notes/tilde": concept("Tilde", "~~~\n⚠️ **Contradiction**: [[concepts/other]]\n~~~"),
        "notes/inline": concept(
          "Inline",
          "`> Contradiction: [[concepts/other]]` is how a conflict is written.\n\n> Contradiction: see `[[concepts/other]]`.",
        ),
        "notes/prose": concept("Prose", "This contradicts [[concepts/other]], a little."),
        "notes/missing": concept("Missing", "> Contradiction: [[concepts/nowhere]] disagrees."),
        "notes/self": concept("Self", "> Contradiction: [[notes/self]] disagrees with itself."),
      },
    });
    const registry = refreshRegistry(vault.paths);
    for (const id of registry.pages.keys()) expect(edgesOf(registry.relations, id), id).toEqual([]);
    // The missing page stays a broken link for lint.
    expect(registry.linkProblems).toContainEqual({
      from: "notes/missing",
      target: "concepts/nowhere",
      status: "missing",
    });
  });

  it("reads a source page as pi-llm-wiki's ingest writes it", () => {
    const sourceBody = [
      "# Backup guide",
      "",
      "## Summary",
      "",
      "Backups run nightly.",
      "",
      "## Key Takeaways",
      "",
      "- Nightly backups to S3",
      "",
      "## Entities Mentioned",
      "",
      "- [S3](/entities/s3.md)",
      "",
      "## Concepts Mentioned",
      "",
      "- [Backup snapshots](/concepts/backup-snapshots.md)",
      "",
      "## Notable Quotes",
      "",
      "> We back up every night.",
      "",
      "## Contradictions",
      "",
      "⚠️ **Contradiction**: This guide says nightly; [Backup snapshots](/concepts/backup-snapshots.md) says hourly.",
      "## Source Packet",
      "",
      "- **ID:** `sources/SRC-2026-04-28-001`",
      "- **Extracted:** `raw/sources/SRC-2026-04-28-001/extracted.md`",
      "",
    ].join("\n");
    const vault = makeTempVault({
      pages: {
        "sources/SRC-2026-04-28-001": pageText(
          { type: "source", title: "Backup guide", status: "ingested" },
          sourceBody,
        ),
        "concepts/backup-snapshots": concept("Backup snapshots", "Hourly."),
        "entities/s3": pageText({ type: "entity", title: "S3" }, "# S3\n"),
      },
    });
    const graph = refreshRegistry(vault.paths).relations;
    expect(edgesOf(graph, "sources/SRC-2026-04-28-001")).toEqual([
      "sources/SRC-2026-04-28-001 contradicts concepts/backup-snapshots text",
    ]);
    // Only the contradiction's own link: the concept list under another heading is no conflict.
    expect(edgesOf(graph, "entities/s3")).toEqual([]);
  });
});

describe("one conflict per pair", () => {
  function pairVault() {
    return makeTempVault({
      pages: {
        // Declared and stated on the same page.
        "pairs/a": concept("A", "> Contradiction: [[pairs/b]] disagrees.", {
          relations: "[{target: pairs/b, type: contradicts}]",
        }),
        "pairs/b": concept("B", "The B view."),
        // Stated on one side, declared on the other.
        "pairs/c": concept("C", "> Contradiction: [[pairs/d]] disagrees."),
        "pairs/d": concept("D", "Disagrees with [[pairs/c]].", {
          relations: "[{target: pairs/c, type: contradicts}]",
        }),
        // Stated on both sides.
        "pairs/e": concept(
          "E",
          "Quokka colonies nest on the north shore.\n\n> Contradiction: [[pairs/f]] disagrees.",
        ),
        "pairs/f": concept(
          "F",
          "Quokka colonies nest on the south shore.\n\n⚠️ **Contradiction**: [[pairs/e]] disagrees.",
        ),
        // Declared on both sides.
        "pairs/g": concept("G", "Wombat burrows face east, unlike [[pairs/h]].", {
          relations: "[{target: pairs/h, type: contradicts}]",
        }),
        "pairs/h": concept("H", "Wombat burrows face west, unlike [[pairs/g]].", {
          relations: "[{target: pairs/g, type: contradicts}]",
        }),
      },
    });
  }

  it("keeps one edge for a pair however often it is declared or stated", () => {
    const graph = refreshRegistry(pairVault().paths).relations;
    expect(edgesOf(graph, "pairs/a")).toEqual(["pairs/a contradicts pairs/b"]);
    expect(edgesOf(graph, "pairs/c")).toEqual(["pairs/d contradicts pairs/c"]);
    expect(edgesOf(graph, "pairs/e")).toEqual(["pairs/e contradicts pairs/f text"]);
    expect(edgesOf(graph, "pairs/f")).toEqual(["pairs/e contradicts pairs/f text"]);
  });

  it("recall states a pair stated or declared on both sides as one conflict", async () => {
    const vault = pairVault();
    const service = serviceFor(vault.root, {
      settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
    });
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    for (const [query, pair] of [
      ["quokka colonies nest", ["pairs/e", "pairs/f"]],
      ["wombat burrows face", ["pairs/g", "pairs/h"]],
    ] as const) {
      const result = await service.recall({ query });
      expect(
        result.conflicts.map((c) => [c.a.id, c.b.id].sort()),
        query,
      ).toEqual([pair]);
      expect(result.rendered.match(/CONFLICT, unresolved:/g), query).toHaveLength(1);
    }
  });

  it("lint reports a declared pair once, as the relation, and a stated pair as text", async () => {
    const vault = pairVault();
    const result = await serviceFor(vault.root).lint({});
    const findings = (result.vaults[0]?.findings ?? []).filter((f) => f.check === "contradiction");
    const typed = findings.filter((f) => f.code === "contradiction_unresolved");
    expect(typed.map((f) => [f.path, f.pages])).toEqual([
      ["wiki/pairs/a.md", ["wiki/pairs/b.md"]],
      ["wiki/pairs/d.md", ["wiki/pairs/c.md"]],
      ["wiki/pairs/g.md", ["wiki/pairs/h.md"]],
    ]);
    const text = findings.filter((f) => f.code === "contradiction");
    // Neither A's nor C's line is reported again; E and F state theirs, each on both sides.
    expect(text.every((f) => /pairs\/[ef]\.md$/.test(f.path ?? ""))).toBe(true);
    expect(text.filter((f) => f.line !== undefined).map((f) => f.path)).toEqual([
      "wiki/pairs/e.md",
      "wiki/pairs/f.md",
    ]);
  });
});

describe("the derived graph follows the text", () => {
  it("adds and drops the edge as the line comes and goes, patched, rebuilt and as last saved", () => {
    const vault = backupVault();
    const id = "concepts/backup-schedule";
    const edge = ["concepts/backup-schedule contradicts concepts/backup-snapshots text"];
    const all = (registry: Registry) => {
      const saved = openSavedRegistry(vault.paths);
      expect(saved).toBeDefined();
      return [
        edgesOf(registry.relations, id),
        edgesOf(refreshRegistry(vault.paths).relations, id),
        edgesOf(saved?.relations as RelationGraph, id),
      ];
    };
    let registry = refreshRegistry(vault.paths);
    expect(all(registry)).toEqual([edge, edge, edge]);
    const file = vault.pageFile(id);
    for (const [text, expected] of [
      ["How often: nightly. No conflict stated here.", []],
      ["> **Contradiction:** [[concepts/backup-snapshots]] disagrees.", edge],
      ["> Contradiction: nothing linked.", []],
    ] as const) {
      writeFileSync(file, concept("Database backups", text));
      registry = refreshRegistry(vault.paths, registry, { changed: [file] });
      expect(all(registry), text).toEqual([expected, expected, expected]);
    }
  });
});

describe("hostile text", () => {
  it("stays bounded, never points at the page itself, and never throws", () => {
    const seed = Date.now() >>> 0;
    const random = mulberry32(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const odd = [
      "concepts/other",
      "notes/hostile",
      "concepts/oth]er",
      "../../etc/passwd",
      "%%",
      "concepts/other#frag|label",
      "concepts/\u200bother",
      "\u202econcepts/other",
      "ünïcödé/页面",
      " ",
      "concepts/other.md",
    ];
    const link = () => (random() < 0.5 ? `[[${pick(odd)}]]` : `[x](/${pick(odd)}.md)`);
    const lines: string[] = [];
    for (let i = 0; i < 200; i += 1) {
      const marker = pick([
        "> Contradiction: ",
        "⚠️ **Contradiction**: ",
        "> [!contradiction] ",
        "",
        "> ",
      ]);
      const links = Array.from({ length: 1 + Math.floor(random() * 50) }, link).join(" ");
      lines.push(`${marker}${links}`);
    }
    // One huge line with thousands of links, and a marker that runs on for thousands of lines.
    lines.push(
      `> Contradiction: ${Array.from({ length: 5_000 }, (_, i) => `[[p${i}]]`).join(" ")}`,
    );
    lines.push(
      "> Contradiction: start",
      ...Array.from({ length: 3_000 }, link).map((l) => `> ${l}`),
    );
    const body = lines.join("\n");
    const text = concept("Hostile", body);
    const parsed = parsePage("notes/hostile", "wiki/notes/hostile.md", Buffer.from(text));
    expect(parsed.ok, `seed ${seed}`).toBe(true);
    const targets = parsed.ok ? (parsed.page.textConflicts ?? []) : [];
    expect(targets.length, `seed ${seed}`).toBeLessThanOrEqual(MAX_TARGETS);

    const vault = makeTempVault({
      pages: {
        "notes/hostile": text,
        "concepts/other": concept("Other", "The other view."),
      },
    });
    const graph = refreshRegistry(vault.paths).relations;
    for (const e of graph.outgoing("notes/hostile")) {
      expect(e.to, `seed ${seed}`).not.toBe("notes/hostile");
      expect(e.to, `seed ${seed}`).toBe("concepts/other");
    }
    expect(graph.outgoing("notes/hostile").length, `seed ${seed}`).toBeLessThanOrEqual(1);
  });
});
