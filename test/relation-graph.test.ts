/**
 * The relation graph (vault/relation-graph.ts), derived with the registry
 * from real vaults on disk: which declared relations count, the edges of
 * user resolutions, both directions, the same answer patched page by page
 * as built whole, and the same answer from the registry as last saved.
 */
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import { type Registry, refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { fileStamp } from "../extensions/llm-wiki/lib/vault/registry-cache.ts";
import { openSavedRegistry } from "../extensions/llm-wiki/lib/vault/registry-saved.ts";
import { DerivedRelationGraph } from "../extensions/llm-wiki/lib/vault/relation-graph.ts";
import { RELATION_TYPES, type RelationGraph } from "../extensions/llm-wiki/lib/vault/relations.ts";
import { createVaultHandles } from "../extensions/llm-wiki/lib/vault-handles.ts";
import { mulberry32 } from "../scripts/test-models/mulberry32.ts";
import { randomWord } from "./helpers/random-text.ts";
import { resolutionRecord } from "./helpers/resolution-page.ts";
import { makeTempVault, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

afterEach(() => {
  removeTempDirs();
  vi.restoreAllMocks();
});

interface Rel {
  target: string;
  type: string;
  scope?: string;
}

/** A `resolution:` mapping as written: any fields, honoured only when they match their id. */
type ResolutionSpec = Record<string, string | null | undefined>;

/** A page's text: type, title, relations and resolution as YAML, then a body linking `links`. */
function page(
  type: string,
  title: string,
  options: { relations?: Rel[]; links?: string[]; resolution?: ResolutionSpec; body?: string } = {},
): string {
  const lines = ["---", `type: ${type}`, `title: ${JSON.stringify(title)}`];
  if (options.relations) {
    lines.push("relations:");
    for (const r of options.relations) {
      lines.push(`  - target: ${JSON.stringify(r.target)}`, `    type: ${JSON.stringify(r.type)}`);
      if (r.scope !== undefined) lines.push(`    scope: ${JSON.stringify(r.scope)}`);
    }
  }
  if (options.resolution) {
    lines.push("resolution:");
    for (const [key, value] of Object.entries(options.resolution)) {
      if (value !== undefined) lines.push(`  ${key}: ${JSON.stringify(value)}`);
    }
  }
  lines.push("---");
  const links = (options.links ?? []).map((id) => `See [[${id}]].`).join("\n");
  return `${lines.join("\n")}\n${options.body ?? `# ${title}\n`}\n${links}\n`;
}

/** Every answer a graph gives about `ids`: out and in edges per id, active resolution per pair. */
function answers(graph: RelationGraph, ids: readonly string[]) {
  const edges = ids.map((id) => ({ id, out: graph.outgoing(id), in: graph.incoming(id) }));
  const resolutions: Array<[string, string, unknown]> = [];
  for (const a of ids) {
    for (const b of ids) {
      const r = graph.activeResolution(a, b);
      if (r) resolutions.push([a, b, r]);
    }
  }
  return { edges, resolutions };
}

const ids = (reg: Registry) => [...reg.pages.keys()];

describe("declared relations", () => {
  it("count only when the type is known, the target exists, is not the page and is linked in the body", () => {
    const a = `concepts/${randomWord()}`;
    const b = `concepts/${randomWord()}`;
    const c = `concepts/${randomWord()}`;
    const src = `sources/${randomWord()}`;
    const unknown = `${randomWord()}_${randomWord()}`;
    const vault = makeTempVault({
      pages: {
        [a]: page("concept", "A", {
          relations: [
            { target: b, type: "qualifies" },
            { target: c, type: "supports" }, // c is not linked in the body
            { target: b, type: unknown },
            { target: a, type: "related_to" },
            { target: "concepts/nowhere", type: "supersedes" },
            { target: b, type: "qualifies" }, // a repeat
            { target: `[[${src}|the source]]`, type: "derived_from" },
            { target: b, type: "applies_under", scope: "Mobile  Clients" },
            { target: b, type: "applies_under", scope: " mobile clients" }, // same scope, normalised
          ],
          links: [b, src, a, "concepts/nowhere"],
        }),
        [b]: page("concept", "B", { links: [c] }),
        [c]: page("concept", "C"),
        [src]: page("source", "Paper", {
          relations: [{ target: b, type: "supports" }],
          links: [b],
        }),
      },
    });
    const reg = refreshRegistry(vault.paths);
    expect(reg.relations.outgoing(a)).toEqual([
      { from: a, to: b, type: "applies_under", scope: "Mobile  Clients" },
      { from: a, to: b, type: "qualifies" },
      { from: a, to: src, type: "derived_from" },
    ]);
    // Incoming lists are ordered by the declaring page.
    expect(reg.relations.incoming(b)).toEqual(
      [
        { from: a, to: b, type: "applies_under", scope: "Mobile  Clients" },
        { from: a, to: b, type: "qualifies" },
        { from: src, to: b, type: "supports" },
      ].sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : 0)),
    );
    expect(reg.relations.incoming(src)).toEqual([{ from: a, to: src, type: "derived_from" }]);
    // Not linked, unknown, self, missing: no edge anywhere.
    expect(reg.relations.incoming(c)).toEqual([]);
    expect(reg.relations.incoming(a)).toEqual([]);
    expect(reg.relations.outgoing(b)).toEqual([]);
    expect(reg.relations.outgoing("concepts/nowhere")).toEqual([]);
    // The unknown type is kept on the page (writers preserve it) but makes no edge.
    expect(reg.pages.get(a)?.relations?.map((r) => r.type)).toContain(unknown);
    expect(
      [...reg.pages.keys()].flatMap((id) => reg.relations.outgoing(id)).map((e) => e.type),
    ).not.toContain(unknown);
  });

  it("a relation starts counting when the body links its target, and stops when the link goes", () => {
    const a = `concepts/${randomWord()}`;
    const b = `concepts/${randomWord()}`;
    const vault = makeTempVault({
      pages: {
        [a]: page("concept", "A", { relations: [{ target: b, type: "supersedes" }] }),
        [b]: page("concept", "B"),
      },
    });
    const first = refreshRegistry(vault.paths);
    expect(first.relations.outgoing(a)).toEqual([]);
    vault.writePage(
      a,
      page("concept", "A", { relations: [{ target: b, type: "supersedes" }], links: [b] }),
    );
    const linked = refreshRegistry(vault.paths, first, { changed: [vault.pageFile(a)] });
    expect(linked.relations.outgoing(a)).toEqual([{ from: a, to: b, type: "supersedes" }]);
    expect(linked.relations.incoming(b)).toEqual([{ from: a, to: b, type: "supersedes" }]);
    // The earlier registry is left as it was.
    expect(first.relations.outgoing(a)).toEqual([]);
    vault.writePage(
      a,
      page("concept", "A", { relations: [{ target: b, type: "supersedes" }], body: "No link.\n" }),
    );
    const unlinked = refreshRegistry(vault.paths, linked, { changed: [vault.pageFile(a)] });
    expect(unlinked.relations.outgoing(a)).toEqual([]);
    expect(unlinked.relations.incoming(b)).toEqual([]);
  });
});

describe("user resolutions", () => {
  it("add an edge selected → other, follow replaces chains, and keep the declared contradiction for audit", () => {
    const a = `concepts/${randomWord()}`;
    const b = `concepts/${randomWord()}`;
    const first = resolutionRecord({
      selected: a,
      other: b,
      relation: "supersedes",
      decidedAt: "2026-01-01",
    });
    const r1 = first.page;
    const vault = makeTempVault({
      pages: {
        [a]: page("concept", "A", { relations: [{ target: b, type: "contradicts" }], links: [b] }),
        [b]: page("concept", "B"),
        [r1]: page("analysis", "First choice", { resolution: first.fields }),
      },
    });
    const one = refreshRegistry(vault.paths);
    expect(one.relations.outgoing(a)).toEqual([
      { from: a, to: b, type: "contradicts" },
      { from: a, to: b, type: "supersedes", resolution: r1 },
    ]);
    expect(one.relations.activeResolution(b, a)).toMatchObject({
      page: r1,
      resolution: { id: first.id, selected: a, other: b, relation: "supersedes" },
    });

    // A later choice replaces the first: B holds under a scope; the first's edge goes.
    const second = resolutionRecord({
      selected: b,
      other: a,
      relation: "applies_under",
      scope: "offline mode",
      replaces: first.id,
      decidedAt: "2025-01-01", // older date: replacement, not the date, decides
    });
    const r2 = second.page;
    // The selected page as a wiki link reads as its id, so the record still matches.
    vault.writePage(
      r2,
      page("analysis", "Second choice", {
        resolution: { ...second.fields, selected: `[[${b}]]` },
      }),
    );
    const two = refreshRegistry(vault.paths, one);
    expect(two.relations.activeResolution(a, b)?.page).toBe(r2);
    expect(two.relations.outgoing(a)).toEqual([{ from: a, to: b, type: "contradicts" }]);
    expect(two.relations.outgoing(b)).toEqual([
      { from: b, to: a, type: "applies_under", scope: "offline mode", resolution: r2 },
    ]);
    expect(two.relations.incoming(a)).toEqual([
      { from: b, to: a, type: "applies_under", scope: "offline mode", resolution: r2 },
    ]);
    expect(two.relations.incoming(b)).toEqual([{ from: a, to: b, type: "contradicts" }]);

    // Edited in place (same set of pages: patched), the record no longer matches
    // its id: it decides nothing, and the choice it replaced is in force again.
    vault.writePage(
      r2,
      page("analysis", "Second choice", {
        resolution: { ...second.fields, relation: "qualifies", scope: null },
      }),
    );
    bumpMtime(vault, r2);
    const three = refreshRegistry(vault.paths, two);
    expect(three.relations.outgoing(b)).toEqual([]);
    expect(three.relations.activeResolution(a, b)?.page).toBe(r1);
    expect(three.relations.outgoing(a)).toEqual([
      { from: a, to: b, type: "contradicts" },
      { from: a, to: b, type: "supersedes", resolution: r1 },
    ]);
  });

  it("honour only a record whose id is the hash of its own decision, in this vault, at its own path", () => {
    const a = `concepts/${randomWord()}`;
    const b = `concepts/${randomWord()}`;
    const vaultId = `vault-${randomWord()}`;
    const genuine = resolutionRecord({ vaultId, selected: a, other: b, relation: "supersedes" });
    const forged = `analyses/conflict-resolution-${"0".repeat(15)}1`;
    const elsewhere = resolutionRecord({
      vaultId: `other-${randomWord()}`,
      selected: b,
      other: a,
      relation: "supersedes",
    });
    const moved = `analyses/${randomWord()}`;
    const base = {
      [a]: page("concept", "A", { relations: [{ target: b, type: "contradicts" }], links: [b] }),
      [b]: page("concept", "B"),
    };
    const honoured = (pages: Record<string, string>) => {
      const vault = makeTempVault({
        config: { name: "v", vault_id: vaultId },
        pages: { ...base, ...pages },
      });
      return refreshRegistry(vault.paths).relations.activeResolution(a, b)?.page;
    };
    expect(
      honoured({ [genuine.page]: page("analysis", "R", { resolution: genuine.fields }) }),
    ).toBe(genuine.page);
    // A made-up id, as a hand-written page would carry.
    const madeUp = {
      ...genuine.fields,
      id: forged.slice("analyses/".length),
      selected: b,
      other: a,
    };
    expect(honoured({ [forged]: page("analysis", "R", { resolution: madeUp }) })).toBeUndefined();
    // The right hash for another vault (copied in from elsewhere).
    expect(
      honoured({ [elsewhere.page]: page("analysis", "R", { resolution: elsewhere.fields }) }),
    ).toBeUndefined();
    // A genuine record moved to another path.
    expect(
      honoured({ [moved]: page("analysis", "R", { resolution: genuine.fields }) }),
    ).toBeUndefined();
    // Any one field changed after recording.
    for (const [key, value] of [
      ["selected", b],
      ["other", a],
      ["relation", "qualifies"],
      ["replaces", `conflict-resolution-${"a".repeat(16)}`],
    ] as const) {
      const edited = { ...genuine.fields, [key]: value };
      expect(
        honoured({ [genuine.page]: page("analysis", "R", { resolution: edited }) }),
        key,
      ).toBeUndefined();
    }
  });
});

let clock = Date.now() / 1000;
/** A distinct mtime for each write, so a same-size rewrite is never taken for unchanged. */
function bumpMtime(vault: TempVault, id: string): void {
  clock += 7;
  utimesSync(vault.pageFile(id), clock, clock);
}

describe("incremental derivation", () => {
  it("patched page by page equals a cold build, after a random sequence of edits", () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const random = mulberry32(seed);
    const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
    const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
    const types = [...RELATION_TYPES, `${randomWord()}_kind`];
    const base = Array.from(
      { length: 12 },
      (_, i) => `${pick(["concepts", "sources"])}/${randomWord()}-${i}`,
    );
    // Three recorded decisions, each over a random pair, the later ones
    // sometimes replacing an earlier one. A page holds its decision (with a
    // random date, which the id does not cover) or, now and then, the same
    // id over a tampered pair, which is then not honoured.
    const records: Array<ReturnType<typeof resolutionRecord>> = [];
    for (let i = 0; i < 3; i += 1) {
      const relation = pick(["supersedes", "qualifies", "applies_under"] as const);
      const earlier = records.length > 0 && random() < 0.5 ? pick(records) : undefined;
      records.push(
        resolutionRecord({
          selected: pick(base),
          other: pick(base),
          relation,
          ...(relation === "applies_under" ? { scope: "a scope" } : {}),
          ...(earlier ? { replaces: earlier.id } : {}),
        }),
      );
    }
    const decisions = records.map((r) => r.page);
    let pool = [...base];

    const randomContent = (id: string): string => {
      const record = records.find((r) => r.page === id);
      if (record) {
        const decided_at = `2026-0${int(1, 9)}-01`;
        const fields =
          random() < 0.75
            ? { ...record.fields, decided_at }
            : { ...record.fields, decided_at, selected: pick(pool), other: pick(pool) };
        return page("analysis", id, { resolution: fields });
      }
      const relations: Rel[] = Array.from({ length: int(0, 5) }, () => {
        const type = pick(types);
        const rel: Rel = { target: pick([...pool, "concepts/absent"]), type };
        if (type === "applies_under") rel.scope = pick(["web", "Web ", "cli"]);
        return rel;
      });
      const links = pool.filter(() => random() < 0.4);
      return page(id.startsWith("sources/") ? "source" : "concept", id, { relations, links });
    };

    const vault = makeTempVault({
      pages: Object.fromEntries([...pool, ...decisions].map((id) => [id, randomContent(id)])),
    });
    pool = [...pool, ...decisions];
    let live = refreshRegistry(vault.paths);
    const build = vi.spyOn(DerivedRelationGraph, "build");
    let builds = 0;
    const seen = { declared: 0, resolved: 0, saved: 0 };
    for (let step = 0; step < 40; step += 1) {
      const grow = random() < 0.15;
      const changed: string[] = [];
      if (grow) {
        // A page added: the set of pages changes, so the graph is built anew.
        const id = `concepts/${randomWord()}-new${step}`;
        pool.push(id);
        vault.writePage(id, randomContent(id));
        changed.push(id);
        builds += 1;
      } else {
        for (let n = int(1, 3); n > 0; n -= 1) {
          const id = pick(pool);
          vault.writePage(id, randomContent(id));
          bumpMtime(vault, id);
          changed.push(id);
        }
      }
      live =
        random() < 0.5
          ? refreshRegistry(vault.paths, live, { changed: changed.map((id) => vault.pageFile(id)) })
          : refreshRegistry(vault.paths, live);
      // After a walk of every page the saved registry opens: it reads the graph live saved.
      const saved = openSavedRegistry(vault.paths);
      // Asked now, before the cold refresh below saves the graph again.
      const savedAnswers = saved && answers(saved.relations, [...ids(live), "concepts/absent"]);
      if (saved) seen.saved += 1;
      const cold = refreshRegistry(vault.paths);
      builds += 1;
      const every = [...ids(cold), "concepts/absent"];
      for (const edge of every.flatMap((id) => cold.relations.outgoing(id))) {
        if (edge.resolution) seen.resolved += 1;
        else seen.declared += 1;
      }
      expect(answers(live.relations, every), `seed ${seed}, step ${step}`).toEqual(
        answers(cold.relations, every),
      );
      if (savedAnswers) {
        expect(savedAnswers, `saved: seed ${seed}, step ${step}`).toEqual(
          answers(cold.relations, every),
        );
      }
    }
    // The sequence exercised declared and resolved edges, not an empty graph.
    expect(seen.declared, `seed ${seed}`).toBeGreaterThan(0);
    expect(seen.resolved, `seed ${seed}`).toBeGreaterThan(0);
    expect(seen.saved, `seed ${seed}`).toBeGreaterThan(0);
    // Only added pages and the cold builds built the graph whole: every edit in place was
    // patched, and the saved registry read the graph saved instead of deriving it.
    expect(build.mock.calls.length, `seed ${seed}`).toBe(builds);
  });
});

describe("the registry as last saved", () => {
  /** A vault with declared edges (one linked by basename only) and a resolution. */
  function relationalVault() {
    const a = `concepts/${randomWord()}`;
    const b = `concepts/${randomWord()}`;
    const src = `sources/${randomWord()}`;
    const record = resolutionRecord({ selected: b, other: a, relation: "supersedes" });
    const r = record.page;
    const vault = makeTempVault({
      pages: {
        [a]: page("concept", "A", {
          relations: [
            { target: b, type: "contradicts" },
            { target: src, type: "derived_from" },
            { target: b, type: "applies_under", scope: "batch jobs" },
          ],
          // The link to the source by its basename only: resolved as the registry resolves it.
          links: [b, src.split("/")[1] as string],
        }),
        [b]: page("concept", "B"),
        [src]: page("source", "Paper", {
          relations: [{ target: a, type: "supports" }],
          links: [a],
        }),
        [r]: page("analysis", "Choice", { resolution: record.fields }),
      },
    });
    return { vault, a, b, r };
  }

  function savedOf(vault: TempVault) {
    const saved = openSavedRegistry(vault.paths);
    if (!saved) throw new Error("the saved registry did not open");
    return saved;
  }

  const relationsFile = (vault: TempVault) => join(vault.paths.registryCache, "relations.json");

  it("answers relation questions as the live registry does, from the saved graph, without deriving it", () => {
    const { vault, a, b, r } = relationalVault();
    const live = refreshRegistry(vault.paths);
    const saved = savedOf(vault);
    const build = vi.spyOn(DerivedRelationGraph, "build");
    const every = [...ids(live), "concepts/absent"];
    expect(answers(saved.relations, every)).toEqual(answers(live.relations, every));
    expect(saved.relations.outgoing(a)).toHaveLength(3);
    expect(saved.relations.activeResolution(a, b)?.page).toBe(r);
    // Read from relations.json: no shard was iterated to derive it.
    expect(build).not.toHaveBeenCalled();
  });

  it("derives the graph from the records when relations.json is not as the summary stamps it", () => {
    const { vault } = relationalVault();
    const live = refreshRegistry(vault.paths);
    writeFileSync(
      relationsFile(vault),
      `{"version":1,"edges":[],"resolutions":[]} ${randomWord()}`,
    );
    const saved = savedOf(vault);
    const build = vi.spyOn(DerivedRelationGraph, "build");
    const every = [...ids(live), "concepts/absent"];
    expect(answers(saved.relations, every)).toEqual(answers(live.relations, every));
    expect(build).toHaveBeenCalledTimes(1);
    rmSync(relationsFile(vault));
    const again = savedOf(vault);
    expect(answers(again.relations, every)).toEqual(answers(live.relations, every));
    expect(build).toHaveBeenCalledTimes(2);
  });

  it("derives the graph from the records once a line of relations.json asked for is malformed", () => {
    const { vault, a, b } = relationalVault();
    const live = refreshRegistry(vault.paths);
    const file = relationsFile(vault);
    // A's edges to B now name a type nobody knows, and the summary stamps the file as it is.
    writeFileSync(file, readFileSync(file, "utf8").replaceAll('"contradicts"', '"contradicted"'));
    const summaryFile = join(vault.paths.registryCache, "summary.json");
    const summary = JSON.parse(readFileSync(summaryFile, "utf8")) as { relations: string };
    writeFileSync(summaryFile, JSON.stringify({ ...summary, relations: fileStamp(file) }));
    const saved = savedOf(vault);
    const build = vi.spyOn(DerivedRelationGraph, "build");
    // B's own lines are intact: read from the file.
    expect(saved.relations.outgoing(b)).toEqual(live.relations.outgoing(b));
    expect(build).not.toHaveBeenCalled();
    // A's are not: that question and every later one are answered by the records.
    expect(saved.relations.outgoing(a)).toEqual(live.relations.outgoing(a));
    const every = [...ids(live), "concepts/absent"];
    expect(answers(saved.relations, every)).toEqual(answers(live.relations, every));
    expect(build).toHaveBeenCalledTimes(1);
  });

  it("answers from a relations.json the previous release wrote, without deriving the graph", () => {
    const { vault } = relationalVault();
    const live = refreshRegistry(vault.paths);
    const file = relationsFile(vault);
    const legacy = { version: 2, ...live.snapshot.relationGraph.toSaved() };
    writeFileSync(file, `${JSON.stringify(legacy)}\n`);
    const summaryFile = join(vault.paths.registryCache, "summary.json");
    const summary = JSON.parse(readFileSync(summaryFile, "utf8")) as { relations: string };
    writeFileSync(summaryFile, JSON.stringify({ ...summary, relations: fileStamp(file) }));
    const saved = savedOf(vault);
    const build = vi.spyOn(DerivedRelationGraph, "build");
    const every = [...ids(live), "concepts/absent"];
    expect(answers(saved.relations, every)).toEqual(answers(live.relations, every));
    expect(build).not.toHaveBeenCalled();
  });

  it("rewrites relations.json only when an edge or a resolution moved", () => {
    const { vault, a, b } = relationalVault();
    const first = refreshRegistry(vault.paths);
    const before = statSync(relationsFile(vault)).mtimeMs;
    // B's text changes; no relation does.
    vault.writePage(b, page("concept", "B", { body: `${randomWord()} ${randomWord()}\n` }));
    bumpMtime(vault, b);
    const second = refreshRegistry(vault.paths, first, { changed: [vault.pageFile(b)] });
    expect(second.snapshot.relationGraph).toBe(first.snapshot.relationGraph);
    expect(statSync(relationsFile(vault)).mtimeMs).toBe(before);
    const every = [...ids(second), "concepts/absent"];
    expect(answers(savedOf(vault).relations, every)).toEqual(answers(second.relations, every));
    // B now declares a relation its body links: saved anew, and a fresh view answers it.
    vault.writePage(
      b,
      page("concept", "B", { relations: [{ target: a, type: "qualifies" }], links: [a] }),
    );
    bumpMtime(vault, b);
    const third = refreshRegistry(vault.paths, second, { changed: [vault.pageFile(b)] });
    const edge = { from: b, to: a, type: "qualifies" };
    expect(third.relations.outgoing(b)).toContainEqual(edge);
    const build = vi.spyOn(DerivedRelationGraph, "build");
    expect(savedOf(vault).relations.outgoing(b)).toContainEqual(edge);
    expect(answers(savedOf(vault).relations, every)).toEqual(answers(third.relations, every));
    expect(build).not.toHaveBeenCalled();
  });

  it("is what recall's view of a vault handle answers with", async () => {
    const a = `concepts/${randomWord()}`;
    const b = `concepts/${randomWord()}`;
    const vault = makeTempVault({
      pages: {
        [a]: page("concept", "A", { relations: [{ target: b, type: "supports" }], links: [b] }),
        [b]: page("concept", "B"),
      },
    });
    const handles = createVaultHandles(resolveModels({}, process.env, vault.root));
    try {
      const handle = handles.get(vault.paths);
      const edge = { from: a, to: b, type: "supports" };
      expect(handle.recallView().registry.relations.outgoing(a)).toEqual([edge]);
      expect(handle.view().relations.incoming(b)).toEqual([edge]);
      expect(handle.registry().relations.incoming(b)).toEqual([edge]);
    } finally {
      await handles.closeAll();
    }
  });
});
