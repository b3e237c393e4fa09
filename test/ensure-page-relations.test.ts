/**
 * `ensurePage` speaks typed relations and sources (issue 24): a new page
 * carries them in its front matter with a body link per target, so the
 * relation graph counts them; an existing page of the same title gets them
 * added with nothing else of it changed; bad relations are refused with
 * nothing written; links to missing pages and near-duplicate titles are
 * said, the write going ahead. The service runs in-process on real temp
 * vaults; the end-to-end specs run the real CLI (`llm-wiki page`, then
 * `llm-wiki recall --auto`) as child processes.
 */
import { randomInt } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readFrontmatter } from "../extensions/llm-wiki/lib/vault/frontmatter.ts";
import { refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { runCli } from "./helpers/cli.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { corpusSeed, corpusSeedNote, secretCorpus } from "./helpers/secret-corpus.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

/** The `page_updated` events of the log at `path`, without their timestamps and writer (`by`, `agent`). */
function updates(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.includes('"page_updated"'))
    .map((line) => {
      const {
        ts: _ts,
        timestamp: _t,
        by: _by,
        agent: _agent,
        ...rest
      } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    });
}

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

/** A title of random words, capitalised as a person writes one. */
function title(words = 2): string {
  const t = randomWords(words, 4, 9);
  return t.charAt(0).toUpperCase() + t.slice(1);
}

describe("a new page with relations and sources", () => {
  it("writes them to front matter, links each target in the body, and the graph counts them", () => {
    const old = `decisions/${randomWord()}`;
    const evidence = `sources/${randomWord()}`;
    const vault = makeTempVault({
      pages: {
        [old]: pageText({ type: "decision", title: title() }, "The old rule.\n"),
        // A captured source: its id is its alias, so the `sources` given name it.
        [evidence]: pageText(
          { type: "source", title: title(), aliases: "[SRC-2026-11-30-001]" },
          "A measurement.\n",
        ),
      },
    });
    const service = serviceFor(vault.root);
    const body = `The new rule. See [[${evidence}]] for the numbers.\n`;
    const result = service.ensurePage({
      type: "concept",
      title: title(3),
      content: body,
      relations: [
        // A target named by its basename resolves to the page id, as a body link would.
        { type: "supersedes", target: old.split("/")[1] as string },
        { type: "supports", target: `[[${evidence}]]` },
        { type: "supersedes", target: old },
      ],
      sources: ["SRC-2026-11-30-001", "SRC-2026-11-30-001"],
    });
    expect(result).toMatchObject({
      ok: true,
      created: true,
      relations: {
        added: [
          { type: "supersedes", target: old },
          { type: "supports", target: evidence },
        ],
        present: [],
      },
      sources: { added: ["SRC-2026-11-30-001"], present: [] },
      linksAdded: [old],
    });
    expect(result.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
    const text = readFileSync(join(vault.paths.dir, result.path ?? ""), "utf8");
    const { data, content } = readFrontmatter(text);
    expect(data).toMatchObject({
      relations: [
        { target: old, type: "supersedes" },
        { target: evidence, type: "supports" },
      ],
      sources: ["SRC-2026-11-30-001"],
    });
    expect(content).toBe(`${body}\nSupersedes [[${old}]].\n`);
    const registry = refreshRegistry(vault.paths);
    expect(registry.relations.outgoing(result.id ?? "").map((e) => [e.type, e.to])).toEqual([
      ["supersedes", old],
      ["supports", evidence],
    ]);
  });
});

describe("relations added to an existing page", () => {
  /** A hand-written page: comments, flow lists, keys in its own order, CRLF or LF, a body without a final newline. */
  function handWritten(eol: string, target: string) {
    const named = randomWords(2, 4, 9);
    const head = [
      "---",
      "# kept as written",
      `title:   "${named}"`,
      "type: concept",
      "tags: [a,  b]",
      `relations: [{target: ${target}, type: related_to}]`,
      "owner: {team: platform, since: 2024-01-05}",
      "status: stable",
      "---",
    ];
    const words = randomWords(randomInt(3, 30));
    const body = `${words}${eol}${eol}  see [[${target}]] end`;
    // ensurePage finds a page of its title at the title's slug.
    return {
      text: `${head.join(eol)}${eol}${body}`,
      body,
      head,
      id: `concepts/${named.replace(/ /g, "-")}`,
    };
  }

  for (const eol of ["\n", "\r\n"]) {
    it(`changes only relations and sources, keeping every other byte (${JSON.stringify(eol)})`, () => {
      const target = `concepts/${randomWord()}`;
      const other = `concepts/${randomWord()}-b`;
      const page = handWritten(eol, target);
      const vault = makeTempVault({
        pages: {
          [page.id]: page.text,
          [target]: pageText({ type: "concept", title: title() }),
          [other]: pageText({ type: "concept", title: title() }),
        },
      });
      const existingTitle = String(
        (readFrontmatter(page.text).data as Record<string, unknown>).title,
      );
      const service = serviceFor(vault.root);
      const before = readFrontmatter(page.text).data as Record<string, unknown>;
      const result = service.ensurePage({
        type: "concept",
        title: existingTitle.toUpperCase(),
        content: "ignored: the page exists",
        relations: [
          { type: "related_to", target },
          { type: "contradicts", target },
        ],
        sources: ["SRC-2026-01-02-003"],
      });
      expect(result).toMatchObject({
        ok: true,
        created: false,
        updated: true,
        id: page.id,
        relations: {
          added: [{ type: "contradicts", target }],
          present: [{ type: "related_to", target }],
        },
        sources: { added: ["SRC-2026-01-02-003"], present: [] },
        // The body links the target already: not one byte of it changes.
        linksAdded: [],
      });
      const after = vault.readPage(page.id);
      expect(after.endsWith(`---${eol}${page.body}`)).toBe(true);
      // Every line of the block but the relations line is still there, in order.
      const kept = page.head.filter((l) => !l.startsWith("relations:"));
      const lines = after.split(eol);
      expect(lines.filter((l) => kept.includes(l))).toEqual(kept);
      const data = readFrontmatter(after).data as Record<string, unknown>;
      expect({ ...data, relations: undefined, sources: undefined }).toEqual({
        ...before,
        relations: undefined,
      });
      expect(data.relations).toEqual([
        { target, type: "related_to" },
        { target, type: "contradicts" },
      ]);
      expect(data.sources).toEqual(["SRC-2026-01-02-003"]);

      // Asked again, everything is present: the file is not touched.
      const again = service.ensurePage({
        type: "concept",
        title: existingTitle,
        relations: [{ type: "contradicts", target }],
        sources: ["SRC-2026-01-02-003"],
      });
      expect(again).toMatchObject({
        updated: false,
        relations: { added: [], present: [{ type: "contradicts", target }] },
        sources: { added: [], present: ["SRC-2026-01-02-003"] },
      });
      expect(vault.readPage(page.id)).toBe(after);
      // The log records the change the tools made, once: the call that added nothing logged nothing.
      expect(updates(vault.paths.events)).toEqual([
        { kind: "page_updated", id: page.id, relations_added: 1, sources_added: 1 },
      ]);

      // A target the body does not link gets one line appended; the body before it stays as it was.
      const third = service.ensurePage({
        type: "concept",
        title: existingTitle,
        relations: [{ type: "supports", target: other }],
      });
      expect(third).toMatchObject({ updated: true, linksAdded: [other] });
      const last = vault.readPage(page.id);
      expect(last.endsWith(`---${eol}${page.body}${eol}${eol}Supports [[${other}]].${eol}`)).toBe(
        true,
      );
      expect(
        refreshRegistry(vault.paths)
          .relations.outgoing(page.id)
          .map((e) => [e.type, e.to])
          .sort(),
      ).toEqual(
        [
          ["related_to", target],
          ["contradicts", target],
          ["supports", other],
        ].sort(),
      );
    });
  }
});

describe("secrets in what is added", () => {
  it("are redacted before an existing page's front matter is edited", () => {
    const seed = corpusSeed();
    const cases = secretCorpus(seed).filter((c) => !/[\r\n\t]/.test(c.text) && !c.pieces);
    const existingTitle = title();
    const id = `concepts/${existingTitle.toLowerCase().replace(/ /g, "-")}`;
    const vault = makeTempVault({
      pages: { [id]: pageText({ type: "concept", title: existingTitle }, "Body.\n") },
    });
    const result = serviceFor(vault.root).ensurePage({
      type: "concept",
      title: existingTitle,
      sources: cases.map((c) => c.text),
    });
    expect(result, corpusSeedNote(seed)).toMatchObject({ ok: true, updated: true });
    expect(result.redactions, corpusSeedNote(seed)).toBeDefined();
    const text = vault.readPage(id);
    for (const c of cases)
      expect(text.includes(c.secret), `${c.kind}; ${corpusSeedNote(seed)}`).toBe(false);
    expect(text.endsWith("---\nBody.\n")).toBe(true);
    const logged = updates(vault.paths.events);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.redactions, corpusSeedNote(seed)).toEqual(result.redactions);
  });

  it("are redacted in a new page's answer as in its file", () => {
    const seed = corpusSeed();
    // Characters a link target may not hold are left out: those targets are refused (below).
    const cases = secretCorpus(seed).filter(
      (c) => !/[\r\n\t[\]|#]/.test(c.text) && !c.pieces && c.text.length < 280,
    );
    const vault = makeTempVault({ pages: {} });
    const result = serviceFor(vault.root).ensurePage({
      type: "concept",
      title: title(3),
      relations: cases.map((c) => ({ type: "related_to", target: `concepts/x ${c.text}` })),
      sources: cases.map((c) => c.text),
    });
    expect(result, `${JSON.stringify(result.diagnostics)} ${corpusSeedNote(seed)}`).toMatchObject({
      ok: true,
      created: true,
    });
    const answer = JSON.stringify(result);
    const text = vault.readPage(result.id ?? "");
    for (const c of cases) {
      expect(text.includes(c.secret), `${c.kind}; ${corpusSeedNote(seed)}`).toBe(false);
      expect(answer.includes(c.secret), `${c.kind}; ${corpusSeedNote(seed)}`).toBe(false);
    }
  });

  it("are redacted in the refusal of a target that is not a page id", () => {
    const seed = corpusSeed();
    const cases = secretCorpus(seed).filter((c) => !/[\r\n\t]/.test(c.text) && !c.pieces);
    const vault = makeTempVault({ pages: {} });
    const service = serviceFor(vault.root);
    for (const c of cases) {
      // A `#` makes the target no page id, so the call is refused quoting it.
      const result = service.ensurePage({
        type: "concept",
        title: title(3),
        relations: [{ type: "related_to", target: `#x ${c.text}` }],
      });
      expect(result.ok, corpusSeedNote(seed)).toBe(false);
      expect(JSON.stringify(result.diagnostics)).toContain("page_invalid_relation");
      expect(
        JSON.stringify(result.diagnostics).includes(c.secret),
        `${c.kind}; ${corpusSeedNote(seed)}`,
      ).toBe(false);
    }
    expect(
      readdirSync(vault.paths.wiki, { recursive: true }).filter((f) => String(f).endsWith(".md")),
    ).toEqual([]);
  });
});

describe("bad relations", () => {
  /** Relations the read side would drop or keep inert, and targets that would break their link. */
  function badRelations(): Array<Record<string, unknown>> {
    const junk = randomWord();
    return [
      { type: junk, target: "concepts/x" },
      { type: "applies_under", target: "concepts/x" },
      { type: "supersedes", target: "concepts/x", scope: "mobile" },
      { type: "supports", target: "   " },
      { type: "supports", target: `concepts/${junk}]] and [[y` },
      { type: "supports", target: `concepts/${junk}\nsecond line` },
      { type: "supports", target: "concepts/x", scope: "a\nb" },
    ];
  }

  it("are refused with a diagnostic and nothing is written, new page or existing", () => {
    const existing = `concepts/${randomWord()}`;
    const existingTitle = title();
    const vault = makeTempVault({
      pages: { [existing]: pageText({ type: "concept", title: existingTitle }, "Body.\n") },
    });
    const service = serviceFor(vault.root);
    const pageBefore = vault.readPage(existing);
    for (const bad of badRelations()) {
      const good = { type: "related_to", target: existing };
      for (const t of [title(), existingTitle]) {
        const result = service.ensurePage({
          type: "concept",
          title: t,
          relations: [good, bad as { type: string; target: string }],
        });
        expect(result.ok, JSON.stringify(bad)).toBe(false);
        expect(result.diagnostics[0]?.severity).toBe("error");
        expect(["page_invalid_relation", "invalid_input"]).toContain(result.diagnostics[0]?.code);
      }
      expect(readdirSync(join(vault.paths.wiki, "concepts"))).toEqual([
        `${existing.split("/")[1]}.md`,
      ]);
      expect(vault.readPage(existing)).toBe(pageBefore);
    }
  });
});

describe("notices of a write", () => {
  it("warns of each link and relation target that names no page, and writes the page", () => {
    const vault = makeTempVault({
      pages: { "concepts/here": pageText({ type: "concept", title: "Here" }) },
    });
    const service = serviceFor(vault.root);
    const gone = randomWord();
    const alsoGone = `decisions/${randomWord()}`;
    const result = service.ensurePage({
      type: "concept",
      title: title(),
      content: `Links [[here]], [[${gone}]] and [[${gone}]] again.\n`,
      relations: [{ type: "supersedes", target: alsoGone }],
    });
    expect(result.ok).toBe(true);
    expect(result.created).toBe(true);
    const unresolved = result.diagnostics.filter((d) => d.code === "link_unresolved");
    expect(unresolved.map((d) => d.message)).toEqual([
      expect.stringContaining(`Wikilink target "${gone}" does not match any page`),
      expect.stringContaining(`Relation target "${alsoGone}" does not match any page`),
    ]);
    expect(unresolved.every((d) => d.severity === "warning" && d.path === result.path)).toBe(true);
    expect(readFileSync(join(vault.paths.dir, result.path ?? ""), "utf8")).toContain(
      `[[${alsoGone}]]`,
    );
  });

  it("says a new title nearly repeats an existing page's, naming that page", () => {
    // b ends in a consonant that takes a plain plural "s" (not "bus" → "buss", "pie" → "pies").
    const [a, b] = [randomWord(5, 9), `${randomWord(4, 8)}t`];
    const vault = makeTempVault({
      pages: { "concepts/first": pageText({ type: "concept", title: `${a} ${b}s` }) },
    });
    const service = serviceFor(vault.root);
    // Case, punctuation, plural and word order differ; the words are the same.
    const near = service.ensurePage({ type: "synthesis", title: `${b.toUpperCase()}: ${a}` });
    expect(near.created).toBe(true);
    expect(near.diagnostics).toContainEqual(
      expect.objectContaining({
        code: "page_near_duplicate",
        severity: "warning",
        message: expect.stringContaining("concepts/first"),
      }),
    );
    const apart = service.ensurePage({ type: "concept", title: `${a} ${b} ${randomWord()}` });
    expect(apart.created).toBe(true);
    expect(apart.diagnostics.map((d) => d.code)).not.toContain("page_near_duplicate");
  });
});

describe("end to end through llm-wiki page and llm-wiki recall --auto", () => {
  function project(): { dir: string; cli: (args: string[]) => ReturnType<typeof runCli> } {
    const root = makeTempDir("llm-wiki-relations-e2e-");
    const dir = join(root, "project");
    mkdirSync(dir, { recursive: true });
    const env = { HOME: root, WIKI_HOME: join(root, "personal") };
    const cli = (args: string[]) => runCli(args, { cwd: dir, env });
    expect(cli(["init"]).status).toBe(0);
    return { dir, cli };
  }

  it("a contradicts relation comes back as one unresolved conflict with both sides and the call that resolves it", () => {
    const { cli } = project();
    const topic = randomWord(6, 10);
    const [first, second] = [`${topic} limit`, `${topic} limit revised`];
    const a = cli([
      "page",
      "--type",
      "concept",
      "--title",
      first,
      "--content",
      `The ${topic} limit is 15.`,
      "--json",
    ]);
    expect(a.status).toBe(0);
    const idA = JSON.parse(a.stdout).id as string;
    const b = cli([
      "page",
      "--type",
      "concept",
      "--title",
      second,
      "--content",
      `The ${topic} limit is 60.`,
      "--relation",
      `contradicts:${idA}`,
      "--source",
      "SRC-2026-11-30-001",
      "--json",
    ]);
    expect(b.status).toBe(0);
    const idB = JSON.parse(b.stdout).id as string;

    const recall = cli(["recall", "--auto", `what is the ${topic} limit`, "--json"]);
    expect(recall.status).toBe(0);
    const answer = JSON.parse(recall.stdout);
    expect(answer.conflicts).toHaveLength(1);
    expect([answer.conflicts[0].a.id, answer.conflicts[0].b.id].sort()).toEqual([idA, idB].sort());
    const text = cli(["recall", "--auto", `what is the ${topic} limit`]).stdout;
    expect(text).toContain("CONFLICT, unresolved");
    expect(text).toContain(idA);
    expect(text).toContain(idB);
    expect(text).toContain("wiki_resolve_conflict");
  });

  it("a supersedes relation added to an existing page makes recall show the old claim as superseded", () => {
    const { cli } = project();
    const topic = randomWord(6, 10);
    const oldRun = cli([
      "page",
      "--type",
      "concept",
      "--title",
      `${topic} retention`,
      "--content",
      `Keep ${topic} logs 7 days.`,
      "--json",
    ]);
    const idOld = JSON.parse(oldRun.stdout).id as string;
    const newTitle = `${topic} retention policy`;
    const newRun = cli([
      "page",
      "--type",
      "concept",
      "--title",
      newTitle,
      "--content",
      `Keep ${topic} logs 30 days.`,
      "--json",
    ]);
    const idNew = JSON.parse(newRun.stdout).id as string;
    // The relation comes later, onto the page that exists: front matter and a link line only.
    const added = cli([
      "page",
      "--type",
      "concept",
      "--title",
      newTitle,
      "--relation",
      `supersedes:${idOld}`,
      "--json",
    ]);
    expect(added.status).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ created: false, updated: true });

    const recall = cli(["recall", "--auto", `${topic} retention`, "--json"]);
    const answer = JSON.parse(recall.stdout);
    const oldHit = answer.results.find((r: { id: string }) => r.id === idOld);
    expect(oldHit).toMatchObject({ part: "superseded", freshness: "historical", successor: idNew });
    const text = cli(["recall", "--auto", `${topic} retention`]).stdout;
    expect(text).toContain(`HISTORICAL, superseded by ${idNew}`);
  });
});
