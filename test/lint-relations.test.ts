/**
 * Lint's relation checks (lint/relation-checks.ts) on real vaults: each
 * malformed or inert relation by its code, unresolved contradictions,
 * cards without evidence; and every page writer keeping a page's
 * `relations:` and `resolution:` front matter as written.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { LintFinding, LintResult } from "../extensions/llm-wiki/lib/lint/types.ts";
import { readFrontmatter } from "../extensions/llm-wiki/lib/vault/frontmatter.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { ensurePage } from "../extensions/llm-wiki/lib/writing/ensure-page.ts";
import { markIngested } from "../extensions/llm-wiki/lib/writing/mark-ingested.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { resolutionRecord } from "./helpers/resolution-page.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

const NOW = new Date("2026-06-01T12:00:00Z");

/** The findings of the only linted vault. */
function findingsOf(result: LintResult): LintFinding[] {
  expect(result.vaults).toHaveLength(1);
  return result.vaults[0]?.findings ?? [];
}

/** `code path target` of the findings whose code is one of `codes`, sorted. */
function picked(findings: LintFinding[], codes: readonly string[]): string[] {
  return findings
    .filter((f) => codes.includes(f.code))
    .map((f) => `${f.code} ${f.path ?? "-"}${f.target ? ` ${f.target}` : ""}`)
    .sort();
}

/** Front matter lines for a relations list (`null` scope: left out). */
function relationsYaml(relations: Array<[string, string, string?]>): string {
  return relations
    .map(([target, type, scope]) =>
      [
        `  - target: ${target}`,
        `    type: ${type}`,
        ...(scope === undefined ? [] : [`    scope: ${scope}`]),
      ].join("\n"),
    )
    .join("\n");
}

/** A page: type, title, `relations` and any extra front matter lines, and a body. */
function page(
  type: string,
  title: string,
  body: string,
  options: { relations?: Array<[string, string, string?]>; extra?: string } = {},
): string {
  const lines = [`type: ${type}`, `title: ${title}`];
  if (options.relations) lines.push(`relations:\n${relationsYaml(options.relations)}`);
  if (options.extra) lines.push(options.extra);
  return `---\n${lines.join("\n")}\n---\n${body}`;
}

const RELATION_CODES = [
  "relation_invalid",
  "relation_bad_scope",
  "resolution_invalid",
  "relation_missing_target",
  "relation_self",
  "relation_duplicate",
  "relation_unknown_type",
  "relation_missing_body_link",
] as const;

describe("relation findings", () => {
  it("reports each malformed or inert relation on its page, by code and target", async () => {
    const a = `concepts/${randomWord()}`;
    const b = `concepts/${randomWord()}`;
    const c = `concepts/${randomWord()}`;
    const missing = `concepts/${randomWord()}-gone`;
    const unknown = `${randomWord()}_by`;
    const vault = makeTempVault({
      pages: {
        [a]: page("concept", "A", `Links [[${b}]] and [[${missing}]] and [[${a}]].\n`, {
          relations: [
            [b, "qualifies"], // counts
            [c, "supports"], // not linked in the body
            [missing, "supersedes"],
            [a, "related_to"],
            [b, "Qualifies"], // the same relation again (types read in lower case)
            [b, unknown],
            [b, "applies_under"], // no scope
            [b, "supports", "somewhere"], // a scope where none belongs
          ],
          extra: `sources: [${b}]`,
        }),
        [b]: page("concept", "B", "Text.\n", { extra: "sources: [x]" }),
        [c]: pageText({ type: "concept", title: "C", sources: "[x]" }, `[[${a}]] [[${b}]]\n`),
        // Entries that are no relation at all.
        "concepts/odd": `---\ntype: concept\ntitle: Odd\nsources: [x]\nrelations:\n  - just a string\n  - target: ${b}\n---\n[[${b}]]\n`,
        "decisions/broken": page("decision", "Broken choice", "Text.\n", {
          extra: `resolution:\n  id: r1\n  selected: ${a}\n  other: ${b}\n  relation: contradicts`,
        }),
      },
    });
    const findings = findingsOf(await serviceFor(vault.root).lint({ now: NOW }));
    const pathOf = (id: string) => `wiki/${id}.md`;
    expect(picked(findings, RELATION_CODES)).toEqual(
      [
        `relation_missing_body_link ${pathOf(a)} ${c}`,
        `relation_missing_target ${pathOf(a)} ${missing}`,
        `relation_self ${pathOf(a)} ${a}`,
        `relation_duplicate ${pathOf(a)} ${b}`,
        `relation_unknown_type ${pathOf(a)} ${b}`,
        `relation_bad_scope ${pathOf(a)}`,
        `relation_bad_scope ${pathOf(a)}`,
        "relation_invalid wiki/concepts/odd.md",
        "relation_invalid wiki/concepts/odd.md",
        "resolution_invalid wiki/decisions/broken.md",
      ].sort(),
    );
    // The parser's codes surface once, as relation findings, not as malformed pages.
    for (const f of findings.filter((f) => RELATION_CODES.includes(f.code as never))) {
      expect(f.check, f.code).toBe("relation");
      expect(f.severity, f.code).toBe("warning");
    }
    expect(findings.filter((f) => f.check === "malformed")).toEqual([]);
    const unknownFinding = findings.find((f) => f.code === "relation_unknown_type");
    expect(unknownFinding?.message).toContain(unknown);
    // Nothing here is an error: the CLI does not fail on relations.
    expect(findings.some((f) => f.severity === "error")).toBe(false);
  });

  it("reports a contradiction no active resolution settles, once per pair", async () => {
    const x = `concepts/${randomWord()}-x`;
    const y = `concepts/${randomWord()}-y`;
    const p = `concepts/${randomWord()}-p`;
    const q = `concepts/${randomWord()}-q`;
    const settled = resolutionRecord({ selected: q, other: p, relation: "supersedes" });
    const src = "[x]";
    const vault = makeTempVault({
      pages: {
        // Both sides declare it: one finding for the pair.
        [x]: page("concept", "X", `[[${y}]]\n`, {
          relations: [[y, "contradicts"]],
          extra: `sources: ${src}`,
        }),
        [y]: page("concept", "Y", `[[${x}]]\n`, {
          relations: [[x, "contradicts"]],
          extra: `sources: ${src}`,
        }),
        [p]: page("concept", "P", `[[${q}]]\n`, {
          relations: [[q, "contradicts"]],
          extra: `sources: ${src}`,
        }),
        [q]: page("concept", "Q", `[[${p}]]\n`, { extra: `sources: ${src}` }),
        [settled.page]: page("analysis", "Settled", "Chosen.\n", {
          extra: `resolution: ${settled.yaml}`,
        }),
      },
    });
    const service = serviceFor(vault.root);
    const findings = findingsOf(await service.lint({ now: NOW }));
    const unresolved = findings.filter((f) => f.code === "contradiction_unresolved");
    const [first, second] = [x, y].sort();
    expect(unresolved.map((f) => [f.path, f.pages])).toEqual([
      [`wiki/${first}.md`, [`wiki/${second}.md`]],
    ]);
    expect(unresolved[0]).toMatchObject({ check: "contradiction", severity: "warning" });

    // A resolution of x and y settles it; one replaced by a later one still does.
    const one = resolutionRecord({ selected: x, other: y, relation: "qualifies" });
    const two = resolutionRecord({
      selected: y,
      other: x,
      relation: "applies_under",
      scope: "batch",
      replaces: one.id,
    });
    vault.writePage(
      one.page,
      page("analysis", "XY one", "First.\n", { extra: `resolution: ${one.yaml}` }),
    );
    vault.writePage(
      two.page,
      page("analysis", "XY two", "Second.\n", { extra: `resolution: ${two.yaml}` }),
    );
    const after = findingsOf(await service.lint({ now: NOW }));
    expect(after.filter((f) => f.code === "contradiction_unresolved")).toEqual([]);
  });

  it("reports each resolution page recall ignores: made up, edited after recording, moved, or from another vault", async () => {
    const a = `concepts/${randomWord()}-a`;
    const b = `concepts/${randomWord()}-b`;
    const vaultId = `vault-${randomWord()}`;
    const genuine = resolutionRecord({ vaultId, selected: a, other: b, relation: "supersedes" });
    const hex = Array.from({ length: 16 }, () => Math.floor(Math.random() * 16).toString(16)).join(
      "",
    );
    const madeUp = `analyses/conflict-resolution-${hex}`;
    const edited = resolutionRecord({ vaultId, selected: b, other: a, relation: "qualifies" });
    const foreign = resolutionRecord({
      vaultId: `other-${randomWord()}`,
      selected: a,
      other: b,
      relation: "qualifies",
    });
    const moved = `analyses/${randomWord()}`;
    const src = "[x]";
    const vault = makeTempVault({
      config: { name: "v", vault_id: vaultId },
      pages: {
        [a]: page("concept", "A", `[[${b}]]\n`, { extra: `sources: ${src}` }),
        [b]: page("concept", "B", `[[${a}]]\n`, { extra: `sources: ${src}` }),
        [genuine.page]: page("analysis", "Genuine", "Chosen.\n", {
          extra: `resolution: ${genuine.yaml}`,
        }),
        [madeUp]: page("analysis", "Made up", "Chosen.\n", {
          extra: `resolution: ${genuine.yaml.replace(genuine.id, `conflict-resolution-${hex}`)}`,
        }),
        [edited.page]: page("analysis", "Edited", "Chosen.\n", {
          extra: `resolution: ${edited.yaml.replace('"qualifies"', '"supersedes"')}`,
        }),
        [foreign.page]: page("analysis", "Foreign", "Chosen.\n", {
          extra: `resolution: ${foreign.yaml}`,
        }),
        [moved]: page("analysis", "Moved", "Chosen.\n", { extra: `resolution: ${genuine.yaml}` }),
      },
    });
    const findings = findingsOf(await serviceFor(vault.root).lint({ now: NOW }));
    const mismatched = findings.filter((f) => f.code === "resolution_id_mismatch");
    expect(mismatched.map((f) => f.path).sort()).toEqual(
      [madeUp, edited.page, foreign.page, moved].map((id) => `wiki/${id}.md`).sort(),
    );
    for (const f of mismatched) {
      expect(f).toMatchObject({ check: "relation", severity: "warning" });
      expect(f.message).toContain("ignored by recall");
    }
  });

  it("warns when a less established page (draft, unverified) supersedes a stable or human-reviewed one", async () => {
    const stable = `concepts/${randomWord()}-stable`;
    const reviewed = `concepts/${randomWord()}-reviewed`;
    const draft = `concepts/${randomWord()}-draft`;
    const generated = `concepts/${randomWord()}-generated`;
    const accepted = `concepts/${randomWord()}-accepted`;
    const loose = `concepts/${randomWord()}-loose`;
    const src = "sources: [x]";
    const vault = makeTempVault({
      pages: {
        [stable]: page("concept", "Stable", "Rule.\n", { extra: `status: stable\n${src}` }),
        [reviewed]: page("concept", "Reviewed", "Rule.\n", {
          extra: `verified: [{by: "human:${randomWord()}", at: 2026-01-02}]\n${src}`,
        }),
        [loose]: page("concept", "Loose", "Note.\n", { extra: src }),
        [draft]: page("concept", "Draft", `[[${stable}]] [[${loose}]]\n`, {
          relations: [
            [stable, "supersedes"],
            [loose, "supersedes"],
          ],
          extra: `status: draft\n${src}`,
        }),
        [generated]: page("concept", "Generated", `[[${reviewed}]]\n`, {
          relations: [[reviewed, "supersedes"]],
          extra: `generated: {by: model-${randomWord()}, at: 2026-03-01}\n${src}`,
        }),
        [accepted]: page("concept", "Accepted", `[[${stable}]]\n`, {
          relations: [[stable, "supersedes"]],
          extra: `status: stable\n${src}`,
        }),
      },
    });
    const findings = findingsOf(await serviceFor(vault.root).lint({ now: NOW }));
    expect(picked(findings, ["supersedes_unreviewed"])).toEqual(
      [
        `supersedes_unreviewed wiki/${draft}.md ${stable}`,
        `supersedes_unreviewed wiki/${draft}.md ${loose}`,
        `supersedes_unreviewed wiki/${generated}.md ${reviewed}`,
      ].sort(),
    );
    const byDraft = findings.find(
      (f) =>
        f.path === `wiki/${draft}.md` && f.code === "supersedes_unreviewed" && f.target === stable,
    );
    expect(byDraft?.message).toContain("keeps the stable page current");
    const byGenerated = findings.find(
      (f) => f.path === `wiki/${generated}.md` && f.code === "supersedes_unreviewed",
    );
    // Unverified and without a status, it is less established than the reviewed page: withheld too.
    expect(byGenerated?.message).toContain("keeps the human-reviewed page current");
  });

  it("reports claim cards with no sources and no chain of evidence relations, only in a vault that uses relations", async () => {
    const paper = `sources/${randomWord()}`;
    const bare = `concepts/${randomWord()}-bare`;
    const cited = `concepts/${randomWord()}-cited`;
    const supported = `concepts/${randomWord()}-supported`;
    const derived = `concepts/${randomWord()}-derived`;
    const fromCard = `concepts/${randomWord()}-card`;
    const choice = resolutionRecord({ selected: bare, other: cited, relation: "qualifies" });
    const pages = {
      [paper]: page("source", "Paper", `[[${supported}]]\n`, {
        relations: [[supported, "supports"]],
      }),
      [bare]: page("concept", "Bare", `[[${cited}]]\n`, {
        // Support from another card is not evidence.
        relations: [[cited, "related_to"]],
      }),
      [cited]: page("concept", "Cited", `[[${bare}]]\n`, { extra: `sources: [${paper}]` }),
      [supported]: page("concept", "Supported", `[[${bare}]]\n`),
      [derived]: page("concept", "Derived", `[[${paper}]] [[${bare}]]\n`, {
        relations: [[paper, "derived_from"]],
      }),
      // Supported by a card that cites a source: evidence through the chain.
      [fromCard]: page("concept", "From card", `[[${bare}]]\n`),
      // Entities describe, they claim nothing: never reported.
      "entities/gadget": page("entity", "Gadget", `[[${bare}]]\n`),
      // Kept for history: never reported.
      "concepts/old-claim": page("concept", "Old claim", `[[${bare}]]\n`, {
        extra: "status: deprecated",
      }),
      "concepts/helper": page("concept", "Helper", `[[${fromCard}]]\n`, {
        relations: [[fromCard, "supports"]],
        extra: `sources: [${paper}]`,
      }),
      // A resolution page, as resolveConflict writes one: an analysis, no sources, not a card.
      [choice.page]: page("analysis", "Resolution", `[[${bare}]]\n`, {
        extra: `category: conflict-resolution\nresolution: ${choice.yaml}`,
      }),
    };
    const vault = makeTempVault({ pages });
    const findings = findingsOf(await serviceFor(vault.root).lint({ now: NOW }));
    const cards = findings.filter((f) => f.code === "card_without_evidence");
    expect(cards.map((f) => f.path)).toEqual([`wiki/${bare}.md`]);
    for (const f of cards) expect(f).toMatchObject({ check: "relation", severity: "info" });

    // The same pages with no relation anywhere: a vault that never adopted them gets no card findings.
    const plain = makeTempVault({
      pages: {
        [bare]: page("concept", "Bare", "Text.\n"),
        [paper]: page("source", "Paper", `[[${bare}]]\n`),
      },
    });
    const none = findingsOf(await serviceFor(plain.root).lint({ now: NOW }));
    expect(none.filter((f) => f.code === "card_without_evidence")).toEqual([]);
  });
});

/** Relations with a fresh unknown type and a scope, and a resolution, as YAML front matter lines. */
function relationalFrontmatter(target: string): { yaml: string; unknown: string } {
  const unknown = `${randomWord()}_${randomWord()}`;
  const yaml = [
    "relations:",
    relationsYaml([
      [target, "supports"],
      [target, unknown],
      [target, "applies_under", `"${randomWord()} clients"`],
    ]),
    "resolution:",
    `  id: res-${randomWord()}`,
    `  selected: ${target}`,
    "  other: concepts/elsewhere",
    "  relation: applies_under",
    `  scope: ${randomWord()}`,
    "  decided_by: user",
    "  decided_at: 2026-05-01",
  ].join("\n");
  return { yaml, unknown };
}

/** The `relations` and `resolution` values a page's front matter holds, as parsed. */
function relational(text: string): { relations: unknown; resolution: unknown } {
  const data = readFrontmatter(text).data as Record<string, unknown>;
  return { relations: data.relations, resolution: data.resolution };
}

describe("page writers keep relations and resolutions", () => {
  it("ensurePage writes them as given, pasted in the content or passed as fields", () => {
    const target = `concepts/${randomWord()}`;
    const { yaml, unknown } = relationalFrontmatter(target);
    const vault = makeTempVault({ pages: { [target]: page("concept", "Target", "Text.\n") } });
    const pasted = `---\n${yaml}\n---\nSee [[${target}]].\n`;
    const given = relational(pasted);
    expect(JSON.stringify(given.relations)).toContain(unknown);

    const one = ensurePage(
      vault.paths,
      { type: "concept", title: randomWord(), content: pasted },
      NOW,
    );
    const written = readFileSync(`${vault.paths.dir}/${one.path}`, "utf8");
    expect(relational(written)).toEqual(given);

    const two = ensurePage(
      vault.paths,
      {
        type: "concept",
        title: randomWord(),
        content: `See [[${target}]].\n`,
        extra: given as Record<string, unknown>,
      },
      NOW,
    );
    const again = readFileSync(`${vault.paths.dir}/${two.path}`, "utf8");
    expect(relational(again)).toEqual(given);
    // And the parser reads the same relations from it, the unknown type kept.
    const parsed = parsePage(two.id, two.path, Buffer.from(again));
    expect(parsed.ok && parsed.page.relations?.map((r) => r.type)).toEqual([
      "supports",
      unknown,
      "applies_under",
    ]);
  });

  it("marking a source ingested changes its status line and not one byte of its relations", () => {
    const target = `concepts/${randomWord()}`;
    const id = `sources/${randomWord()}`;
    const { yaml } = relationalFrontmatter(target);
    const before = `---\ntype: source\ntitle: Paper\nstatus: skeleton\n${yaml}\n---\n[[${target}]]\n`;
    const vault = makeTempVault({
      pages: { [id]: before, [target]: page("concept", "Target", "Text.\n") },
    });
    const outcome = markIngested(
      vault.paths,
      { page: id, pagePath: `wiki/${id}.md`, title: "Paper" },
      NOW,
    );
    expect(outcome.changed).toBe(true);
    expect(vault.readPage(id)).toBe(before.replace("status: skeleton", "status: ingested"));
  });

  it("lint --fix leaves every page with relations as it was", async () => {
    const target = `concepts/${randomWord()}`;
    const { yaml } = relationalFrontmatter(target);
    const gap = `concepts/${randomWord()}-gap`;
    const pages = {
      "concepts/one": `---\ntype: concept\ntitle: One\n${yaml}\n---\n[[${target}]] [[${gap}]]\n`,
      "concepts/two": page("concept", "Two", `[[${gap}]] [[${target}]]\n`, {
        relations: [
          [target, "qualifies"],
          [gap, "supports"],
        ],
      }),
      [target]: page("concept", "Target", "[[concepts/one]] [[concepts/two]]\n"),
    };
    const vault = makeTempVault({ pages });
    const result = await serviceFor(vault.root).lint({ fix: true, now: NOW });
    expect(result.vaults[0]?.fixed.map((f) => f.path)).toEqual([`wiki/${gap}.md`]);
    for (const [id, text] of Object.entries(pages)) expect(vault.readPage(id), id).toBe(text);
  });
});
