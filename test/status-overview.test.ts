/**
 * `llm-wiki status` as a person runs it (a real child process) on a real
 * vault: besides pages, links and the index, the overview — freshness
 * (current / stale past `stale_after` / historical when superseded), the
 * last week's activity from the event log and the pages' `updated` dates,
 * the ingest queue, orphans and embedding coverage — the same in text and
 * `--json`, and nothing a hostile file name holds reaches the terminal raw.
 */
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { StatusResult } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCli } from "./helpers/cli.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);

function cli(root: string, args: string[]) {
  const home = makeTempDir("llm-wiki-status-home-");
  return runCli(args, { cwd: root, env: { HOME: home, WIKI_HOME: home } });
}

/** A vault exercising every part of the overview. */
function overviewVault() {
  const vault = makeTempVault({
    pages: {
      // Supersedes old (declared and linked): old is historical, new current.
      "concepts/new": pageText(
        {
          type: "concept",
          title: "New claim",
          relations: '[{ target: "concepts/old", type: "supersedes" }]',
        },
        "Replaces [[concepts/old]].\n",
      ),
      // Linked from new, so no orphan; updated today, so counted as updated.
      "concepts/old": pageText({ type: "concept", title: "Old claim", updated: today() }),
      "concepts/expired": pageText({
        type: "concept",
        title: "Expired",
        stale_after: "2000-01-01",
      }),
      "entities/lonely": pageText({ type: "entity", title: "Lonely" }),
    },
  });
  const now = Date.now();
  const line = (ts: number, event: Record<string, unknown>) =>
    `${JSON.stringify({ ts: new Date(ts).toISOString(), ...event })}\n`;
  mkdirSync(vault.paths.meta, { recursive: true });
  appendFileSync(
    vault.paths.events,
    [
      line(now - 2 * DAY_MS, { kind: "page_created", id: "concepts/new", type: "concept" }),
      // Outside the week: not counted.
      line(now - 30 * DAY_MS, { kind: "page_created", id: "concepts/ancient", type: "concept" }),
      "this line is not JSON\n",
    ].join(""),
  );
  return vault;
}

describe("llm-wiki status: the overview", () => {
  it("counts freshness, the week's activity, the ingest queue, orphans and embeddings", () => {
    const vault = overviewVault();
    const captured = cli(vault.root, ["capture", "--text", "Notes on CRDTs.", "--title", "CRDTs"]);
    expect(captured.status, captured.stderr).toBe(0);

    const before = JSON.parse(cli(vault.root, ["status", "--json"]).stdout) as StatusResult;
    const v = before.vault;
    if (!v) throw new Error("no vault in the status");
    // Existing fields stay.
    expect(v.pages).toBe(5);
    expect(v.byType).toEqual({ concept: 3, entity: 1, source: 1 });
    expect(v.index.state).toBe("missing");
    expect(v.freshness).toEqual({ current: 3, stale: 1, historical: 1 });
    expect(v.activity).toMatchObject({
      days: 7,
      pagesCreated: 1,
      pagesUpdated: 1,
      sourcesCaptured: 1,
      sourcesIngested: 0,
    });
    // page_created in the week and the capture's two (its page, its packet); the
    // month-old event and the bad line are not.
    expect(v.activity.events).toBe(3);
    expect(v.queue.pending).toBe(1);
    expect(v.queue.oldest[0]).toMatch(/^sources\//);
    expect(v.orphans).toEqual({
      count: 3,
      pages: ["concepts/expired", "concepts/new", "entities/lonely"],
    });
    expect(v.embeddings).toEqual({ documents: 0, embedded: 0 });

    expect(cli(vault.root, ["reindex"]).status).toBe(0);
    const after = JSON.parse(cli(vault.root, ["status", "--json"]).stdout) as StatusResult;
    expect(after.vault?.index.state).toBe("ready");
    // Lexical only here: every document indexed, none embedded.
    expect(after.vault?.embeddings).toEqual({ documents: 5, embedded: 0 });

    const text = cli(vault.root, ["status"]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("fresh   3 current, 1 stale, 1 historical");
    expect(text.stdout).toContain(
      "7 days  1 page(s) created, 1 updated; 1 source(s) captured, 0 ingested; 3 event(s)",
    );
    expect(text.stdout).toMatch(/queue {3}1 source\(s\) to ingest \(sources\//);
    expect(text.stdout).toContain(
      "orphans 3 page(s) nothing links to (concepts/expired, concepts/new, entities/lonely)",
    );
    expect(text.stdout).toContain("embed   0/5 documents embedded (0%)");
    expect(text.stdout).toContain("index   ready, 5 documents");
  });

  it("never prints a control sequence from a hostile file name", () => {
    const vault = makeTempVault({
      pages: { "concepts/plain": pageText({ type: "concept", title: "Plain" }) },
    });
    // A page whose file name carries a terminal escape and a bidi override: an orphan.
    vault.writePage(
      "concepts/evil\u001b]52;c;aGk=\u0007\u202e",
      pageText({ type: "concept", title: "Evil\u001b[2J" }),
    );
    const out = cli(vault.root, ["status"]);
    expect(`${out.stdout}${out.stderr}`).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(out.stdout).toContain("orphans");
    const json = cli(vault.root, ["status", "--json"]);
    expect(json.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(JSON.parse(json.stdout).vault.orphans.count).toBeGreaterThanOrEqual(1);
  });
});

describe("status of a folder without a vault", () => {
  it("fails with the repair command and no overview", () => {
    const dir = join(makeTempDir("llm-wiki-status-none-"), "empty");
    mkdirSync(dir);
    const out = cli(dir, ["status", "--json"]);
    expect(out.status).toBe(1);
    const result = JSON.parse(out.stdout) as StatusResult;
    expect(result.vault).toBeUndefined();
    expect(result.diagnostics[0]?.code).toBe("vault_not_found");
  });
});
