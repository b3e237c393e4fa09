/**
 * Every question the bundled example vault suggests (its README, the
 * project README, `scripts/dev.sh example`'s default) finds the page it is
 * about under automatic recall, through the real CLI on a fresh copy of
 * `examples/acme-notes`. A question added to a README without an expected
 * page here fails, so the suggestions can't drift from what recall does.
 * A page's `recall_triggers` are names: asking one of them, alone or inside
 * a longer question, names the page.
 */
import { cpSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv, closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const EXAMPLE = join(REPO, "examples", "acme-notes");

/** The page each suggested question is about. */
const EXPECTED: Record<string, string> = {
  "how do we keep the cache consistent": "concepts/cache-invalidation",
  "why did we pick SQLite": "syntheses/adr-001-sqlite-over-postgres",
  "what to do when sync conflicts appear": "skills/debug-sync-conflicts",
  "release steps": "skills/release-checklist",
};

/** The questions the example's README, the project README and dev.sh suggest. */
function suggestedQuestions(): string[] {
  const found = new Set<string>();
  const readme = readFileSync(join(EXAMPLE, "README.md"), "utf8");
  const tried = /questions to try:([^\n]*)/.exec(readme)?.[1] ?? "";
  for (const m of tried.matchAll(/"([^"]+)"/g)) found.add(m[1] as string);
  const asks = /it asks "([^"]+)"/.exec(readme)?.[1];
  if (asks) found.add(asks);
  const project = readFileSync(join(REPO, "README.md"), "utf8");
  for (const m of project.matchAll(/dev\.sh example "([^"]+)"/g)) found.add(m[1] as string);
  const dev = readFileSync(join(REPO, "scripts", "dev.sh"), "utf8");
  const fallback = /query="\$\{\*:-([^}]+)\}"/.exec(dev)?.[1];
  if (fallback) found.add(fallback);
  return [...found];
}

let vault: string;

beforeAll(async () => {
  vault = makeTempDir("llm-wiki-example-");
  cpSync(EXAMPLE, vault, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  await serviceFor(vault).reindex({});
  await closeServices();
});

afterAll(() => removeTempDirs());

const autoRecall = (question: string): RecallResult => {
  const run = runCli(["recall", "--auto", question, "--json", "--vault", vault], {
    env: childEnv(),
  });
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as RecallResult;
};

describe("the example vault's suggested questions", () => {
  it("are all known here (at least the four the READMEs list)", () => {
    const questions = suggestedQuestions();
    expect(questions.length).toBeGreaterThanOrEqual(4);
    for (const q of questions) expect(Object.keys(EXPECTED)).toContain(q);
  });

  it("each find their page first under automatic recall", () => {
    for (const question of suggestedQuestions()) {
      const result = autoRecall(question);
      expect(result.results[0]?.id, question).toBe(EXPECTED[question]);
      expect(result.rendered, question).toContain(EXPECTED[question]);
    }
  });

  it("a recall trigger inside a longer question names its page", () => {
    const result = autoRecall("what are the release steps again?");
    expect(result.results[0]?.id).toBe("skills/release-checklist");
  });
});
