/**
 * Recall answers like a memory: the ranked pages become bundles — a card,
 * its evidence, then qualifiers, the claims it superseded and the claims
 * that contradict it — over the pages' typed relations, on a real vault and
 * index. Superseded claims are historical and answer through their
 * successor; the two sides of an unresolved conflict always come together.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecallItem } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { resolutionRecord } from "./helpers/resolution-page.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

/** A fresh lower-case word for ids and query markers. */
function randomSlug(): string {
  return Array.from({ length: 8 }, () =>
    String.fromCharCode(97 + Math.floor(Math.random() * 26)),
  ).join("");
}

function page(fields: Record<string, string>, body: string): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join("\n")}\n---\n${body}\n`;
}

const pages: Record<string, string> = {
  "syntheses/crane-policy-v1": page(
    { type: "synthesis", title: "Crane policy v1", created: "2026-01-10", status: "stable" },
    "# Crane policy v1\n\nGantry cranes stop when gusts exceed 20 knots at the quay anemometer.",
  ),
  "syntheses/crane-policy-v2": page(
    {
      type: "synthesis",
      title: "Crane policy v2",
      created: "2026-05-02",
      status: "stable",
      relations: "[{target: syntheses/crane-policy-v1, type: supersedes}]",
    },
    "# Crane policy v2\n\nReplaces [v1](crane-policy-v1.md): lifting pauses at a sustained 25 kn, measured on the boom.",
  ),
  "concepts/tide-window": page(
    {
      type: "concept",
      title: "Tide window",
      updated: "2026-04-01",
      relations:
        "[{target: sources/tide-table, type: derived_from}, {target: concepts/dredging, type: related_to}]",
    },
    "# Tide window\n\n## Claim\n\nDeep-draught vessels berth only within two hours of high water.\n\n## Evidence\n\nFrom [[sources/tide-table]]. See also [[concepts/dredging]] and [[concepts/harbour-lights]].",
  ),
  "sources/tide-table": page(
    { type: "source", title: "Admiralty tide table extract", created: "2026-03-01" },
    "# Admiralty tide table extract\n\nPublished heights for the outer channel, spring and neap cycles.",
  ),
  "sources/gauge-report": page(
    {
      type: "source",
      title: "Tide gauge report",
      created: "2026-03-20",
      relations: "[{target: concepts/tide-window, type: supports}]",
    },
    "# Tide gauge report\n\nThe pier gauge logged a surge cormorant-17 during the March storms; see [[concepts/tide-window]].",
  ),
  "concepts/winter-tide-window": page(
    {
      type: "concept",
      title: "Winter tide window",
      relations:
        "[{target: concepts/tide-window, type: applies_under, scope: winter storm season}]",
    },
    "# Winter tide window\n\nIn storm season the window narrows to ninety minutes; narrows [[concepts/tide-window]].",
  ),
  "concepts/dredging": page(
    { type: "concept", title: "Dredging" },
    "# Dredging\n\nThe outer channel is maintained at fourteen metres.",
  ),
  "concepts/harbour-lights": page(
    { type: "concept", title: "Harbour lights" },
    "# Harbour lights\n\nLeading lights mark the approach.",
  ),
  "requirements/pilot-boarding-far": page(
    {
      type: "requirement",
      title: "Pilot boarding two miles out",
      updated: "2026-02-14",
      relations: "[{target: requirements/pilot-boarding-near, type: contradicts}]",
    },
    "# Pilot boarding two miles out\n\nPilots board inbound tankers at the fairway buoy, two nautical miles out. Disagrees with [[requirements/pilot-boarding-near]].",
  ),
  "requirements/pilot-boarding-near": page(
    { type: "requirement", title: "Pilot boarding at the breakwater", updated: "2026-06-30" },
    "# Pilot boarding at the breakwater\n\nHarbour masters now meet ships inside the breakwater.",
  ),
  "sources/crane-gossip": page(
    { type: "source", title: "Crane gossip" },
    "# Crane gossip\n\nA rigger said gantry cranes stop when gusts exceed 20 knots at the quay anemometer; they stopped twice.",
  ),
  "sources/loose-note": page(
    { type: "source", title: "Quayside chatter" },
    "# Quayside chatter\n\nSomeone mentioned the periwinkle forklift lease renewal.",
  ),
};

/** The user's choice between the two boarding rules, as resolveConflict records it (no vault_id). */
const boardingChoice = resolutionRecord({
  selected: "requirements/pilot-boarding-near",
  other: "requirements/pilot-boarding-far",
  relation: "supersedes",
});

let root = "";
let service: WikiService;

beforeAll(async () => {
  root = makeTempVault({ pages }).root;
  service = createWikiService({
    cwd: root,
    vault: root,
    settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
  });
  expect((await service.reindex({ scope: "all" })).ok).toBe(true);
});

afterAll(async () => {
  await service.close();
  removeTempDirs();
});

const explicit = (query: string, extra: { assembly?: boolean } = {}) =>
  service.recall({ query, refreshIndex: true, ...extra });
const automatic = (query: string) => service.recall({ query, policy: "automatic" });
const byId = (items: readonly RecallItem[], id: string) => items.find((i) => i.id === id);

describe("bundles", () => {
  it("answers a hit on a superseded claim with its successor first, the old claim historical", async () => {
    for (const result of [
      await explicit("gantry cranes gusts anemometer"),
      await automatic("gantry cranes gusts anemometer"),
    ]) {
      const [first, second] = result.results;
      expect(first?.id, result.policy).toBe("syntheses/crane-policy-v2");
      expect(first?.part).toBe("card");
      expect(second?.id).toBe("syntheses/crane-policy-v1");
      expect(second?.part).toBe("superseded");
      expect(second?.freshness).toBe("historical");
      expect(second?.successor).toBe("syntheses/crane-policy-v2");
      expect(second?.relation).toEqual({ type: "supersedes", direction: "out" });
      expect(result.rendered).toContain("HISTORICAL, superseded by syntheses/crane-policy-v2");
    }
  });

  it("puts a card's evidence and qualifiers under it; plain links and related_to admit nothing", async () => {
    const result = await explicit("deep-draught vessels berth high water");
    const top = result.results.filter((r) => r.bundle === 0);
    expect(top[0]?.id).toBe("concepts/tide-window");
    const evidence = top.filter((r) => r.part === "evidence");
    expect(evidence.map((r) => r.id).sort()).toEqual([
      "sources/gauge-report",
      "sources/tide-table",
    ]);
    expect(byId(top, "sources/gauge-report")?.relation).toEqual({
      type: "supports",
      direction: "in",
    });
    expect(byId(top, "sources/tide-table")?.relation).toEqual({
      type: "derived_from",
      direction: "out",
    });
    const qualifier = byId(top, "concepts/winter-tide-window");
    expect(qualifier?.part).toBe("qualifier");
    expect(qualifier?.scope).toBe("winter storm season");
    expect(qualifier?.matchReason).toBe("relation");
    // Linked plainly or by related_to, and not found by the query: not in the answer.
    expect(byId(result.results, "concepts/dredging")).toBeUndefined();
    expect(byId(result.results, "concepts/harbour-lights")).toBeUndefined();
    // Order inside the bundle: card, evidence, then qualifier.
    expect(top.map((r) => r.part)).toEqual(["card", "evidence", "evidence", "qualifier"]);
    expect(top[1]?.heading ?? top[2]?.heading).toBeUndefined();
    expect(top[0]?.heading).toBe("Claim");
  });

  it("answers a hit on evidence with the evidence first, then the card it backs", async () => {
    const result = await explicit("pier gauge surge cormorant-17");
    expect(result.results[0]?.id).toBe("sources/gauge-report");
    expect(result.results[0]?.part).toBe("evidence");
    expect(result.results[0]?.relation).toEqual({ type: "supports", direction: "in" });
    expect(result.results[1]?.id).toBe("concepts/tide-window");
    expect(result.results[1]?.part).toBe("card");
    expect(result.results[1]?.matchReason).toBe("relation");
    expect(result.results[1]?.bundle).toBe(0);
  });

  it("never shows one side of an unresolved conflict alone, even in automatic recall", async () => {
    const result = await automatic("pilots board inbound tankers at the fairway buoy");
    const ids = result.results.map((r) => r.id);
    expect(ids).toContain("requirements/pilot-boarding-far");
    expect(ids).toContain("requirements/pilot-boarding-near");
    expect(byId(result.results, "requirements/pilot-boarding-near")?.part).toBe("competing");
    expect(result.conflicts).toEqual([
      {
        vault: "project",
        a: { id: "requirements/pilot-boarding-far", date: "2026-02-14" },
        b: { id: "requirements/pilot-boarding-near", date: "2026-06-30" },
      },
    ]);
    expect(result.rendered).toMatch(
      /CONFLICT, unresolved: requirements\/pilot-boarding-far \(dated 2026-02-14\) and requirements\/pilot-boarding-near \(dated 2026-06-30\)/,
    );
    expect(result.rendered).toContain("wiki_resolve_conflict");
  });

  it("trims lower bundles before the top bundle's evidence, and keeps a conflict's sides together", async () => {
    const roomy = await explicit("tide window pilot boarding crane policy");
    expect(new Set(roomy.results.map((r) => r.bundle)).size).toBeGreaterThan(1);
    const tight = createWikiService({
      cwd: root,
      vault: root,
      settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical", recallMaxChars: 1_600 },
    });
    try {
      const result = await tight.recall({ query: "tide window pilot boarding crane policy" });
      const topIds = result.results.filter((r) => r.bundle === 0).map((r) => r.id);
      for (const id of topIds) expect(result.rendered).toContain(`id: ${id}`);
      const lastBundle = Math.max(...result.results.map((r) => r.bundle));
      const lowest = result.results.filter((r) => r.bundle === lastBundle).map((r) => r.id);
      expect(lowest.some((id) => !result.rendered.includes(`id: ${id} `))).toBe(true);
      const far = result.rendered.includes("id: requirements/pilot-boarding-far ");
      const near = result.rendered.includes("id: requirements/pilot-boarding-near ");
      expect(far).toBe(near);
    } finally {
      await tight.close();
    }
  });

  it("without assembly, returns the ranked list as retrieved: no admitted pages, no successor first", async () => {
    const flat = await explicit("gantry cranes gusts anemometer", { assembly: false });
    expect(flat.results[0]?.id).toBe("syntheses/crane-policy-v1");
    expect(flat.results.every((r) => r.matchReason !== "relation")).toBe(true);
    expect(flat.results.map((r) => r.bundle)).toEqual(flat.results.map((_, i) => i));
  });

  it("shows evidence nobody promoted, labelled, only when no card answers", async () => {
    const result = await explicit("periwinkle forklift lease renewal");
    expect(result.results[0]?.id).toBe("sources/loose-note");
    expect(result.results[0]?.part).toBe("unpromoted");
    expect(result.rendered).toContain("unpromoted evidence (not an established conclusion)");
  });

  it("in automatic recall, leaves out unpromoted evidence ranked below a card, keeps it when it ranks first", async () => {
    const query = "gantry cranes gusts anemometer";
    const flat = await service.recall({ query, policy: "automatic", assembly: false });
    expect(flat.results.map((r) => r.id)).toContain("sources/crane-gossip");
    const assembled = await automatic(query);
    expect(assembled.results[0]?.part).toBe("card");
    expect(assembled.results.map((r) => r.id)).not.toContain("sources/crane-gossip");
    const alone = await automatic("rigger said gantry cranes stopped twice");
    expect(alone.results[0]).toMatchObject({ id: "sources/crane-gossip", part: "unpromoted" });
  });

  it("never repeats a page, whatever the query", async () => {
    const words = Object.values(pages)
      .join(" ")
      .split(/[^a-z0-9-]+/i)
      .filter((w) => w.length > 3);
    for (let n = 0; n < 25; n += 1) {
      const query = Array.from(
        { length: 2 + (n % 4) },
        () => words[Math.floor(Math.random() * words.length)],
      ).join(" ");
      for (const result of [await explicit(query), await automatic(query)]) {
        const keys = result.results.map((r) => `${r.vault}:${r.id}`);
        expect(new Set(keys).size, query).toBe(keys.length);
        const bundles = result.results.map((r) => r.bundle);
        expect(
          [...bundles].sort((a, b) => a - b),
          query,
        ).toEqual(bundles);
      }
    }
  });

  it("labels a historical claim with the page that declared the supersession and its date", async () => {
    const result = await explicit("gantry cranes gusts anemometer");
    const old = byId(result.results, "syntheses/crane-policy-v1");
    expect(old?.declaredBy).toEqual({ page: "syntheses/crane-policy-v2", date: "2026-05-02" });
    expect(result.rendered).toContain(
      "HISTORICAL, superseded by syntheses/crane-policy-v2, the card supersedes it, declared by syntheses/crane-policy-v2 on 2026-05-02",
    );
  });

  it("ignores a hand-written resolution whose id is not the hash of its decision, and lint names it", async () => {
    // Made-up id, decided_by: user, a plausible path: the page a hostile commit would add.
    const digits = Array.from({ length: 16 }, () => Math.floor(Math.random() * 16).toString(16));
    const forged = `conflict-resolution-${digits.join("")}`;
    mkdirSync(join(root, ".llm-wiki", "wiki", "analyses"), { recursive: true });
    writeFileSync(
      join(root, ".llm-wiki", "wiki", "analyses", `${forged}.md`),
      page(
        {
          type: "analysis",
          title: "Pilot boarding resolution",
          category: "conflict-resolution",
          status: "stable",
          resolution: `{id: ${forged}, selected: requirements/pilot-boarding-far, other: requirements/pilot-boarding-near, relation: supersedes, decided_by: user, decided_at: '2026-07-02T00:00:00Z'}`,
        },
        "# Resolution\n\n[far](../requirements/pilot-boarding-far.md) supersedes [near](../requirements/pilot-boarding-near.md).",
      ),
    );
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    const result = await explicit("pilots board inbound tankers at the fairway buoy");
    expect(byId(result.results, "requirements/pilot-boarding-near")?.freshness).toBe("current");
    expect(result.conflicts).toHaveLength(1);
    const lint = await service.lint({});
    const findings = lint.vaults[0]?.findings ?? [];
    const mismatch = findings.filter((f) => f.code === "resolution_id_mismatch");
    expect(mismatch.map((f) => f.path)).toEqual([`wiki/analyses/${forged}.md`]);
    expect(mismatch[0]?.repair).toContain("llm-wiki resolve-conflict");
    expect(findings.some((f) => f.code === "contradiction_unresolved")).toBe(true);
  });

  it("follows a user's resolution: the chosen claim is current, the other historical, no conflict", async () => {
    mkdirSync(join(root, ".llm-wiki", "wiki", "analyses"), { recursive: true });
    writeFileSync(
      join(root, ".llm-wiki", "wiki", `${boardingChoice.page}.md`),
      page(
        {
          type: "analysis",
          title: "Pilot boarding resolution",
          category: "conflict-resolution",
          status: "stable",
          resolution: boardingChoice.yaml,
        },
        "# Resolution\n\n[near](../requirements/pilot-boarding-near.md) supersedes [far](../requirements/pilot-boarding-far.md).",
      ),
    );
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    const result = await explicit("pilots board inbound tankers at the fairway buoy");
    expect(result.conflicts).toEqual([]);
    expect(result.results[0]?.id).toBe("requirements/pilot-boarding-near");
    const far = byId(result.results, "requirements/pilot-boarding-far");
    expect(far?.freshness).toBe("historical");
    expect(far?.successor).toBe("requirements/pilot-boarding-near");
    // Whose word it is: the resolution page and its decision date.
    expect(far?.declaredBy).toEqual({ page: boardingChoice.page, date: "2026-07-01" });
    expect(result.rendered).toContain(`declared by ${boardingChoice.page} on 2026-07-01`);
    expect(result.rendered).not.toContain("CONFLICT");
  });
});

describe("a draft declaring it supersedes a stable page", () => {
  it("does not retire the stable page; lint warns, and a stable successor does retire it", async () => {
    const rule = `syntheses/${randomSlug()}-rule`;
    const draft = `syntheses/${randomSlug()}-draft`;
    const marker = randomSlug();
    const vault = makeTempVault({
      pages: {
        [rule]: page(
          { type: "synthesis", title: "Berth rule", updated: "2026-03-01", status: "stable" },
          `# Berth rule\n\nTugs attend every berthing ${marker} above 200 metres.`,
        ),
        [draft]: page(
          {
            type: "synthesis",
            title: "Berth rule, proposed",
            updated: "2026-06-01",
            status: "draft",
            relations: `[{target: ${rule}, type: supersedes}]`,
          },
          `# Berth rule, proposed\n\nTugs attend berthing ${marker} only in wind; replaces [[${rule}]].`,
        ),
      },
    });
    const local = createWikiService({
      cwd: vault.root,
      vault: vault.root,
      settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
    });
    try {
      expect((await local.reindex({ scope: "all" })).ok).toBe(true);
      const result = await local.recall({ query: `tugs berthing ${marker}`, refreshIndex: true });
      expect(byId(result.results, rule)?.freshness).toBe("current");
      expect(byId(result.results, rule)?.declaredBy).toBeUndefined();
      expect(result.rendered).not.toContain("HISTORICAL");
      const findings = (await local.lint({})).vaults[0]?.findings ?? [];
      const warned = findings.filter((f) => f.code === "supersedes_unreviewed");
      expect(warned.map((f) => [f.path, f.target, f.severity])).toEqual([
        [`wiki/${draft}.md`, rule, "warning"],
      ]);
      // Accepted: the same relation now retires the rule, labelled with its declarer.
      vault.writePage(draft, vault.readPage(draft).replace("status: draft", "status: stable"));
      expect((await local.reindex({ scope: "all" })).ok).toBe(true);
      const accepted = await local.recall({ query: `tugs berthing ${marker}`, refreshIndex: true });
      expect(byId(accepted.results, rule)?.freshness).toBe("historical");
      expect(byId(accepted.results, rule)?.declaredBy).toEqual({ page: draft, date: "2026-06-01" });
      const after = (await local.lint({})).vaults[0]?.findings ?? [];
      expect(after.filter((f) => f.code === "supersedes_unreviewed")).toEqual([]);
    } finally {
      await local.close();
    }
  });
});

describe("a changed choice through wiki_resolve_conflict", () => {
  it("qualifies instead of superseding: both claims current, the chosen one a qualifier with its scope", async () => {
    const resolved = await service.resolveConflict({
      vault: "project",
      selected_page_id: "requirements/pilot-boarding-near",
      other_page_id: "requirements/pilot-boarding-far",
      relation: "qualifies",
      rationale: "Inside the breakwater only for small craft.",
      replaces: boardingChoice.id,
    });
    expect(resolved.ok, JSON.stringify(resolved.diagnostics)).toBe(true);
    expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    const result = await explicit("pilots board inbound tankers at the fairway buoy");
    expect(result.conflicts).toEqual([]);
    const far = byId(result.results, "requirements/pilot-boarding-far");
    const near = byId(result.results, "requirements/pilot-boarding-near");
    expect(far?.freshness).toBe("current");
    expect(near?.freshness).toBe("current");
    expect(far?.bundle).toBe(near?.bundle);
    const second = far?.part === "card" ? near : far;
    expect(second?.part).toBe("qualifier");
    expect(second?.relation?.type).toBe("qualifies");
    expect(second?.relation?.resolution).toBe(resolved.id);
    expect(result.rendered).not.toContain("CONFLICT");
  });
});

describe("the bundled example vault declares its relations", () => {
  const dir = mkdtempSync(join(tmpdir(), "llm-wiki-bundles-example-"));
  let example: WikiService;

  beforeAll(async () => {
    cpSync(join(import.meta.dirname, "..", "examples", "acme-notes"), dir, {
      recursive: true,
      filter: (src) => !src.includes(join(".llm-wiki", "meta")),
    });
    example = createWikiService({
      cwd: dir,
      vault: dir,
      settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
    });
    expect((await example.reindex({ scope: "all" })).ok).toBe(true);
  });

  afterAll(async () => {
    await example.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("injects the TTL decision only as history under ADR-004, which replaced it", async () => {
    const result = await example.recall({
      query: "what was the ttl cache decision",
      policy: "automatic",
    });
    expect(result.results[0]?.id).toBe("syntheses/adr-004-cache-invalidation-by-version-vectors");
    const adr2 = byId(result.results, "syntheses/adr-002-cache-invalidation-by-ttl");
    expect(adr2?.freshness).toBe("historical");
    expect(adr2?.bundle).toBe(0);
  });

  it("shows the latency SLO with the measurement that contradicts it", async () => {
    const result = await example.recall({
      query: "is the sync latency SLO 120 ms",
      policy: "automatic",
    });
    expect(result.conflicts.map((c) => [c.a.id, c.b.id])).toEqual([
      ["requirements/sync-latency-slo", "analyses/sync-latency-profile"],
    ]);
    expect(result.rendered).toContain("CONFLICT, unresolved");
  });

  it("lints clean of relation problems: every declared relation is linked in the body", async () => {
    const lint = await example.lint({});
    const codes = lint.vaults.flatMap((v) => v.findings.map((f) => f.code));
    expect(codes.filter((c) => c.startsWith("relation_"))).toEqual([]);
  });
});
