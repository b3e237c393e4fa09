/**
 * A cold `llm-wiki recall --auto` (what a hook injects, asked from the
 * command line) does work in proportion to the pages it touches, not to the
 * vault: on a vault whose index is up to date it opens the registry as last
 * saved, stats and reads only the page files it answers with, and loads
 * none of QMD's modules. A
 * page added since is still found (the saved registry no longer describes
 * the folder, so the walk answers). An explicit recall walks (stats) every
 * page, so it sees an edit made in place, in a vault of at most
 * `recallWalkMaxPages` pages; in a larger one it answers as `--auto` does,
 * and a page it would show that was edited since makes it walk and answer
 * again. Without a model, neither loads QMD's modules.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWords } from "./helpers/random-text.ts";
import { copyExampleVault } from "./helpers/temp-vault.ts";

const ASKED = "how do we keep the cache consistent after a note changes";
const FILLERS = 120;

/**
 * A Node `--import` that reports, on stderr, every page file (`wiki/…/*.md`)
 * the process stats or reads, one `page touched <path>` line each, and every
 * QMD module it loads (`qmd module <url>`).
 */
const PROBE = `--import=data:text/javascript,${encodeURIComponent(
  [
    'import fs from "node:fs"; import { register, syncBuiltinESMExports } from "node:module";',
    'const page = (p) => typeof p === "string" && /[\\\\/]wiki[\\\\/].*\\.md$/.test(p);',
    'for (const name of ["statSync", "lstatSync", "readFileSync", "openSync"]) {',
    "  const real = fs[name];",
    '  fs[name] = function (p, ...rest) { if (page(p)) process._rawDebug("page touched " + p); return real.call(this, p, ...rest); };',
    "}",
    "syncBuiltinESMExports();",
    `register("data:text/javascript," + encodeURIComponent(${JSON.stringify(
      'export async function load(url, context, next) { if (url.includes("/@tobilu/qmd/")) process._rawDebug("qmd module " + url); return next(url, context); }',
    )}));`,
  ].join("\n"),
)}`;

let base: string;
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "llm-wiki-cold-recall-")));
  root = join(base, "project");
  copyExampleVault(root);
  const dir = join(root, ".llm-wiki", "wiki", "concepts");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < FILLERS; i += 1) {
    writeFileSync(
      join(dir, `filler-${i}.md`),
      `---\ntitle: Filler ${i}\ntype: concept\n---\n# Filler ${i}\n\n${randomWords(60)}\n`,
    );
  }
  await serviceFor(root).reindex({});
  await closeServices();
  env = { ...childEnv(), HOME: base };
}, 300_000);

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

function recall(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const run = runCli(["recall", ...args], {
    cwd: root,
    env: { ...env, ...extraEnv, NODE_OPTIONS: PROBE },
  });
  const lines = run.stderr.split("\n");
  return {
    ...run,
    pagesTouched: new Set(
      lines.filter((l) => l.startsWith("page touched ")).map((l) => l.slice(13)),
    ),
    qmdModules: lines.filter((l) => l.startsWith("qmd module ")).length,
  };
}

describe("a cold automatic recall from the command line", () => {
  it("touches no page file and loads no QMD module on an up-to-date vault, and still answers", () => {
    // The probe itself works: an explicit recall walks (stats) every page.
    const walked = recall([ASKED]);
    expect(walked.status).toBe(0);
    expect(walked.pagesTouched.size).toBeGreaterThan(FILLERS);

    const run = recall(["--auto", ASKED]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("concepts/cache-invalidation");
    // Only the pages it answers with (their freshness), none of the rest.
    const wiki = join(root, ".llm-wiki", "wiki");
    for (const file of run.pagesTouched) {
      expect(run.stdout).toContain(relative(wiki, file).replace(/\.md$/, ""));
    }
    expect(run.pagesTouched.size).toBeLessThan(walked.pagesTouched.size / 10);
    expect(run.qmdModules).toBe(0);
  });

  it("finds a page added since the index was saved", () => {
    const word = `zq${randomWords(1).replace(/\W/g, "")}unseen`;
    writeFileSync(
      join(root, ".llm-wiki", "wiki", "concepts", "added-later.md"),
      `---\ntitle: Added later ${word}\ntype: concept\n---\n# Added later ${word}\n\nThe ${word} component keeps the ${word} ledger.\n`,
    );
    const run = recall(["--auto", `${word} ${word} ledger`]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("concepts/added-later");
  });
});

describe("a cold asked recall from the command line", () => {
  /** Settings that make this vault "too large to walk": every page count is above 0. */
  const large = (): NodeJS.ProcessEnv => {
    const file = join(base, "walk-none.json");
    writeFileSync(file, JSON.stringify({ "llm-wiki": { recallWalkMaxPages: 0 } }));
    return { LLM_WIKI_SETTINGS: file };
  };
  const pagesShown = (stdout: string): string[] =>
    [...stdout.matchAll(/\/wiki\/(\S+)\.md$/gm)].map((m) => m[1] as string).sort();

  it("walks every page in a vault within recallWalkMaxPages, and answers as --auto does above it", () => {
    const walked = recall(["--json", ASKED]);
    expect(walked.status, walked.stderr).toBe(0);
    expect(walked.pagesTouched.size).toBeGreaterThan(FILLERS);

    const saved = recall(["--json", ASKED], large());
    expect(saved.status, saved.stderr).toBe(0);
    // Only the pages it answers with are read, and the answer is the walk's.
    expect(saved.pagesTouched.size).toBeLessThan(walked.pagesTouched.size / 10);
    const items = (stdout: string) =>
      (
        JSON.parse(stdout) as { results: Array<{ id: string; title: string; score: number }> }
      ).results.map(({ id, title, score }) => ({ id, title, score }));
    expect(items(saved.stdout)).toEqual(items(walked.stdout));
    expect(items(saved.stdout).map((i) => i.id)).toContain("concepts/cache-invalidation");
    // A lexical answer (no model here) loads none of QMD's modules, walked or not.
    expect([walked.qmdModules, saved.qmdModules]).toEqual([0, 0]);
  });

  it("walks and answers again when a page it would show was edited in place since", () => {
    // The saved registry is current (a walk just saved it).
    expect(recall([ASKED]).status).toBe(0);
    const file = join(root, ".llm-wiki", "wiki", "concepts", "cache-invalidation.md");
    const word = `Zq${randomWords(1).replace(/\W/g, "")}renamed`;
    const text = readFileSync(file, "utf8");
    // Same length, other words: only the text tells the edit apart.
    writeFileSync(file, text.replace('title: "Cache invalidation"', `title: "${word}"`));

    const run = recall([ASKED], large());
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(word);
    expect(run.stdout).not.toContain('Cache invalidation"');
    // It found the edit by walking every page.
    expect(run.pagesTouched.size).toBeGreaterThan(FILLERS);
    expect(pagesShown(run.stdout)).toContain("concepts/cache-invalidation");

    // The walk saved the registry again: the next asked recall reads only what it shows.
    const next = recall([ASKED], large());
    expect(next.stdout).toContain(word);
    expect(next.pagesTouched.size).toBeLessThan(FILLERS / 10);
    writeFileSync(file, text);
  });
});
