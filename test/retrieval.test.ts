/**
 * The retrieval service end to end on real temporary vaults and real QMD
 * stores: every mode (lexical, hybrid, adaptive, quality) with the tiny
 * generated test models, every fallback of the Phase 3 plan's error table,
 * exact and contained name matches, the bounded multiplier, cross-vault
 * fusion, and the precision-first automatic policy staying silent.
 *
 * Which steps ran is read from the result's `trace`; nothing here asserts a
 * timing except loose sanity bounds.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBenchmarkFixture } from "../extensions/llm-wiki/lib/bench/fixture.ts";
import { capabilities, retrievalVault } from "../extensions/llm-wiki/lib/recall/recall-vaults.ts";
import type { RecallInput, RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { isConversationTurn } from "../extensions/llm-wiki/lib/retrieval/conversation-turn.ts";
import { ORDER_WEIGHTS } from "../extensions/llm-wiki/lib/retrieval/score-vault.ts";
import {
  type RetrievalOutcome,
  type RetrievalStore,
  retrieve,
} from "../extensions/llm-wiki/lib/retrieval.ts";
import {
  AUTOMATIC_POLICY,
  boundedMultiplier,
  QUERY_MAX_CHARS,
} from "../extensions/llm-wiki/lib/retrieval-policy.ts";
import { DEFAULT_SETTINGS, type WikiSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { loadOrdinaryPrompts } from "../scripts/bench/auto-precision.ts";
import {
  makeTempDir,
  makeTempVault,
  removeTempDirs,
  type TempVault,
} from "./helpers/temp-vault.ts";

afterAll(removeTempDirs);

const REPO = join(import.meta.dirname, "..");
const EXAMPLE = join(REPO, "examples", "acme-notes");
const FIXTURE = loadBenchmarkFixture(join(REPO, "test", "fixtures", "retrieval", "queries.json"));
const ORDINARY_PROMPTS = join(REPO, "test", "fixtures", "retrieval", "ordinary-prompts.json");

// ---------------------------------------------------------------------------
// The small vault: a dozen pages about a notes app, plus two pairs of twins
// (same body, different role or status) so the multiplier is visible.
// ---------------------------------------------------------------------------

const TWIN_BODY =
  "Forwards telemetry frames from edge sensors to the ingest cluster in batches of sixty four, retrying with jittered backoff.";
const SPOOL_BODY =
  "Buffers outbound webhooks in a durable spool so that a slow receiver never blocks the dispatcher.";

function page(fields: Record<string, string>, body: string): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join("\n")}\n---\n${body}\n`;
}

const PAGES: Record<string, string> = {
  "concepts/cache-invalidation": page(
    {
      type: "concept",
      title: "Cache invalidation",
      aliases: "[cache busting]",
      description: "How cached note lists are dropped when a note changes.",
    },
    "# Cache invalidation\n\nThe web client keeps a cache of rendered note lists. Every entry records the version vector it was built from; a newer vector for any note in the list evicts the entry at once.",
  ),
  "concepts/version-vectors": page(
    { type: "concept", title: "Version vectors" },
    "# Version vectors\n\nEach replica keeps a counter per device. Comparing two vectors tells whether one edit happened before another or whether they were concurrent.",
  ),
  "entities/sync-engine": page(
    { type: "entity", title: "Sync engine" },
    "# Sync engine\n\nThe sync engine merges offline edits from phones and laptops using a CRDT merge, then pushes the merged note to every connected replica.",
  ),
  "entities/api-gateway": page(
    { type: "entity", title: "API gateway" },
    "# API gateway\n\nThe gateway checks bearer tokens and applies per-account rate limits before requests reach the storage layer.",
  ),
  "concepts/who-owns-the-gateway": page(
    { type: "concept", title: "Who owns the gateway" },
    "The platform team owns the gateway and answers its pager.",
  ),
  "syntheses/adr-002-ttl-cache": page(
    {
      type: "synthesis",
      title: '"ADR-002: Expiring cached lists after a fixed TTL"',
      status: "deprecated",
    },
    "# ADR-002\n\nCached note lists expire sixty seconds after they are built. Superseded by ADR-004 because stale lists survived renames.",
  ),
  "syntheses/adr-004-version-vector-cache": page(
    { type: "synthesis", title: '"ADR-004: Evicting cached lists by version vector"' },
    "# ADR-004\n\nCached note lists are evicted when a newer version vector arrives, replacing the sixty second TTL of ADR-002.",
  ),
  "sources/rfc-007-sync-protocol": page(
    { type: "source", title: '"RFC-007: Sync protocol"' },
    "# RFC-007\n\nClients open a websocket to the realtime hub and exchange version vectors; the server answers with the missing operations since the client's vector.",
  ),
  "analyses/reconnect-storm": page(
    { type: "analysis", title: "Reconnect storm incident" },
    "# Reconnect storm\n\nAfter a deploy, forty thousand websocket clients reconnected within two seconds and exhausted the realtime hub. Jittered reconnect delays fixed it.",
  ),
  "skills/release-checklist": page(
    { type: "skill", title: "Release checklist" },
    "# Release checklist\n\n1. Freeze the main branch.\n2. Run the migration dry run against a snapshot.\n3. Tag the release and publish the changelog.",
  ),
  "cases/lost-title-edit": page(
    { type: "case", title: "Lost title edit after offline merge" },
    "# Lost title edit\n\nA title typed offline on a phone vanished after the laptop synced first. The merge compared wall clocks instead of version vectors.",
  ),
  "requirements/data-retention": page(
    { type: "requirement", title: "Data retention" },
    "# Data retention\n\nDeleted notes are purged from backups after thirty days.",
  ),
  // A title made only of stop words: BM25 cannot find it by its name.
  "concepts/to-be-or-not-to-be": page(
    { type: "concept", title: "To Be Or Not To Be" },
    "# Soliloquy\n\nThe naming rule for feature flags: a flag reads as a yes or no question about a capability.",
  ),
  "concepts/quokka-relay": page({ type: "concept", title: "Quokka relay" }, TWIN_BODY),
  "sources/quokka-relay-capture": page(
    { type: "source", title: "Quokka relay capture" },
    TWIN_BODY,
  ),
  "concepts/zephyr-queue": page({ type: "concept", title: "Zephyr queue" }, SPOOL_BODY),
  "concepts/zephyr-queue-legacy": page(
    { type: "concept", title: "Zephyr queue legacy", status: "deprecated" },
    SPOOL_BODY,
  ),
};

const DEPRECATED = new Set(["syntheses/adr-002-ttl-cache", "concepts/zephyr-queue-legacy"]);

/** A home with no personal vault, so nothing of the user's can leak in. */
function isolatedEnv(home = makeTempDir("llm-wiki-retrieval-home-")): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, WIKI_HOME: home };
}

/**
 * Settings of every service here: a turn budget no busy machine reaches, so
 * automatic recall's model steps run as the spec says (the budget's own
 * behaviour is specified with a step that never answers, below).
 */
const SETTINGS: WikiSettings = { ...DEFAULT_SETTINGS, turnBudgetMs: 60_000 };

function smallVault(): TempVault {
  return makeTempVault({ pages: PAGES, config: { name: "small", topic: "notes app" } });
}

function serviceFor(
  vault: TempVault,
  settings: Partial<WikiSettings> = {},
  env: NodeJS.ProcessEnv = isolatedEnv(),
): WikiService {
  return createWikiService({
    cwd: vault.root,
    vault: vault.root,
    env,
    settings: { ...SETTINGS, ...settings },
  });
}

async function indexed(vault: TempVault, vectors: boolean): Promise<void> {
  const service = serviceFor(vault);
  try {
    const result = await service.reindex({
      scope: "all",
      components: vectors ? ["lexical", "vectors"] : ["lexical"],
    });
    expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
    expect(result.reports[0]?.status.vectors.present).toBe(vectors);
  } finally {
    await service.close();
  }
}

type Outcome = Pick<RecallResult, "trace" | "diagnostics"> | RetrievalOutcome;

const steps = (r: Outcome) => r.trace.map((t) => t.step);
const codes = (r: Outcome) => r.diagnostics.map((d) => d.code);
const ids = (r: RecallResult) => r.results.map((h) => h.id);

function recall(
  service: WikiService,
  query: string,
  extra: Partial<RecallInput> = {},
): Promise<RecallResult> {
  return service.recall({ query, policy: "explicit", maxResults: 10, ...extra });
}

/** Every hit's score is its confidence times the bounded multiplier, capped at 1. */
function expectBoundedScores(result: RecallResult): void {
  for (const hit of result.results) {
    const m = boundedMultiplier(hit.exact, hit.role, DEPRECATED.has(hit.id));
    expect(hit.score, hit.id).toBeCloseTo(Math.min(1, hit.confidence * m), 3);
  }
}

function measure(label: string, ms: number): void {
  process.stderr.write(`[measure] ${label}: ${ms.toFixed(1)} ms\n`);
}

// ---------------------------------------------------------------------------

describe("modes on an index with vectors (tiny models)", () => {
  let vault: TempVault;
  let service: WikiService;

  beforeAll(async () => {
    vault = smallVault();
    await indexed(vault, true);
    service = serviceFor(vault);
  });

  afterAll(() => service.close());

  it("lexical runs the lexical step only", async () => {
    const r = await recall(service, "sync engine CRDT merge", { mode: "lexical" });
    expect(steps(r)).toEqual(["lexical"]);
    expect(r).toMatchObject({ ok: true, requestedMode: "lexical", modeUsed: "lexical" });
    expect(r.diagnostics).toEqual([]);
    expect(r.results[0]?.id).toBe("entities/sync-engine");
    expect(new Set(r.results.map((h) => h.source))).toEqual(new Set(["fts"]));
  });

  it("hybrid runs the lexical and the vector step and fuses them", async () => {
    const r = await recall(service, "sync engine CRDT merge", { mode: "hybrid" });
    expect(steps(r)).toEqual(["lexical", "vector"]);
    expect(r.trace[1]?.hits).toBeGreaterThan(0);
    expect(r).toMatchObject({ ok: true, requestedMode: "hybrid", modeUsed: "hybrid" });
    expect(r.diagnostics).toEqual([]);
    expect(r.results[0]).toMatchObject({ id: "entities/sync-engine", source: "hybrid" });
  });

  it("hybrid stands pages by the fused reciprocal rank of the two lists (QMD's fusion) and orders them by it, times the multiplier, with the subject's share", async () => {
    const [paths] = service.resolveVaults();
    const store = paths && (await service.handles.get(paths).index.store());
    if (!store) throw new Error("no store");
    for (const query of [
      "how does the sync engine merge offline edits",
      "sync engine CRDT merge",
      "cached note lists version vector",
      "websocket reconnect",
    ]) {
      const lex = await store.searchLex(query, { limit: 10 });
      const vec = await store.searchVector(query, { limit: 10 });
      // 1/(60 + rank) per list, plus QMD's bonus for a list's first (+0.05) or second and third (+0.02).
      const rr = new Map<string, number>();
      const bestRank = new Map<string, number>();
      for (const list of [lex, vec]) {
        for (const [rank, h] of list.entries()) {
          rr.set(h.pageId, (rr.get(h.pageId) ?? 0) + 1 / (61 + rank));
          bestRank.set(h.pageId, Math.min(bestRank.get(h.pageId) ?? rank, rank));
        }
      }
      for (const [id, rank] of bestRank) {
        rr.set(id, (rr.get(id) ?? 0) + (rank === 0 ? 0.05 : rank <= 2 ? 0.02 : 0));
      }
      const r = await recall(service, query, { mode: "hybrid", explain: true, assembly: false });
      // Each page stands by the fused rank (over the best's); the list is in
      // the order that standing, times the multiplier, makes with the share
      // of the subject the page's names and description hold.
      const top = Math.max(...[...rr.values()]);
      const listed = r.results.filter((h) => h.why?.standing !== undefined);
      expect(listed.length, query).toBeGreaterThan(0);
      for (const h of listed) {
        expect(h.why?.standing, `${query}: ${h.id}`).toBeCloseTo((rr.get(h.id) ?? 0) / top, 3);
        const about = h.why?.about ?? 0;
        const atLeast =
          (h.why?.standing ?? 0) * boundedMultiplier(h.exact, h.role, DEPRECATED.has(h.id)) +
          ORDER_WEIGHTS.about * about;
        expect(h.why?.order ?? 0, `${query}: ${h.id}`).toBeGreaterThanOrEqual(atLeast - 1e-3);
      }
      const orders = listed.filter((h) => !h.exact).map((h) => h.why?.order ?? 0);
      expect(orders, query).toEqual([...orders].sort((a, b) => b - a));
    }
    // Pinned: the RFC is third in both lists; ADR-004 is only the vector list's fourth.
    const pinned = await recall(service, "how does the sync engine merge offline edits", {
      mode: "hybrid",
    });
    expect(ids(pinned)).toEqual([
      "entities/sync-engine",
      "cases/lost-title-edit",
      "sources/rfc-007-sync-protocol",
      "syntheses/adr-004-version-vector-cache",
    ]);
  });

  it("adaptive stays hybrid when no trigger fires", async () => {
    const r = await recall(service, "sync engine CRDT merge", { mode: "adaptive" });
    expect(steps(r)).toEqual(["lexical", "vector"]);
    expect(r).toMatchObject({ requestedMode: "adaptive", modeUsed: "adaptive" });
    expect(r.diagnostics).toEqual([]);
    expect(r.results[0]?.id).toBe("entities/sync-engine");
  });

  it("adaptive is the default mode", async () => {
    const r = await recall(service, "sync engine CRDT merge");
    expect(r.requestedMode).toBe("adaptive");
    expect(steps(r)).toEqual(["lexical", "vector"]);
  });

  it("adaptive escalates to expansion and reranking when a trigger fires (a question)", async () => {
    const r = await recall(service, "how does the sync engine merge offline edits", {
      mode: "adaptive",
    });
    expect(steps(r)).toEqual(["lexical", "vector", "escalate", "expanded"]);
    expect(r.trace[2]?.note).toBe("interrogative");
    expect(r.modeUsed).toBe("adaptive");
    expect(r.diagnostics).toEqual([]);
    expect(ids(r)).toContain("entities/sync-engine");
  });

  it("adaptive escalates when its two best candidates contradict each other unresolved", async () => {
    const query = "sync engine CRDT merge";
    // The fused list's two best (its standing), which adaptive's escalation looks at.
    const byStanding = async (svc: WikiService) =>
      (await recall(svc, query, { mode: "hybrid", assembly: false, explain: true })).results
        .filter((h) => h.why?.standing !== undefined)
        .sort((x, y) => (y.why?.standing ?? 0) - (x.why?.standing ?? 0))
        .map((h) => h.id);
    const top2 = (await byStanding(service)).slice(0, 2);
    expect(top2).toHaveLength(2);
    const [a, b] = top2 as [string, string];
    // The same vault, the best page now declaring that it contradicts the second (and linking it).
    const pages = { ...PAGES };
    pages[a] = (pages[a] ?? "").replace(
      /\n---\n/,
      `\nrelations: [{target: ${b}, type: contradicts}]\n---\n`,
    );
    pages[a] = `${pages[a]}\nDisputed by [[${b}]].\n`;
    const disputed = makeTempVault({ pages, config: { name: "small", topic: "notes app" } });
    await indexed(disputed, true);
    const s = serviceFor(disputed);
    try {
      expect((await byStanding(s)).slice(0, 2)).toEqual(top2);
      const r = await recall(s, query, { mode: "adaptive" });
      expect(steps(r)).toEqual(["lexical", "vector", "escalate", "expanded"]);
      expect(r.trace[2]?.note).toBe("contradiction");
      // Both sides are in the answer, with the conflict stated.
      expect(ids(r)).toEqual(expect.arrayContaining([a, b]));
      expect(r.conflicts.map((c) => [c.a.id, c.b.id].sort())).toContainEqual([a, b].sort());
    } finally {
      await s.close();
    }
  });

  it("quality always runs expansion and reranking, without an escalation decision", async () => {
    const r = await recall(service, "sync engine CRDT merge", { mode: "quality" });
    expect(steps(r)).toEqual(["lexical", "vector", "expanded"]);
    expect(r).toMatchObject({ requestedMode: "quality", modeUsed: "quality" });
    expect(r.diagnostics).toEqual([]);
    expect(ids(r)).toContain("entities/sync-engine");
  });

  it("an exact title is first with confidence 1 and never escalates, though it is a question", async () => {
    const exact = await recall(service, "Who owns the gateway", { mode: "adaptive" });
    expect(exact.results[0]).toMatchObject({
      id: "concepts/who-owns-the-gateway",
      exact: true,
      confidence: 1,
      score: 1,
    });
    expect(steps(exact)).toEqual(["lexical", "vector"]);
    // The same question without being a page's name does escalate.
    const question = await recall(service, "who owns the gateway pager", { mode: "adaptive" });
    expect(steps(question)).toContain("escalate");
    expect(question.results.every((h) => !h.exact)).toBe(true);
  });

  it("an exact title match is first with confidence 1 in every mode, ignoring case and spacing", async () => {
    for (const mode of ["lexical", "hybrid", "adaptive", "quality"] as const) {
      const r = await recall(service, "  cache   INVALIDATION ", { mode });
      expect(r.results[0], mode).toMatchObject({
        id: "concepts/cache-invalidation",
        exact: true,
        confidence: 1,
        score: 1,
      });
      expect(
        r.results.filter((h) => h.exact),
        mode,
      ).toHaveLength(1);
    }
    const alias = await recall(service, "cache busting", { mode: "lexical" });
    expect(alias.results[0]).toMatchObject({ id: "concepts/cache-invalidation", exact: true });
  });

  it("finds the page whose title is only stop words by its exact title", async () => {
    for (const mode of ["lexical", "hybrid", "adaptive"] as const) {
      const r = await recall(service, "To Be Or Not To Be", { mode });
      // BM25 has nothing to search for: every word is a stop word.
      expect(r.trace[0]).toMatchObject({ step: "lexical", hits: 0 });
      expect(r.results[0], mode).toMatchObject({
        id: "concepts/to-be-or-not-to-be",
        exact: true,
        confidence: 1,
      });
    }
  });

  it("lifts a page whose whole title the query contains to the contained-name confidence", async () => {
    const r = await recall(service, "notes about the quokka relay rollout", { mode: "lexical" });
    const relay = r.results.find((h) => h.id === "concepts/quokka-relay");
    const capture = r.results.find((h) => h.id === "sources/quokka-relay-capture");
    expect(relay).toMatchObject({ exact: false, confidence: 0.75 });
    expect(r.results[0]?.id).toBe("concepts/quokka-relay");
    // Its twin's title ("… capture") is not in the query: its confidence is the store's own.
    expect(capture?.confidence).toBeLessThan(0.75);
    const auto = await service.recall({
      query: "notes about the quokka relay rollout",
      policy: "automatic",
      mode: "lexical",
    });
    expect(ids(auto)).toContain("concepts/quokka-relay");
  });

  it("scores every hit as confidence × the bounded multiplier", async () => {
    for (const query of [
      "Cache invalidation",
      "cached note lists version vector",
      "telemetry frames ingest",
      "durable spool webhooks",
      "websocket reconnect",
    ]) {
      for (const mode of ["lexical", "hybrid"] as const) {
        const r = await recall(service, query, { mode });
        expect(r.results.length, `${query} ${mode}`).toBeGreaterThan(0);
        expectBoundedScores(r);
      }
    }
  });

  it("scores a deprecated page down: its live twin ranks first", async () => {
    const r = await recall(service, "durable spool webhooks", { mode: "lexical" });
    expect(ids(r).slice(0, 2)).toEqual(["concepts/zephyr-queue", "concepts/zephyr-queue-legacy"]);
    const [live, legacy] = r.results;
    expect(legacy?.score).toBeCloseTo((legacy?.confidence ?? 0) * 0.95, 3);
    expect(live?.score).toBeCloseTo(Math.min(1, (live?.confidence ?? 0) * 1.03), 3);
    expect(legacy?.score ?? 1).toBeLessThan(live?.score ?? 0);
    // The deprecated ADR too: scored below its confidence.
    const adr = (await recall(service, "Cache invalidation", { mode: "lexical" })).results.find(
      (h) => h.id === "syntheses/adr-002-ttl-cache",
    );
    expect(adr?.score).toBeCloseTo((adr?.confidence ?? 0) * 0.95, 3);
  });

  it("scores evidence below canonical: the same text as a source ranks after the concept", async () => {
    const r = await recall(service, "telemetry frames ingest", { mode: "lexical" });
    expect(ids(r).slice(0, 2)).toEqual(["concepts/quokka-relay", "sources/quokka-relay-capture"]);
    const [canonical, evidence] = r.results;
    expect(canonical).toMatchObject({ role: "canonical", type: "concept" });
    expect(evidence).toMatchObject({ role: "evidence", type: "source" });
    expect(evidence?.score).toBeCloseTo((evidence?.confidence ?? 0) * 0.98, 3);
    expect(canonical?.score).toBeCloseTo(Math.min(1, (canonical?.confidence ?? 0) * 1.03), 3);
    expect(evidence?.score ?? 1).toBeLessThan(canonical?.score ?? 0);
  });

  it("renders a recalled skill with its body inlined, fenced as stored notes", async () => {
    const r = await recall(service, "release checklist migration dry run", { mode: "lexical" });
    expect(r.results[0]?.id).toBe("skills/release-checklist");
    expect(r.rendered.startsWith('<wiki-recall source="llm-wiki">')).toBe(true);
    expect(r.rendered).toContain("> 1. Freeze the main branch.");
    expect(r.results[0]?.path).toBe(".llm-wiki/wiki/skills/release-checklist.md");
    expect(r.results[0]?.file).toBe(vault.pageFile("skills/release-checklist"));
  });
});

// ---------------------------------------------------------------------------

describe("fallbacks", () => {
  let vectors: TempVault;
  let lexicalOnly: TempVault;
  const missing = (name: string) => join(makeTempDir("llm-wiki-no-model-"), `${name}.gguf`);

  beforeAll(async () => {
    vectors = smallVault();
    lexicalOnly = smallVault();
    await indexed(vectors, true);
    await indexed(lexicalOnly, false);
  });

  it("embed model unavailable: hybrid, adaptive and quality answer lexically, with model_unavailable", async () => {
    const service = serviceFor(vectors, { models: { embed: missing("embed") } });
    try {
      const lexical = await recall(service, "how does the sync engine merge offline edits", {
        mode: "lexical",
      });
      for (const mode of ["hybrid", "adaptive", "quality"] as const) {
        const r = await recall(service, "how does the sync engine merge offline edits", { mode });
        expect(steps(r)).toEqual(["lexical"]);
        expect(r).toMatchObject({ ok: true, requestedMode: mode, modeUsed: "lexical" });
        expect(r.diagnostics).toHaveLength(1);
        expect(r.diagnostics[0]).toMatchObject({ code: "model_unavailable", severity: "info" });
        expect(r.diagnostics[0]?.message).toContain("embed model unavailable");
        expect(r.diagnostics[0]?.repair).toContain("models.embed");
        expect(r.results).toEqual(lexical.results);
      }
    } finally {
      await service.close();
    }
  });

  it("vectors not built: hybrid, adaptive and quality answer lexically with vectors_missing", async () => {
    const service = serviceFor(lexicalOnly);
    try {
      const lexical = await recall(service, "sync engine CRDT merge", { mode: "lexical" });
      for (const mode of ["hybrid", "adaptive", "quality"] as const) {
        const r = await recall(service, "sync engine CRDT merge", { mode });
        expect(steps(r)).toEqual(["lexical"]);
        expect(r).toMatchObject({ ok: true, modeUsed: "lexical" });
        expect(r.diagnostics).toEqual([
          expect.objectContaining({
            code: "vectors_missing",
            severity: "info",
            repair: "llm-wiki reindex --vectors",
          }),
        ]);
        expect(r.results).toEqual(lexical.results);
      }
    } finally {
      await service.close();
    }
  });

  for (const role of ["rerank", "generate"] as const) {
    it(`${role} model unavailable: adaptive and quality keep the hybrid list, with a diagnostic`, async () => {
      const service = serviceFor(vectors, { models: { [role]: missing(role) } });
      try {
        const query = "how does the sync engine merge offline edits";
        const hybrid = await recall(service, query, { mode: "hybrid" });
        const quality = await recall(service, query, { mode: "quality" });
        expect(steps(quality)).toEqual(["lexical", "vector"]);
        expect(quality).toMatchObject({ ok: true, requestedMode: "quality", modeUsed: "hybrid" });
        expect(codes(quality)).toEqual(["model_unavailable"]);
        expect(quality.diagnostics[0]?.message).toContain(`${role} model unavailable`);
        expect(quality.results).toEqual(hybrid.results);

        const adaptive = await recall(service, query, { mode: "adaptive" });
        expect(steps(adaptive)).toEqual(["lexical", "vector", "escalate"]);
        expect(adaptive.modeUsed).toBe("hybrid");
        expect(codes(adaptive)).toEqual(["model_unavailable"]);
        expect(adaptive.results).toEqual(hybrid.results);

        // No trigger, no need for the missing model: no diagnostic.
        const calm = await recall(service, "sync engine CRDT merge", { mode: "adaptive" });
        expect(calm.modeUsed).toBe("adaptive");
        expect(calm.diagnostics).toEqual([]);
      } finally {
        await service.close();
      }
    });
  }

  describe("the turn budget", () => {
    // A model step that never answers: the budget, not the step, decides when
    // the answer comes, so the outcome does not depend on machine speed. The
    // lexical step and the vector step (in the adaptive case) are the real ones.
    const hang = new Promise<never>(() => {});

    /** Retrieval over the vectors vault through `wrap` of its real (warmed) store. */
    async function retrieveThrough(
      mode: "hybrid" | "adaptive",
      query: string,
      wrap: (real: RetrievalStore) => RetrievalStore,
      budgetMs: number,
    ): Promise<RetrievalOutcome> {
      const service = serviceFor(vectors);
      try {
        // Warm the store and the embed model, so only the step the wrapper slows is slow.
        await recall(service, "sync engine", { mode: "hybrid" });
        const [paths] = service.resolveVaults();
        if (!paths) throw new Error("no vault");
        const handle = service.handles.get(paths);
        const real = await handle.index.store();
        if (!real) throw new Error("no store");
        const store = wrap({
          searchLex: real.searchLex,
          searchVector: real.searchVector,
          searchExpanded: real.searchExpanded,
        });
        return await retrieve([{ ...retrievalVault(handle), store: async () => store }], {
          query,
          policy: AUTOMATIC_POLICY,
          mode,
          capabilities: capabilities(service.handles),
          budgetMs,
        });
      } finally {
        await service.close();
      }
    }

    function gatedRetrieve(
      mode: "hybrid" | "adaptive",
      gate: "searchVector" | "searchExpanded",
      query: string,
    ): Promise<RetrievalOutcome> {
      return retrieveThrough(mode, query, (real) => ({ ...real, [gate]: () => hang }), 2_000);
    }

    it("a vector step past the budget leaves the lexical result in hand, with recall_budget_exceeded", async () => {
      const t0 = performance.now();
      const r = await gatedRetrieve("hybrid", "searchVector", "sync engine CRDT merge");
      measure("budget 2000 ms, vector step hung", performance.now() - t0);
      expect(steps(r)).toEqual(["lexical", "vector"]);
      expect(r.trace[1]?.note).toBe("turn budget exceeded");
      expect(r.modeUsed).toBe("lexical");
      expect(codes(r)).toEqual(["recall_budget_exceeded"]);
      expect(r.hits[0]).toMatchObject({ id: "entities/sync-engine", source: "fts" });
      expect(r.durationMs).toBeGreaterThanOrEqual(1_900);
    });

    it("a lexical step slower than the whole budget still answers: only the model steps are cut", async () => {
      // A cold process on a busy machine: the lexical list comes after the budget ran out.
      const slowLex = (real: RetrievalStore): RetrievalStore => ({
        ...real,
        searchLex: async (query, opts) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return real.searchLex(query, opts);
        },
      });
      const r = await retrieveThrough("hybrid", "sync engine CRDT merge", slowLex, 50);
      expect(steps(r)).toEqual(["lexical", "vector"]);
      expect(r.trace[0]?.note).toBeUndefined();
      expect(r.trace[1]?.note).toBe("turn budget exceeded");
      expect(r.modeUsed).toBe("lexical");
      expect(codes(r)).toEqual(["recall_budget_exceeded"]);
      expect(r.hits[0]).toMatchObject({ id: "entities/sync-engine", source: "fts" });
    });

    it("an escalation past the budget leaves the hybrid result in hand", async () => {
      const r = await gatedRetrieve(
        "adaptive",
        "searchExpanded",
        "how does the sync engine merge offline edits",
      );
      expect(steps(r)).toEqual(["lexical", "vector", "escalate", "expanded"]);
      expect(r.trace[3]?.note).toBe("turn budget exceeded");
      expect(r.modeUsed).toBe("hybrid");
      expect(codes(r)).toEqual(["recall_budget_exceeded"]);
      expect(r.hits[0]).toMatchObject({ id: "entities/sync-engine", source: "hybrid" });
    });
  });

  describe("a store that cannot open", () => {
    let broken: TempVault;

    beforeAll(async () => {
      broken = smallVault();
      await indexed(broken, false);
      const qmd = join(broken.paths.dir, "meta", "qmd");
      const current = readFileSync(join(qmd, "LIVE"), "utf8").trim();
      writeFileSync(join(qmd, current, "index.sqlite"), "not a database ".repeat(512));
    });

    it("automatic recall injects nothing and says nothing", async () => {
      const service = serviceFor(broken);
      try {
        const r = await service.recall({ query: "Cache invalidation", policy: "automatic" });
        expect(r).toMatchObject({ ok: true, results: [], rendered: "", diagnostics: [] });
      } finally {
        await service.close();
      }
    });

    it("explicit recall returns a structured diagnostic with the repair command, which works", async () => {
      const service = serviceFor(broken);
      try {
        const r = await recall(service, "Cache invalidation");
        expect(r).toMatchObject({ ok: false, results: [], rendered: "" });
        expect(r.diagnostics).toEqual([
          expect.objectContaining({
            code: "retrieval_failed",
            severity: "error",
            repair: "llm-wiki reindex --force",
          }),
        ]);
        expect(r.diagnostics[0]?.message).toMatch(/^project vault: /);
        expect(r.diagnostics[0]?.message).not.toMatch(/\n\s+at /);
        // The repair: `llm-wiki reindex --force`.
        expect((await service.reindex({ force: true })).ok).toBe(true);
        const repaired = await recall(service, "Cache invalidation");
        expect(repaired.ok).toBe(true);
        expect(repaired.results[0]?.id).toBe("concepts/cache-invalidation");
      } finally {
        await service.close();
      }
    });
  });

  describe("an index that does not exist yet", () => {
    it("automatic recall injects nothing and says nothing", async () => {
      const service = serviceFor(smallVault());
      try {
        const r = await service.recall({ query: "Cache invalidation", policy: "automatic" });
        expect(r).toMatchObject({ ok: true, results: [], rendered: "", diagnostics: [] });
        expect(steps(r)).toEqual(["skip"]);
      } finally {
        await service.close();
      }
    });

    it("explicit recall returns index_missing with the repair command, which works", async () => {
      const service = serviceFor(smallVault());
      try {
        const r = await recall(service, "Cache invalidation");
        expect(r.results).toEqual([]);
        expect(r.diagnostics).toEqual([
          expect.objectContaining({ code: "index_missing", repair: "llm-wiki reindex" }),
        ]);
        expect((await service.reindex()).ok).toBe(true);
        expect((await recall(service, "Cache invalidation")).results[0]?.id).toBe(
          "concepts/cache-invalidation",
        );
      } finally {
        await service.close();
      }
    });
  });
});

// ---------------------------------------------------------------------------

describe("the query", () => {
  let vault: TempVault;
  let service: WikiService;

  beforeAll(async () => {
    vault = smallVault();
    await indexed(vault, false);
    service = serviceFor(vault);
  });

  afterAll(() => service.close());

  it("over 2,000 characters: a diagnostic, no results, nothing run, never truncated", async () => {
    // Its first 2,000 characters would find the cache page; truncating would show.
    const raw = `Cache invalidation ${"x".repeat(QUERY_MAX_CHARS)}`.slice(0, QUERY_MAX_CHARS + 1);
    expect(raw.length).toBe(2_001);
    for (const policy of ["explicit", "automatic"] as const) {
      const r = await service.recall({ query: raw, policy });
      expect(r).toMatchObject({ ok: true, results: [], rendered: "", modeUsed: "none" });
      expect(codes(r)).toEqual(["recall_query_too_long"]);
      expect(r.diagnostics[0]?.message).toContain("2001");
      expect(r.query).toBe(raw);
      expect(r.trace).toEqual([]);
    }
    // 2,000 characters are searched.
    const max = await recall(service, raw.slice(0, QUERY_MAX_CHARS));
    expect(codes(max)).not.toContain("recall_query_too_long");
    expect(max.trace.length).toBeGreaterThan(0);
  });

  it("empty or blank: no results and no error", async () => {
    for (const query of ["", "   ", "\n\t"]) {
      for (const policy of ["explicit", "automatic"] as const) {
        const r = await service.recall({ query, policy });
        expect(r).toMatchObject({ ok: true, results: [], rendered: "", modeUsed: "none" });
        expect(r.diagnostics).toEqual([
          expect.objectContaining({ code: "recall_query_empty", severity: "info" }),
        ]);
      }
    }
  });

  it("is normalised before searching: width, case and spacing do not change the answer", async () => {
    const plain = await recall(service, "sync engine CRDT merge", { mode: "lexical" });
    const odd = await recall(service, "  ｓｙｎｃ   engine\tCRDT\n merge ", { mode: "lexical" });
    expect(odd.query).toBe("sync engine CRDT merge");
    expect(odd.results).toEqual(plain.results);
  });
});

// ---------------------------------------------------------------------------

describe("project and personal vaults", () => {
  let project: TempVault;
  let home: string;

  const PROJECT_PAGES = {
    "concepts/cache-invalidation": page(
      { type: "concept", title: "Cache invalidation" },
      "Project: evict cached lists when a version vector changes.",
    ),
    "concepts/cache-warming": page(
      { type: "concept", title: "Cache warming" },
      "Warm the cache after deploys so invalidation storms do not hit the database.",
    ),
    "entities/billing": page({ type: "entity", title: "Billing" }, "Invoices and payments."),
  };
  const PERSONAL_PAGES = {
    "concepts/cache-invalidation": page(
      { type: "concept", title: "Cache invalidation" },
      "My notes: invalidation is one of the two hard problems.",
    ),
    "concepts/ttl-caches": page(
      { type: "concept", title: "TTL caches" },
      "A TTL cache trades invalidation for staleness.",
    ),
    "entities/garden": page({ type: "entity", title: "Garden" }, "Tomatoes and basil."),
  };

  beforeAll(async () => {
    project = makeTempVault({ pages: PROJECT_PAGES, config: { name: "project" } });
    home = makeTempDir("llm-wiki-personal-");
    const personal = makeTempVault({
      root: home,
      kind: "personal",
      pages: PERSONAL_PAGES,
      config: { name: "personal" },
    });
    await indexed(project, false);
    await indexed(personal, false);
  });

  function service(settings: Partial<WikiSettings> = {}, cwd = project.root): WikiService {
    return createWikiService({
      cwd,
      env: isolatedEnv(home),
      settings: { ...SETTINGS, ...settings },
    });
  }

  it("explicit recall interleaves both vaults by reciprocal rank, the project first on ties", async () => {
    const s = service();
    try {
      const r = await recall(s, "cache invalidation", { mode: "lexical" });
      expect(r.results.map((h) => `${h.vault}:${h.id}`)).toEqual([
        "project:concepts/cache-invalidation",
        "personal:concepts/cache-invalidation",
        "project:concepts/cache-warming",
        "personal:concepts/ttl-caches",
      ]);
      expect(r.results[0]?.file).toBe(project.pageFile("concepts/cache-invalidation"));
      expect(r.results[1]?.file).toBe(
        join(home, ".llm-wiki", "wiki", "concepts", "cache-invalidation.md"),
      );
      expect(r.rendered).toContain("concept, personal vault;");
      // The default mode reaches the same answer (no vectors: lexical).
      const adaptive = await recall(s, "cache invalidation");
      expect(ids(adaptive)).toEqual(ids(r));
    } finally {
      await s.close();
    }
  });

  it("automatic recall keeps to the project inside one, and reads the personal vault outside any", async () => {
    const s = service();
    try {
      const r = await s.recall({ query: "cache invalidation", policy: "automatic" });
      expect(r.results.length).toBeGreaterThan(0);
      expect(r.results.every((h) => h.vault === "project")).toBe(true);
      expect(r.rendered).not.toContain("personal vault");
      // Outside any project the personal vault is the one there is, as in the older system.
      const elsewhere = service({}, makeTempDir("llm-wiki-no-project-"));
      try {
        const lone = await elsewhere.recall({ query: "cache invalidation", policy: "automatic" });
        expect(lone.results.length).toBeGreaterThan(0);
        expect(lone.results.every((h) => h.vault === "personal")).toBe(true);
        const asked = await recall(elsewhere, "cache invalidation");
        expect(asked.results.length).toBeGreaterThan(0);
        expect(asked.results.every((h) => h.vault === "personal")).toBe(true);
      } finally {
        await elsewhere.close();
      }
    } finally {
      await s.close();
    }
  });

  it("the includePersonal: false setting keeps explicit recall to the project", async () => {
    const s = service({ includePersonal: false });
    try {
      const r = await recall(s, "cache invalidation", { mode: "lexical" });
      expect(ids(r)).toEqual(["concepts/cache-invalidation", "concepts/cache-warming"]);
      expect(r.results.every((h) => h.vault === "project")).toBe(true);
    } finally {
      await s.close();
    }
  });
});

// ---------------------------------------------------------------------------

describe("automatic recall stays silent", () => {
  /**
   * The fixture vault indexed with vectors, built once for the specs below
   * that only recall from it (recall writes nothing a later recall reads:
   * these services record no feedback): embedding it is most of their time.
   */
  let fixtureWithVectors: Promise<WikiService> | undefined;
  const vectorFixture = (): Promise<WikiService> => {
    fixtureWithVectors ??= (async () => {
      const root = makeTempDir("llm-wiki-fixture-");
      cpSync(FIXTURE.vaultRoot, root, {
        recursive: true,
        filter: (src) => !src.split(sep).includes("meta"),
      });
      const s = createWikiService({ cwd: root, env: isolatedEnv(), settings: SETTINGS });
      const built = await s.reindex({ scope: "all", components: ["lexical", "vectors"] });
      expect(built.ok, JSON.stringify(built.diagnostics)).toBe(true);
      return s;
    })();
    return fixtureWithVectors;
  };
  afterAll(async () => {
    await (await fixtureWithVectors?.catch(() => undefined))?.close();
  });

  it("below the 0.50 floor, and never returns more than 3 pages", async () => {
    const vault = smallVault();
    await indexed(vault, false);
    const s = serviceFor(vault);
    try {
      const weak = "backups retention policy for invoices";
      const explicit = await recall(s, weak);
      expect(explicit.results.map((h) => h.id)).toEqual(["requirements/data-retention"]);
      const [only] = explicit.results;
      expect(only?.score).toBeGreaterThan(0.25);
      expect(only?.score).toBeLessThanOrEqual(0.5);
      const auto = await s.recall({ query: weak, policy: "automatic" });
      expect(auto).toMatchObject({ ok: true, results: [], rendered: "" });

      for (const query of ["Cache invalidation", "version vectors", "cached note lists"]) {
        const all = await recall(s, query);
        const a = await s.recall({ query, policy: "automatic" });
        expect(a.results.length).toBeLessThanOrEqual(3);
        for (const h of a.results) expect(h.score).toBeGreaterThan(0.3);
        for (const h of all.results) expect(h.score).toBeGreaterThan(0.25);
        // What automatic recall injects, explicit recall offers too.
        for (const id of ids(a)) expect(ids(all), query).toContain(id);
      }
      const many = await recall(s, "version vectors");
      expect(
        many.results.filter((h) => h.score > AUTOMATIC_POLICY.minScore).length,
      ).toBeGreaterThan(3);
    } finally {
      await s.close();
    }
  });

  it("without a vault: nothing, and no diagnostic (explicit recall says how to make one)", async () => {
    const s = createWikiService({
      cwd: makeTempDir("llm-wiki-novault-"),
      env: isolatedEnv(),
      settings: SETTINGS,
    });
    try {
      const auto = await s.recall({ query: "Cache invalidation", policy: "automatic" });
      expect(auto).toMatchObject({ ok: true, results: [], rendered: "", diagnostics: [] });
      const explicit = await recall(s, "Cache invalidation");
      expect(explicit.ok).toBe(false);
      expect(explicit.diagnostics).toEqual([
        expect.objectContaining({ code: "vault_not_found", repair: "llm-wiki init" }),
      ]);
    } finally {
      await s.close();
    }
  });

  it("for unrelated prompts on the example vault", async () => {
    const root = join(makeTempDir("llm-wiki-example-"), "acme-notes");
    cpSync(EXAMPLE, root, { recursive: true, filter: (src) => !src.split(sep).includes("meta") });
    const s = createWikiService({ cwd: root, env: isolatedEnv(), settings: SETTINGS });
    try {
      expect((await s.reindex({ scope: "all" })).ok).toBe(true);
      // The vault does answer related prompts.
      const related = await s.recall({
        query: "how do we keep the cache consistent",
        policy: "automatic",
      });
      expect(related.results.length).toBeGreaterThan(0);
      for (const query of [
        "write a haiku about autumn leaves",
        "tell me a joke",
        "what is 2+2",
        "fix the failing parser test in module foo",
      ]) {
        const r = await s.recall({ query, policy: "automatic" });
        expect(r.results, query).toEqual([]);
        expect(r.rendered, query).toBe("");
        expect(r.ok, query).toBe(true);
      }
    } finally {
      await s.close();
    }
  });

  it("for the fixture's negative queries, in the default mode and in hybrid with vectors", async () => {
    const negatives = FIXTURE.queries.filter((q) => q.autoExpectation === "none");
    expect(negatives.length).toBeGreaterThanOrEqual(5);
    const root = makeTempDir("llm-wiki-fixture-");
    cpSync(FIXTURE.vaultRoot, root, {
      recursive: true,
      filter: (src) => !src.split(sep).includes("meta"),
    });
    const s = createWikiService({ cwd: root, env: isolatedEnv(), settings: SETTINGS });
    try {
      expect((await s.reindex({ scope: "all" })).ok).toBe(true);
      for (const q of negatives) {
        const r = await s.recall({ query: q.text, policy: "automatic" });
        expect(r.results, q.id).toEqual([]);
        expect(r.rendered, q.id).toBe("");
      }
    } finally {
      await s.close();
    }
    const withVectors = await vectorFixture();
    for (const q of negatives) {
      const r = await withVectors.recall({ query: q.text, policy: "automatic", mode: "hybrid" });
      expect(steps(r), q.id).toEqual(["lexical", "vector"]);
      expect(r.results, q.id).toEqual([]);
    }
  });

  it("when the reranker ran: it orders pages but admits none without lexical evidence", async () => {
    // Ordinary coding prompts, a fresh sample each run, plus the fixture's
    // negatives. Not the turns of conversation ("go ahead"): no step runs
    // for those at all (test/conversation-turn.test.ts).
    const prompts = loadOrdinaryPrompts(ORDINARY_PROMPTS)
      .map((p) => p.text)
      .filter((text) => !isConversationTurn(text));
    const sample = [...prompts].sort(() => Math.random() - 0.5).slice(0, 12);
    const negatives = FIXTURE.queries
      .filter((q) => q.autoExpectation === "none")
      .map((q) => q.text);
    const s = await vectorFixture();
    for (const query of [...negatives, ...sample]) {
      const r = await s.recall({ query, policy: "automatic", mode: "quality" });
      expect(steps(r), query).toEqual(["lexical", "vector", "expanded"]);
      expect(r.results, query).toEqual([]);
      expect(r.rendered, query).toBe("");
    }
    // A prompt about the vault still gets its page through the reranked list.
    const asked = await s.recall({
      query: "How does reciprocal rank fusion combine lexical and vector lists?",
      policy: "automatic",
      mode: "quality",
    });
    expect(steps(asked)).toContain("expanded");
    expect(ids(asked)).toContain("concepts/reciprocal-rank-fusion");
  });
});
