import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CliRun, runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
    version: string;
  }
).version;

/** The real CLI in `cwd` with only PATH, HOME and (optionally) WIKI_HOME set. */
function run(cwd: string, args: string[], env: { HOME: string; WIKI_HOME?: string }): CliRun {
  return runCli(args, { cwd, env });
}

function json(out: CliRun): Record<string, unknown> {
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

/** Non-empty stderr lines; a failure must be readable, never a stack trace. */
function stderrLines(out: CliRun): string[] {
  const lines = out.stderr.split("\n").filter((l) => l.trim() !== "");
  for (const line of lines) expect(line).not.toMatch(/^\s+at |Error:|\.ts:\d+/);
  return lines;
}

function setup() {
  const home = makeTempDir("llm-wiki-home-");
  const project = makeTempDir("llm-wiki-project-");
  return { home, project, env: { HOME: home } };
}

describe("llm-wiki init", () => {
  it("creates a vault in the working directory and is idempotent", () => {
    const { project, env } = setup();
    const first = run(project, ["init", "--name", "Acme", "--topic", "billing"], env);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(`created vault at ${join(project, ".llm-wiki")}\n`);
    expect(first.stderr).toBe("");
    const config = JSON.parse(readFileSync(join(project, ".llm-wiki", "config.json"), "utf8"));
    expect(config).toMatchObject({ name: "Acme", topic: "billing", mode: "project" });

    const second = run(project, ["init"], env);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain("vault already exists at");
    expect(readFileSync(join(project, ".llm-wiki", "config.json"), "utf8")).toContain('"Acme"');
  });

  it("creates the vault at --vault given as the .llm-wiki folder itself", () => {
    const { project, env } = setup();
    const target = makeTempDir();
    const out = run(project, ["init", "--json", "--vault", join(target, ".llm-wiki")], env);
    expect(out.status).toBe(0);
    expect(json(out)).toMatchObject({ ok: true, created: true });
    expect(existsSync(join(target, ".llm-wiki", "config.json"))).toBe(true);
    expect(existsSync(join(project, ".llm-wiki"))).toBe(false);
  });

  it("fails with exit 1 and one line when the vault cannot be created", () => {
    const { project, env } = setup();
    const file = join(project, "not-a-folder");
    writeFileSync(file, "x");
    const out = run(project, ["init", "--vault", file], env);
    expect(out.status).toBe(1);
    expect(stderrLines(out)).toHaveLength(1);
    // The structured diagnostic (vault_path_unusable), rendered like every other error.
    expect(out.stderr).toMatch(/^error: cannot create a vault at .*not-a-folder: ENOTDIR/);
  });
});

describe("llm-wiki status", () => {
  it("prints one JSON document with the vault summary after init", () => {
    const { project, env } = setup();
    run(project, ["init", "--name", "Acme"], env);
    const out = run(project, ["status", "--json"], env);
    expect(out.status).toBe(0);
    // The whole of stdout is one JSON document.
    const doc = json(out);
    expect(doc).toMatchObject({
      ok: true,
      vault: {
        kind: "project",
        root: project,
        name: "Acme",
        config: {
          name: "Acme",
          mode: "project",
          vault_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          knowledge_format: "okf-0.2",
        },
        pages: 0,
        byType: {},
        byRole: { canonical: 0, evidence: 0 },
        malformed: 0,
        links: { resolved: 0, missing: 0, ambiguous: 0 },
      },
    });
    const diagnostics = doc.diagnostics as Array<{ severity: string }>;
    expect(Array.isArray(diagnostics)).toBe(true);
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    stderrLines(out);
  });

  it("counts pages and reports a malformed page without failing", () => {
    const { home } = setup();
    const vault = makeTempVault({
      config: { name: "Acme" },
      pages: {
        "concepts/rag": pageText({ type: "concept", title: "RAG" }, "[[entities/qmd]]"),
        "entities/qmd": pageText({ type: "entity", title: "QMD" }),
        "sources/s1": pageText({ type: "source", title: "Paper" }),
        "concepts/broken": "---\ntype: [\n---\n",
      },
    });
    const out = run(vault.root, ["status"], { HOME: home });
    expect(out.status).toBe(0);
    expect(out.stdout).toContain("pages   3 (2 canonical, 1 evidence), 1 malformed");
    expect(out.stdout).toContain("types   concept 1, entity 1, source 1");
    expect(out.stdout).toContain("links   1 resolved, 0 missing, 0 ambiguous");
    const errors = stderrLines(out).filter((line) => line.startsWith("error:"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^error: wiki\/concepts\/broken\.md: frontmatter is not valid YAML/);
  });

  it("finds the vault from a subfolder of the project", () => {
    const { project, env } = setup();
    run(project, ["init"], env);
    const sub = join(project, "src", "deep");
    mkdirSync(sub, { recursive: true });
    const out = run(sub, ["status", "--json"], env);
    expect(out.status).toBe(0);
    expect(json(out)).toMatchObject({ ok: true, vault: { root: project, kind: "project" } });
  });

  it("works with --vault pointing at the .llm-wiki folder itself, from anywhere", () => {
    const { project, env } = setup();
    const vault = makeTempVault({ config: { name: "Elsewhere" } });
    const out = run(project, ["status", "--json", "--vault", join(vault.root, ".llm-wiki")], env);
    expect(out.status).toBe(0);
    expect(json(out)).toMatchObject({ ok: true, vault: { root: vault.root, name: "Elsewhere" } });
    const byRoot = run(project, ["status", "--json", "--vault", vault.root], env);
    expect(json(byRoot)).toMatchObject({ ok: true, vault: { root: vault.root } });
  });

  it("falls back to the personal vault in HOME, or in WIKI_HOME when set", () => {
    const { home, project } = setup();
    makeTempVault({ root: home, kind: "personal", config: { name: "Home notes" } });
    const fromHome = run(project, ["status", "--json"], { HOME: home });
    expect(json(fromHome)).toMatchObject({ vault: { kind: "personal", name: "Home notes" } });

    const wikiHome = makeTempDir("llm-wiki-wikihome-");
    makeTempVault({ root: wikiHome, kind: "personal", config: { name: "Wiki home" } });
    const fromWikiHome = run(project, ["status", "--json"], { HOME: home, WIKI_HOME: wikiHome });
    expect(json(fromWikiHome)).toMatchObject({ vault: { kind: "personal", name: "Wiki home" } });
  });

  it("exits 1 with one clear stderr line and no stack trace when there is no vault", () => {
    const { project, env } = setup();
    const out = run(project, ["status"], env);
    expect(out.status).toBe(1);
    expect(out.stdout).toBe("");
    const lines = stderrLines(out);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("no .llm-wiki vault");
    expect(lines[0]).toContain("llm-wiki init");
  });

  it("exits 1 with a JSON result on stdout and one stderr line when --json finds no vault", () => {
    const { project, env } = setup();
    const out = run(project, ["status", "--json"], env);
    expect(out.status).toBe(1);
    expect(json(out)).toMatchObject({
      ok: false,
      diagnostics: [{ code: "vault_not_found", severity: "error", repair: "llm-wiki init" }],
    });
    // One line, with the repair, as in text mode.
    expect(stderrLines(out)).toEqual([
      "llm-wiki: no .llm-wiki vault in this folder or any parent, and no personal vault (fix: llm-wiki init)",
    ]);
  });

  it("names the missing --vault folder and how to create it", () => {
    const { project, env } = setup();
    const missing = join(project, "nowhere");
    const out = run(project, ["status", "--vault", missing], env);
    expect(out.status).toBe(1);
    const lines = stderrLines(out);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`no .llm-wiki vault at ${missing}`);
    expect(lines[0]).toContain(`llm-wiki init --vault ${missing}`);
  });

  it("keeps working when the settings file is invalid, with a warning", () => {
    const { home, project, env } = setup();
    run(project, ["init"], env);
    mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
    writeFileSync(join(home, ".config", "llm-wiki", "settings.json"), "{ not json");
    const out = run(project, ["status"], env);
    expect(out.status).toBe(0);
    expect(out.stdout).toContain("pages   0");
    const about = stderrLines(out).filter((line) => line.includes("settings.json"));
    expect(about).toHaveLength(1);
    expect(about[0]).toMatch(/^warning: .*settings\.json: invalid JSON/);
  });
});

describe("llm-wiki search", () => {
  function searchVault() {
    const { home } = setup();
    const vault = makeTempVault({
      pages: {
        "concepts/rag": pageText({ type: "concept", title: "Retrieval-Augmented Generation" }),
        "concepts/grounding": pageText({ type: "concept", title: "Grounding", tags: "[rag]" }),
        "entities/ragtime": pageText({ type: "entity", title: "Ragtime" }),
      },
    });
    return { root: vault.root, env: { HOME: home } };
  }

  it("lists exact matches first, as text", () => {
    const { root, env } = searchVault();
    const out = run(root, ["search", "rag"], env);
    expect(out.status).toBe(0);
    expect(out.stdout).toBe(
      [
        "concepts/rag  Retrieval-Augmented Generation  [id]",
        "concepts/grounding  Grounding  [tag]",
        "entities/ragtime  Ragtime  [partial]",
        "",
      ].join("\n"),
    );
  });

  it("returns the same hits as JSON, honouring --limit and joining words into one query", () => {
    const { root, env } = searchVault();
    const out = run(root, ["search", "--json", "--limit", "1", "rag"], env);
    expect(out.status).toBe(0);
    const doc = json(out);
    expect(doc.hits).toHaveLength(1);
    expect(doc).toMatchObject({
      ok: true,
      query: "rag",
      hits: [
        {
          id: "concepts/rag",
          title: "Retrieval-Augmented Generation",
          type: "concept",
          role: "canonical",
          match: "id",
          vault: "project",
        },
      ],
    });
    const words = run(root, ["search", "--json", "Retrieval-Augmented", "Generation"], env);
    expect(json(words)).toMatchObject({
      query: "Retrieval-Augmented Generation",
      hits: [{ match: "title" }],
    });
  });

  it("exits 0 with a plain message when nothing matches", () => {
    const { root, env } = searchVault();
    const out = run(root, ["search", "zebra"], env);
    expect(out.status).toBe(0);
    expect(out.stdout).toBe('no page matches "zebra"\n');
  });
});

describe("usage errors", () => {
  it("exits 2 for an unknown command, with the usage on stderr", () => {
    const { project, env } = setup();
    const out = run(project, ["bogus"], env);
    expect(out.status).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(/^llm-wiki: unknown command "bogus"\n/);
    expect(out.stderr).toContain("usage: llm-wiki <command>");
  });

  it("exits 2 with no command at all, the usage on stderr and nothing on stdout", () => {
    const { project, env } = setup();
    const out = run(project, [], env);
    expect(out.status).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(/^llm-wiki: no command given\nusage: llm-wiki <command>/);
  });

  it("exits 2 for an unknown flag, naming it in one balanced line", () => {
    const { project, env } = setup();
    const flag = `--bogus-${Math.random().toString(36).slice(2, 8)}`;
    const out = run(project, ["status", flag], env);
    expect(out.status).toBe(2);
    const [first = ""] = stderrLines(out);
    expect(first).toBe(
      `llm-wiki: status: unknown option ${flag} (llm-wiki status --help lists them)`,
    );
    for (const quote of ["'", '"']) expect(first.split(quote).length % 2).toBe(1);
    expect(out.stderr).not.toMatch(/^\s+at /m);
  });

  it("exits 2 for bench beir on a folder that does not exist, saying how to get one", () => {
    const { project, env } = setup();
    const missing = join(project, "no-such-collection");
    const out = run(project, ["bench", "beir", missing], env);
    expect(out.status).toBe(2);
    expect(stderrLines(out)[0]).toBe(
      `llm-wiki: bench beir: ${missing} is not a folder; download a BEIR collection first (see docs/retrieval-benchmark.md)`,
    );
  });

  it("exits 2 for a search without a query or with a bad --limit", () => {
    const { project, env } = setup();
    run(project, ["init"], env);
    expect(run(project, ["search"], env).status).toBe(2);
    const badLimit = run(project, ["search", "x", "--limit", "0"], env);
    expect(badLimit.status).toBe(2);
    expect(stderrLines(badLimit)).toEqual(["llm-wiki: --limit takes a positive whole number"]);
    expect(run(project, ["status", "--vault"], env).status).toBe(2);
  });

  it("prints the usage for --help and the package version for --version, exit 0", () => {
    const { project, env } = setup();
    const help = run(project, ["--help"], env);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("usage: llm-wiki <command>");
    expect(run(project, ["status", "--help"], env).stdout).toContain("usage: llm-wiki");
    const version = run(project, ["--version"], env);
    expect(version).toMatchObject({ status: 0, stdout: `${VERSION}\n`, stderr: "" });
  });
});

describe("llm-wiki ingest", () => {
  it("names the next step as the command that takes it, not a tool call", () => {
    const { project, env } = setup();
    run(project, ["init"], env);
    const captured = run(project, ["capture", "--text", "# Cranes\n\nThe crane rotates."], env);
    expect(captured.status, captured.stderr).toBe(0);
    const id = /^captured (SRC-[\w-]+) /.exec(captured.stdout)?.[1];
    const out = run(project, ["ingest"], env);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain(
      `next    last part; once the pages are written: llm-wiki ingest ${id} --mark-ingested\n`,
    );
    expect(out.stdout).not.toContain("wiki_ingest");
  });
});

describe("llm-wiki recall", () => {
  it("shows a status: deprecated page as deprecated, in the list and in the recall block", () => {
    const { home } = setup();
    const [a, b] = [randomWord(7, 10), randomWord(7, 10)];
    const body = `The ${a} ${b} ${randomWords(5)}.\n`;
    const vault = makeTempVault({
      pages: {
        [`concepts/${a}-${b}`]: pageText({ type: "concept", title: `${a} ${b}` }, body),
        [`concepts/old-${a}-${b}`]: pageText(
          { type: "concept", title: `Old ${a} ${b}`, status: "deprecated" },
          body,
        ),
      },
    });
    const env = { HOME: home, WIKI_HOME: home };
    const asJson = run(vault.root, ["recall", `${a} ${b}`, "--json"], env);
    expect(asJson.status, asJson.stderr).toBe(0);
    const results = json(asJson).results as Array<{ id: string; status?: string }>;
    const ids = results.map((r) => r.id);
    expect(ids).toContain(`concepts/old-${a}-${b}`);
    expect(ids).toContain(`concepts/${a}-${b}`);
    for (const r of results)
      expect(r.status === "deprecated", r.id).toBe(r.id === `concepts/old-${a}-${b}`);

    const text = run(vault.root, ["recall", `${a} ${b}`], env).stdout;
    const line = (id: string) => text.split("\n").find((l) => l.includes(`. ${id}  `)) ?? "";
    expect(line(`concepts/old-${a}-${b}`)).toMatch(/ · deprecated\b/);
    expect(line(`concepts/${a}-${b}`)).not.toContain("deprecated");
    expect(text).toContain(`### Old ${a} ${b} (concept, DEPRECATED;`);
    expect(text).toMatch(new RegExp(`### ${a} ${b} \\(concept; `));
  });
});
