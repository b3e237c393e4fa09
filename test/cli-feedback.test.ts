/**
 * `llm-wiki feedback` and `llm-wiki bench vault`, through the real CLI on
 * real temp vaults: a recall saves what it showed (never the query) for an
 * hour, feedback judges only those pages, a correction is a case of the
 * vault's own bench.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { queryHash } from "../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { type CliRun, runCli } from "./helpers/cli.ts";
import { randomWord } from "./helpers/random-text.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  readEvents,
  removeTempDirs,
  type TempVault,
} from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

interface Setup {
  vault: TempVault;
  home: string;
  shownId: string;
  unshownId: string;
  query: string;
  /** The shown page's own name (its title is `Handling <name>`). */
  name: string;
}

/**
 * A vault whose one page the query finds (its words in another order, so
 * the query as a phrase is in no page) beside pages it does not.
 */
function setup(): Setup {
  const a = randomWord(8, 12);
  const b = randomWord(8, 12);
  const shownId = `concepts/${randomWord(6, 9)}`;
  const unshownId = `concepts/${randomWord(6, 9)}`;
  const pages: Record<string, string> = {
    [shownId]: pageText(
      { title: `Handling ${a}`, type: "concept" },
      `# Handling ${a}\n\nThe ${a} pipeline retries twice before the ${b} stage gives up.\n`,
    ),
    [unshownId]: pageText(
      { title: "Unrelated", type: "concept" },
      "# Unrelated\n\nDeployment and logging notes.\n",
    ),
  };
  for (let i = 0; i < 6; i += 1) {
    const w = randomWord(6, 9);
    pages[`concepts/filler-${i}-${w}`] = pageText(
      { title: `Filler ${w}`, type: "concept" },
      `# Filler ${w}\n\nNotes on ${w}, deployment and logging.\n`,
    );
  }
  return {
    vault: makeTempVault({ pages }),
    home: makeTempDir("llm-wiki-home-"),
    shownId,
    unshownId,
    query: `${b} stage ${a} pipeline`,
    name: a,
  };
}

function run(s: Setup, args: string[], input?: string): CliRun {
  return runCli(args, {
    cwd: s.vault.root,
    env: { HOME: s.home, WIKI_HOME: s.home },
    ...(input !== undefined ? { input } : {}),
  });
}

function feedbackEvents(vault: TempVault): Array<Record<string, unknown>> {
  return readEvents(vault.paths).filter((e) => e.kind === "recall_feedback");
}

/** Every file under `dir` as latin1 text (any byte survives), by path. */
function allFiles(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = join(dir, name);
    if (statSync(file).isFile())
      out.push({ path: name, text: readFileSync(file).toString("latin1") });
  }
  return out;
}

function shownFile(vault: TempVault): string {
  return join(vault.paths.meta, "cache", "cli-shown.json");
}

describe("llm-wiki feedback", () => {
  it("judges a page the last recall showed; the saved set holds no query text", () => {
    const s = setup();
    const recall = run(s, ["recall", s.query, "--json"]);
    expect(recall.status, recall.stderr).toBe(0);
    const result = JSON.parse(recall.stdout) as RecallResult;
    expect(result.results.map((r) => r.id)).toContain(s.shownId);

    const saved = JSON.parse(readFileSync(shownFile(s.vault), "utf8")) as {
      shown: Array<Record<string, unknown>>;
    };
    expect(saved.shown).toContainEqual({
      vault: "project",
      page: s.shownId,
      queryHash: queryHash(s.query),
      rank: 1,
      mode: result.modeUsed,
    });

    const judged = run(s, ["feedback", s.shownId, "--judgment", "relevant"]);
    expect(judged.status, judged.stderr).toBe(0);
    expect(judged.stdout).toBe(`recorded ${s.shownId} as relevant\n`);
    const events = feedbackEvents(s.vault);
    expect(events).toEqual([
      expect.objectContaining({
        page: s.shownId,
        action: "relevant",
        query_hash: queryHash(s.query),
        rank: 1,
      }),
    ]);

    // Not a byte under .llm-wiki/ holds the question.
    for (const file of allFiles(s.vault.paths.dir)) {
      expect(file.text.includes(s.query), file.path).toBe(false);
    }
  });

  it("refuses a page the last recall did not show, saying why and what to do", () => {
    const s = setup();
    expect(run(s, ["recall", s.query]).status).toBe(0);
    const out = run(s, ["feedback", s.unshownId, "--judgment", "irrelevant"]);
    expect(out.status).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain(`${s.unshownId} was not shown by a recall`);
    expect(out.stderr).toContain(`the last recall showed ${s.shownId}`);
    expect(out.stderr).toContain("llm-wiki recall <question>");
    expect(out.stderr).not.toMatch(/^\s+at |\.ts:\d+/m);
    const json = run(s, ["feedback", s.unshownId, "--judgment", "irrelevant", "--json"]);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      diagnostics: [{ code: "feedback_not_shown" }],
    });
    expect(feedbackEvents(s.vault)).toEqual([]);
  });

  it("refuses every page when no recall ran, or the last one is over an hour old", () => {
    const s = setup();
    const none = run(s, ["feedback", s.shownId, "--judgment", "relevant"]);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain("no recall was run here yet");

    expect(run(s, ["recall", s.query]).status).toBe(0);
    const file = shownFile(s.vault);
    const saved = JSON.parse(readFileSync(file, "utf8")) as { at: string };
    writeFileSync(
      file,
      JSON.stringify({ ...saved, at: new Date(Date.parse(saved.at) - 61 * 60_000).toISOString() }),
    );
    const old = run(s, ["feedback", s.shownId, "--judgment", "relevant"]);
    expect(old.status).toBe(1);
    expect(old.stderr).toContain("older than 60 minutes");
    expect(feedbackEvents(s.vault)).toEqual([]);
  });

  it("takes usage errors as exit 2 and judges nothing", () => {
    const s = setup();
    expect(run(s, ["recall", s.query]).status).toBe(0);
    for (const args of [
      ["feedback", s.shownId],
      ["feedback", s.shownId, "--judgment", "great"],
      ["feedback", "--judgment", "relevant"],
      ["feedback", s.shownId, "--judgment", "relevant", "--vault-kind", "team"],
    ]) {
      const out = run(s, args);
      expect(out.status, args.join(" ")).toBe(2);
      expect(out.stderr).toMatch(/^llm-wiki: /);
    }
    // A correction belongs to `corrected` only, and `corrected` needs one.
    const stray = run(s, ["feedback", s.shownId, "--judgment", "relevant", "--correction", "x"]);
    expect(stray.status).toBe(1);
    const bare = run(s, ["feedback", s.shownId, "--judgment", "corrected"]);
    expect(bare.status).toBe(1);
    expect(feedbackEvents(s.vault)).toEqual([]);
    expect(run(s, ["--help"]).stdout).toContain("feedback <page-id> --judgment J");
  });

  it("records a correction read from standard input, which bench vault then runs as a passing case", () => {
    const s = setup();
    expect(run(s, ["recall", s.query]).status).toBe(0);
    const words = `${randomWord(9, 12)} ${randomWord(9, 12)} ${randomWord(9, 12)}`;
    const out = run(
      s,
      ["feedback", s.shownId, "--judgment", "corrected", "--correction", "-", "--json"],
      `It no longer gives up: it escalates to ${words}.\n`,
    );
    expect(out.status, out.stderr).toBe(0);
    const judged = JSON.parse(out.stdout) as {
      correction: { id: string; path: string; created: boolean };
    };
    expect(judged.correction.id).toMatch(/^sources\/rc-/);
    expect(readFileSync(join(s.vault.paths.dir, judged.correction.path), "utf8")).toContain(words);
    expect(feedbackEvents(s.vault)).toContainEqual(
      expect.objectContaining({ action: "corrected", observation: judged.correction.id }),
    );

    const bench = run(s, ["bench", "vault"]);
    expect(bench.status, bench.stderr).toBe(0);
    expect(bench.stdout).toContain(`${judged.correction.id} → ${s.shownId}`);
    expect(bench.stdout.trimEnd().split("\n").at(-1)).toBe("1 cases, 1 pass");
    for (const file of allFiles(s.vault.paths.dir)) {
      expect(file.text.includes(s.query), file.path).toBe(false);
    }
  });
});

describe("llm-wiki bench vault", () => {
  it("reports a failing case without failing, and no corrections as zero cases", () => {
    const s = setup();
    const empty = run(s, ["bench", "vault", "--json"]);
    expect(empty.status, empty.stderr).toBe(0);
    expect(JSON.parse(empty.stdout)).toMatchObject({
      ok: true,
      cases: [],
      summary: { cases: 0, pass: 0 },
    });

    // A correction page whose words recall cannot tell apart from everything else: it fails.
    const id = `sources/rc-2026-01-01-${randomWord(6, 9)}`;
    s.vault.writePage(
      id,
      pageText(
        {
          title: '"Recall correction: Unrelated"',
          type: "observation",
          status: "observation",
          category: "recall-correction",
          corrected_page: s.unshownId,
          query_hash: `sha256:${"0".repeat(64)}`,
          observed_at: '"2026-01-01T00:00:00.000Z"',
        },
        "# Recall correction: Unrelated\n\nthe and of\n\nCorrects: [Unrelated](../concepts/x.md)\n",
      ),
    );
    const bench = run(s, ["bench", "vault", "--json"]);
    expect(bench.status, bench.stderr).toBe(0);
    const report = JSON.parse(bench.stdout) as {
      cases: Array<{ correction: string; pass: boolean; correctionRank: number | null }>;
      summary: { cases: number; pass: number };
    };
    expect(report.summary).toEqual({ cases: 1, pass: 0 });
    expect(report.cases[0]).toMatchObject({ correction: id, pass: false, correctionRank: null });
    const text = run(s, ["bench", "vault"]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/FAIL\s+-\s+/);
    expect(text.stdout.trimEnd().split("\n").at(-1)).toBe("1 cases, 0 pass");
  });

  it("fails a case whose corrected page outranks its correction: recall asked in the correction's words regressed", () => {
    const s = setup();
    // The correction's words are the corrected page's own title: recall puts that page first.
    const id = `sources/rc-2026-01-01-${randomWord(6, 9)}`;
    s.vault.writePage(
      id,
      pageText(
        {
          title: '"Recall correction: Unrelated"',
          type: "observation",
          status: "observation",
          category: "recall-correction",
          corrected_page: s.shownId,
          query_hash: `sha256:${"0".repeat(64)}`,
          observed_at: '"2026-01-01T00:00:00.000Z"',
        },
        `# Recall correction: Unrelated\n\nHandling ${s.name}\n\nCorrects: [Handling](../concepts/x.md)\n`,
      ),
    );
    const bench = run(s, ["bench", "vault", "--json"]);
    expect(bench.status, bench.stderr).toBe(0);
    const report = JSON.parse(bench.stdout) as {
      cases: Array<{
        pass: boolean;
        failure?: string;
        correctionRank: number | null;
        correctedRank: number | null;
      }>;
      summary: { cases: number; pass: number };
    };
    const [only] = report.cases;
    // Found, and in the top 5: the old rule passed it.
    expect(only?.correctionRank).not.toBeNull();
    expect(only?.correctionRank ?? 99).toBeLessThanOrEqual(5);
    expect(only?.correctedRank ?? 99).toBeLessThan(only?.correctionRank ?? 0);
    expect(only).toMatchObject({ pass: false, failure: "corrected_outranks_correction" });
    expect(report.summary).toEqual({ cases: 1, pass: 0 });
    const text = run(s, ["bench", "vault"]);
    expect(text.stdout).toContain("FAIL (outranked)");
    expect(text.stdout).toContain("above the page it corrects");
  });

  it("exits 1 without a vault, and 2 on a folder argument", () => {
    const home = makeTempDir("llm-wiki-home-");
    const bare = makeTempDir("llm-wiki-bare-");
    const none = runCli(["bench", "vault"], { cwd: bare, env: { HOME: home, WIKI_HOME: home } });
    expect(none.status).toBe(1);
    expect(none.stderr).toContain("no .llm-wiki vault");
    const extra = runCli(["bench", "vault", bare], { cwd: bare, env: { HOME: home } });
    expect(extra.status).toBe(2);
  });
});
