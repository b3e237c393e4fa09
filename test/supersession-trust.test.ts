/**
 * Supersession by trust: a page retires another only when it is at least
 * as established (a person's verification above `stable`, `stable` above a
 * page with no status, that above `draft` and `deprecated`). A page with no
 * status, a `stable` page over a verified one, a `deprecated` page, a
 * `status: [draft]` list, and two pages that supersede each other retire
 * nothing: the page they name stays current, the claimant is shown beside
 * it as a proposed replacement, and lint reports each. An equal or more
 * established page still retires. A tool's `supersedes` added to an
 * existing stable page is recorded as a competing claim, through the real
 * CLI. Pages, words and names are drawn afresh on each run.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RecallItem } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCli } from "./helpers/cli.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const VERIFIED = () => `verified: [{by: "human:${randomWord()}", at: 2026-01-02}]`;

/** A page with the given front-matter lines; its body holds `marker`. */
function page(title: string, marker: string, lines: string[], supersedes?: string): string {
  const fm = [`type: concept`, `title: ${title}`, "updated: 2026-03-01", ...lines];
  if (supersedes) fm.push(`relations: [{target: ${supersedes}, type: supersedes}]`);
  // A relation counts once the body links its target.
  const link = supersedes ? ` It replaces [[${supersedes}]].` : "";
  return `---\n${fm.join("\n")}\n---\n# ${title}\n\nThe ${marker} rule holds for ${title.toLowerCase()}.${link}\n`;
}

interface Case {
  name: string;
  /** Front matter of the page that is superseded, and of the claimant. */
  target: string[];
  claimant: string[];
  retires: boolean;
}

const CASES: Case[] = [
  { name: "no status over stable", target: ["status: stable"], claimant: [], retires: false },
  {
    name: "stable over stable and verified",
    target: ["status: stable", VERIFIED()],
    claimant: ["status: stable"],
    retires: false,
  },
  { name: "no status over verified", target: [VERIFIED()], claimant: [], retires: false },
  {
    name: "deprecated over stable",
    target: ["status: stable"],
    claimant: ["status: deprecated"],
    retires: false,
  },
  {
    name: "a [draft] list over stable",
    target: ["status: stable"],
    claimant: ["status: [draft]"],
    retires: false,
  },
  { name: "draft over no status", target: [], claimant: ["status: draft"], retires: false },
  {
    name: "stable over stable",
    target: ["status: stable"],
    claimant: ["status: stable"],
    retires: true,
  },
  {
    name: "verified over stable",
    target: ["status: stable"],
    claimant: ["status: stable", VERIFIED()],
    retires: true,
  },
  { name: "no status over no status", target: [], claimant: [], retires: true },
];

const byId = (items: RecallItem[], id: string) => items.find((i) => i.id === id);

async function judge(pages: Record<string, string>, query: string) {
  const vault = makeTempVault({ pages });
  const service = createWikiService({
    cwd: vault.root,
    vault: vault.root,
    settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
  });
  try {
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    const recall = await service.recall({ query, refreshIndex: true });
    const findings = (await service.lint({})).vaults[0]?.findings ?? [];
    return { recall, findings, vault };
  } finally {
    await service.close();
  }
}

describe("a page retires another only when it is at least as established", () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.retires ? "retires it" : "a competing claim shown beside it, reported by lint"}`, async () => {
      const marker = randomWord();
      const target = `concepts/${randomWord()}-rule`;
      const claimant = `concepts/${randomWord()}-claim`;
      const { recall, findings } = await judge(
        {
          [target]: page("Current rule", marker, c.target),
          [claimant]: page("Claimed rule", marker, c.claimant, target),
        },
        `${marker} rule`,
      );
      const shown = byId(recall.results, target);
      const reported = findings.filter(
        (f) => f.code === "supersedes_unreviewed" && f.target === target,
      );
      if (c.retires) {
        expect(shown?.freshness).toBe("historical");
        expect(recall.rendered).toContain("HISTORICAL");
        return;
      }
      expect(shown?.freshness).toBe("current");
      expect(recall.rendered).not.toContain("HISTORICAL");
      // The claim is not lost: it answers beside the page it would replace.
      const beside = byId(recall.results, claimant);
      expect(beside?.part).toBe("proposed");
      expect(beside?.bundle).toBe(shown?.bundle);
      expect(recall.rendered).toMatch(/#### proposed replacement \(/);
      expect(reported.map((f) => f.path)).toEqual([`wiki/${claimant}.md`]);
    });
  }

  it("two pages that supersede each other: neither is historical, both claims reported", async () => {
    const marker = randomWord();
    const a = `concepts/${randomWord()}-a`;
    const b = `concepts/${randomWord()}-b`;
    const { recall, findings } = await judge(
      {
        [a]: page("Rule A", marker, ["status: stable"], b),
        [b]: page("Rule B", marker, ["status: stable"], a),
      },
      `${marker} rule`,
    );
    expect(byId(recall.results, a)?.freshness).toBe("current");
    expect(byId(recall.results, b)?.freshness).toBe("current");
    expect(recall.rendered).not.toContain("HISTORICAL");
    const reported = findings
      .filter((f) => f.code === "supersedes_unreviewed")
      .map((f) => [f.path, f.target])
      .sort();
    expect(reported).toEqual(
      [
        [`wiki/${a}.md`, b],
        [`wiki/${b}.md`, a],
      ].sort(),
    );
    for (const f of findings.filter((x) => x.code === "supersedes_unreviewed"))
      expect(f.message).toContain("retires neither");
  });

  it("a tool's supersedes added to an existing stable page is recorded as a competing claim (CLI page --relation)", () => {
    const home = makeTempDir("llm-wiki-supersession-home-");
    const marker = randomWord();
    const target = `concepts/${randomWord()}-rule`;
    const title = `Reviewed ${randomWord()}`;
    const host = `concepts/${title.toLowerCase().replace(/ /g, "-")}`;
    const vault = makeTempVault({
      pages: {
        [target]: page("Current rule", marker, ["status: stable"]),
        [host]: page(title, marker, ["status: stable"]),
      },
    });
    const env = { HOME: home, WIKI_HOME: home };
    const run = runCli(
      [
        "page",
        "--type",
        "concept",
        "--title",
        title,
        "--relation",
        `supersedes:${target}`,
        "--json",
        "--vault",
        vault.root,
      ],
      { cwd: vault.root, env },
    );
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { diagnostics?: Array<{ code: string }> };
    expect(out.diagnostics?.map((d) => d.code)).toContain("page_supersedes_as_competing");
    const written = vault.readPage(host);
    expect(written).toContain("contradicts");
    expect(written).not.toMatch(/type: supersedes/);
    const recall = runCli(["recall", `${marker} rule`, "--json", "--vault", vault.root], {
      cwd: vault.root,
      env,
    });
    expect(recall.status, recall.stderr).toBe(0);
    const result = JSON.parse(recall.stdout) as { results: RecallItem[] };
    expect(byId(result.results, target)?.freshness).toBe("current");
  });

  it("a new page a tool writes as stable, or with supersedes pasted in its front matter, records a competing claim", async () => {
    const marker = randomWord();
    const target = `concepts/${randomWord()}-rule`;
    const vault = makeTempVault({
      pages: { [target]: page("Current rule", marker, ["status: stable"]) },
    });
    const service = createWikiService({
      cwd: vault.root,
      vault: vault.root,
      settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
    });
    try {
      const given = service.ensurePage({
        type: "concept",
        title: `Given ${randomWord()}`,
        status: "stable",
        content: `The ${marker} rule changed.`,
        relations: [{ type: "supersedes", target }],
      });
      const pasted = service.ensurePage({
        type: "concept",
        title: `Pasted ${randomWord()}`,
        content: `---\nstatus: stable\nrelations: [{target: ${target}, type: supersedes}]\n---\nThe ${marker} rule changed again, see [[${target}]].`,
      });
      for (const written of [given, pasted]) {
        expect(written.ok, JSON.stringify(written.diagnostics)).toBe(true);
        expect(written.diagnostics.map((d) => d.code)).toContain("page_supersedes_as_competing");
        const text = vault.readPage(written.id ?? "");
        expect(text).toContain("contradicts");
        expect(text).not.toMatch(/type: supersedes/);
      }
      expect((await service.reindex({ scope: "all" })).ok).toBe(true);
      const recall = await service.recall({ query: `${marker} rule`, refreshIndex: true });
      expect(byId(recall.results, target)?.freshness).toBe("current");
    } finally {
      await service.close();
    }
  });
});
