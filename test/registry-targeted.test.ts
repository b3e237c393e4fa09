import { rmSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Registry, refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

const PAGES = {
  "concepts/rag": pageText(
    { type: "concept", title: "RAG", aliases: "[retrieval augmented generation]" },
    "Uses [[concepts/bm25]] and [[entities/qmd|QMD]].\n",
  ),
  "concepts/bm25": pageText({ type: "concept", title: "BM25" }, "Ranks for [[rag]].\n"),
  "entities/qmd": pageText({ type: "entity", title: "QMD" }, "Implements [[bm25]].\n"),
  "sources/paper": pageText({ type: "source", title: "A paper" }, "Evidence for [[RAG]].\n"),
};

let tick = 1_700_000_000;
/** Writes a page with a fresh mtime, so "changed" never depends on clock resolution. */
function edit(vault: ReturnType<typeof makeTempVault>, id: string, text: string): string {
  const file = vault.writePage(id, text);
  tick += 10;
  utimesSync(file, tick, tick);
  return file;
}

/** What a registry says, in a form two registries can be compared by. */
function view(reg: Registry) {
  return {
    ids: [...reg.pages.keys()],
    pages: [...reg.pages.entries()],
    hashes: [...reg.hashes.entries()],
    links: [...reg.links.entries()].sort(),
    backlinks: [...reg.backlinks.entries()].sort(),
    linkProblems: reg.linkProblems,
  };
}

/** A registry built from nothing: what every incremental path must agree with. */
function cold(vault: ReturnType<typeof makeTempVault>): Registry {
  rmSync(vault.paths.registryCache, { recursive: true, force: true });
  return refreshRegistry(vault.paths);
}

describe("refreshRegistry with the files a host says changed", () => {
  it("looks only at the named file: a page changed behind the host's back waits for a full refresh", () => {
    const vault = makeTempVault({ pages: PAGES });
    const first = refreshRegistry(vault.paths);
    const named = edit(vault, "concepts/bm25", pageText({ type: "concept", title: "Okapi BM25" }));
    edit(vault, "entities/qmd", pageText({ type: "entity", title: "QMD engine" }));
    const targeted = refreshRegistry(vault.paths, first, { changed: [named] });
    expect(targeted.stats).toMatchObject({ files: 4, parsed: 1, reused: 3 });
    expect(targeted.pages.get("concepts/bm25")?.title).toBe("Okapi BM25");
    expect(targeted.pages.get("entities/qmd")?.title).toBe("QMD");
    const full = refreshRegistry(vault.paths, targeted);
    expect(full.stats.parsed).toBe(1);
    expect(full.pages.get("entities/qmd")?.title).toBe("QMD engine");
  });

  it("takes paths relative to .llm-wiki/, a removed page, a new page, and ignores files outside wiki/", () => {
    const vault = makeTempVault({ pages: PAGES });
    let reg = refreshRegistry(vault.paths);
    rmSync(vault.pageFile("sources/paper"));
    edit(vault, "concepts/new", pageText({ type: "concept", title: "New" }, "See [[QMD]].\n"));
    reg = refreshRegistry(vault.paths, reg, {
      changed: [
        "wiki/sources/paper.md",
        join(vault.paths.wiki, "concepts", "new.md"),
        join(vault.paths.raw, "x.md"),
        "/elsewhere/wiki/a.md",
      ],
    });
    expect(reg.stats).toMatchObject({ files: 4, parsed: 1, removed: 1 });
    expect([...reg.pages.keys()]).toEqual([
      "concepts/bm25",
      "concepts/new",
      "concepts/rag",
      "entities/qmd",
    ]);
    expect(view(reg)).toEqual(view(cold(vault)));
  });

  it("walks every page when it has no current registry in hand, or another process wrote the cache", () => {
    const vault = makeTempVault({ pages: PAGES });
    const mine = refreshRegistry(vault.paths);
    const named = edit(vault, "concepts/bm25", pageText({ type: "concept", title: "B" }));
    edit(vault, "entities/qmd", pageText({ type: "entity", title: "Q" }));
    // Another process refreshes (and rewrites the cache) first.
    refreshRegistry(vault.paths);
    edit(vault, "sources/paper", pageText({ type: "source", title: "P" }));
    const reg = refreshRegistry(vault.paths, mine, { changed: [named] });
    expect(reg.pages.get("entities/qmd")?.title).toBe("Q");
    expect(reg.pages.get("sources/paper")?.title).toBe("P");
    expect(refreshRegistry(vault.paths, undefined, { changed: [named] }).stats.files).toBe(4);
  });

  it("walks every page when a named path is a symbolic link or a folder", () => {
    const vault = makeTempVault({ pages: PAGES });
    const first = refreshRegistry(vault.paths);
    edit(vault, "entities/qmd", pageText({ type: "entity", title: "Q" }));
    symlinkSync(vault.pageFile("concepts/rag"), join(vault.paths.wiki, "concepts", "alias.md"));
    const reg = refreshRegistry(vault.paths, first, {
      changed: [join(vault.paths.wiki, "concepts", "alias.md")],
    });
    expect(reg.pages.get("entities/qmd")?.title).toBe("Q");
    expect(reg.pages.has("concepts/alias")).toBe(true);
  });
});

describe("a patched registry is the registry a cold build gives", () => {
  it("re-resolves the links a page added or removed can change: by id, by basename, and ambiguous", () => {
    const vault = makeTempVault({
      pages: {
        ...PAGES,
        "notes/links": pageText(
          { type: "concept", title: "Links" },
          "To [[p7]], [[concepts/p8]] and [[p9]].\n",
        ),
      },
    });
    let reg = refreshRegistry(vault.paths);
    const page = (title: string) => pageText({ type: "concept", title }, "Body.\n");
    const steps: Array<[string, string | null]> = [
      ["notes/p7", page("P7")], // a missing basename link now resolves
      ["concepts/p8", page("P8")], // a missing id link now resolves
      ["sources/p7", page("P7 again")], // the basename link turns ambiguous
      ["notes/p7", null], // and resolves to the other page again
      ["concepts/p8", null], // the id link is missing again
      ["entities/p9", page("P9")],
      ["entities/qmd", null], // links to a removed page go missing
    ];
    for (const [id, text] of steps) {
      const file = vault.pageFile(id);
      if (text === null) rmSync(file);
      else edit(vault, id, text);
      reg = refreshRegistry(vault.paths, reg, { changed: [file] });
      // Built from nothing, writing nothing: the graph a cold build gives.
      const fresh = refreshRegistry(vault.paths, undefined, { readOnly: true });
      expect(view(reg), `after ${id}`).toEqual(view(fresh));
      expect(reg.snapshot.relationGraph.toSaved()).toEqual(fresh.snapshot.relationGraph.toSaved());
    }
    expect(reg.links.get("notes/links")).toEqual(["entities/p9", "sources/p7"]);
  });

  it("agrees after link edits, new missing and ambiguous links, and a page turning malformed and back", () => {
    const vault = makeTempVault({ pages: PAGES });
    let reg = refreshRegistry(vault.paths);
    const steps: Array<[string, string]> = [
      ["concepts/rag", pageText({ type: "concept", title: "RAG" }, "Now only [[QMD]].\n")],
      [
        "entities/qmd",
        pageText({ type: "entity", title: "QMD" }, "See [[nowhere]] and [[rag]].\n"),
      ],
      [
        "sources/paper",
        pageText({ type: "source", title: "A paper" }, "Cites [[BM25]] twice [[bm25]].\n"),
      ],
      ["concepts/bm25", "---\ntype: [\n---\nbroken\n"],
      [
        "concepts/bm25",
        pageText({ type: "concept", title: "BM25" }, "Back, to [[entities/qmd]].\n"),
      ],
    ];
    for (const [id, text] of steps) {
      const file = edit(vault, id, text);
      reg = refreshRegistry(vault.paths, reg, { changed: [file] });
      const fresh = cold(vault);
      expect(view(reg)).toEqual(view(fresh));
      expect(reg.diagnostics).toEqual(fresh.diagnostics);
      // The next step patches the registry in hand, not the cold one.
      reg = refreshRegistry(vault.paths, reg);
    }
  });

  it("keeps the same names object while no title or alias changes, and a new one when they do", () => {
    const vault = makeTempVault({ pages: PAGES });
    const first = refreshRegistry(vault.paths);
    const body = edit(
      vault,
      "concepts/rag",
      pageText(
        { type: "concept", title: "RAG", aliases: "[retrieval augmented generation]" },
        "Another body.\n",
      ),
    );
    // The refresh takes `first` over (its maps are patched in place): what it said is read first.
    const before = first.pages.get("concepts/rag");
    const firstNames = first.names;
    const second = refreshRegistry(vault.paths, first, { changed: [body] });
    expect(second.pages.get("concepts/rag")).not.toBe(before);
    expect(second.pages.get("concepts/rag")?.id).toBe("concepts/rag");
    expect(second.names).toBe(firstNames);
    const renamed = edit(vault, "concepts/rag", pageText({ type: "concept", title: "RAG!" }));
    const third = refreshRegistry(vault.paths, second, { changed: [renamed] });
    expect(third.names).not.toBe(second.names);
  });
});
