/**
 * The relation graph (vault/relation-graph.ts), derived with the registry
 * from real vaults on disk: which declared relations count, the edges of
 * user resolutions, both directions, the same answer patched page by page
 * as built whole, and the same answer from the registry as last saved.
 */
import { rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import { type Registry, refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { openSavedRegistry } from "../extensions/llm-wiki/lib/vault/registry-saved.ts";
import { DerivedRelationGraph } from "../extensions/llm-wiki/lib/vault/relation-graph.ts";
import { RELATION_TYPES, type RelationGraph } from "../extensions/llm-wiki/lib/vault/relations.ts";
import { createVaultHandles } from "../extensions/llm-wiki/lib/vault-handles.ts";
import { mulberry32 } from "../scripts/test-models/mulberry32.ts";
import { randomWord } from "./helpers/random-text.ts";
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

interface ResolutionSpec {
  id: string;
  selected: string;
  other: string;
  relation: string;
  scope?: string;
  replaces?: string;
  decided_at?: string;
}

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
    const r1 = `decisions/${randomWord()}-1`;
    const r2 = `decisions/${randomWord()}-2`;
    const vault = makeTempVault({
      pages: {
        [a]: page("concept", "A", { relations: [{ target: b, type: "contradicts" }], links: [b] }),
        [b]: page("concept", "B"),
        [r1]: page("decision", "First choice", {
          resolution: {
            id: "res-1",
            selected: a,
            other: b,
            relation: "supersedes",
            decided_at: "2026-01-01",
          },
        }),
      },
    });
    const one = refreshRegistry(vault.paths);
    expect(one.relations.outgoing(a)).toEqual([
      { from: a, to: b, type: "contradicts" },
      { from: a, to: b, type: "supersedes", resolution: r1 },
    ]);
    expect(one.relations.activeResolution(b, a)).toMatchObject({
      page: r1,
      resolution: { id: "res-1", selected: a, other: b, relation: "supersedes" },
    });

    // A later choice replaces the first: B holds under a scope; the first's edge goes.
    vault.writePage(
      r2,
      page("decision", "Second choice", {
        resolution: {
          id: "res-2",
          selected: `[[${b}]]`,
          other: a,
          relation: "applies_under",
          scope: "offline mode",
          replaces: "res-1",
          decided_at: "2025-01-01", // older date: replacement, not the date, decides
        },
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

    // Edited in place (same set of pages: patched), the resolution page's edge follows.
    vault.writePage(
      r2,
      page("decision", "Second choice", {
        resolution: {
          id: "res-2",
          selected: b,
          other: a,
          relation: "qualifies",
          replaces: "res-1",
        },
      }),
    );
    bumpMtime(vault, r2);
    const three = refreshRegistry(vault.paths, two);
    expect(three.relations.outgoing(b)).toEqual([
      { from: b, to: a, type: "qualifies", resolution: r2 },
    ]);
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
    const decisions = ["decisions/choice-a", "decisions/choice-b", "decisions/choice-c"];
    let pool = [...base];

    const randomContent = (id: string): string => {
      if (decisions.includes(id)) {
        const selected = pick(pool);
        const other = pick(pool);
        return page("decision", id, {
          resolution: {
            id: `res-${id}`,
            selected,
            other,
            relation: pick(["supersedes", "qualifies", "applies_under"]),
            scope: "a scope",
            decided_at: `2026-0${int(1, 9)}-01`,
            ...(random() < 0.5 ? { replaces: `res-${pick(decisions)}` } : {}),
          },
        });
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
    const r = `decisions/${randomWord()}`;
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
        [r]: page("decision", "Choice", {
          resolution: { id: "r1", selected: b, other: a, relation: "supersedes" },
        }),
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
