/**
 * Both systems index one vault, each under `meta/qmd/`: the older system's
 * own `reindexQmdVault` and `readQmdIndexStatus` (from the installed
 * `@zosmaai/pi-llm-wiki` 0.12.2; its store opened through this checkout's
 * QMD, as its 2.5.3 needs a compiled SQLite driver) and our real CLI. After
 * ours rebuilds, the older index still reads `ready` and recalls; after
 * theirs, ours does. No name we write there equals, in any case, one the
 * older system uses (a case-insensitive file system would take our former
 * `CURRENT` pointer for its `current/` folder), its `staging-<uuid>` folder
 * survives our recovery, and an index an earlier version of ours left
 * behind (`CURRENT`) is still read, then moved to `LIVE`. Status says when
 * the older system uses the vault too, and how to hand it back. Words are
 * fresh each run.
 */
import { existsSync, mkdirSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { createStore } from "@tobilu/qmd";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const OLD_LIB = "@zosmaai/pi-llm-wiki/dist/extensions/llm-wiki/lib";

/** Every name the older system keeps in `meta/qmd/`. */
const OLDER_NAMES = [
  "current",
  "previous",
  "documents",
  "manifest.json",
  "swap.json",
  "last-error.json",
  "index.lock",
];

interface OlderStatus {
  state: string;
  totalDocuments: number;
  issues: Array<{ code: string; message: string }>;
}
interface OlderIndexing {
  reindexQmdVault(
    paths: unknown,
    options: { scope: "changed" | "all"; components: string[]; force?: boolean },
    deps: { factory: typeof openStore },
  ): Promise<{ ok: boolean; errors: unknown[] }>;
  readQmdIndexStatus(paths: unknown): Promise<OlderStatus>;
}

/** The store interface the older indexing drives (update, status, close), over this checkout's QMD. */
async function openStore(input: { dbPath: string; documentsPath: string }) {
  const store = await createStore({
    dbPath: input.dbPath,
    config: {
      collections: {
        canonical: { path: join(input.documentsPath, "canonical"), pattern: "**/*.md" },
        evidence: { path: join(input.documentsPath, "evidence"), pattern: "**/*.md" },
      },
    },
  });
  return {
    update: () => store.update({}),
    embed: () => Promise.resolve({ docsProcessed: 0, chunksEmbedded: 0, errors: 0, durationMs: 0 }),
    status: async () => {
      const status = await store.getStatus();
      const count = (name: string) =>
        status.collections.find((c) => c.name === name)?.documents ?? 0;
      return {
        totalDocuments: status.totalDocuments,
        needsEmbedding: status.needsEmbedding,
        hasVectorIndex: status.hasVectorIndex,
        canonicalDocuments: count("canonical"),
        evidenceDocuments: count("evidence"),
      };
    },
    searchLex: async (query: string) => store.searchLex(query, { limit: 10 }),
    close: () => store.close(),
  };
}

describe("two indexes in one vault's meta/qmd", () => {
  it("keep each other ready, whoever reindexes last", async () => {
    const root = makeTempDir("llm-wiki-older-index-");
    const env = { HOME: makeTempDir("llm-wiki-older-index-home-") };
    const cli = (...args: string[]) => runCli(args, { cwd: root, env });
    expect(cli("init", "--name", randomWords(2)).status).toBe(0);
    const words = [randomWord(8, 10), randomWord(8, 10)];
    for (const word of words) {
      const made = cli(
        "page",
        "--type",
        "concept",
        "--title",
        `${word} notes`,
        "--content",
        `${word} ${randomWords(10)}`,
      );
      expect(made.status, made.stderr).toBe(0);
    }

    const utils = (await import(`${OLD_LIB}/utils.js`)) as { getVaultPaths(root: string): unknown };
    const indexing = (await import(`${OLD_LIB}/qmd-indexing.js`)) as OlderIndexing;
    const paths = utils.getVaultPaths(root);
    const theirs = async () => {
      const run = await indexing.reindexQmdVault(
        paths,
        { scope: "all", components: ["lexical"], force: true },
        { factory: openStore },
      );
      expect(run.errors).toEqual([]);
    };
    const theirStatus = () => indexing.readQmdIndexStatus(paths);
    const ours = (...args: string[]) => {
      const run = cli("reindex", ...args);
      expect(run.status, run.stderr).toBe(0);
    };
    const ourRecall = (word: string) => cli("recall", word).stdout;

    await theirs();
    expect((await theirStatus()).state).toBe("ready");

    // Ours rebuilds from nothing beside theirs (a new generation and a pointer swap).
    ours("--all", "--force");
    const after = await theirStatus();
    expect(after.issues).toEqual([]);
    expect(after.state).toBe("ready");
    expect(after.totalDocuments).toBe(2);
    expect(ourRecall(words[0] as string)).toContain(`${words[0]} notes`);

    // Theirs rebuilds again; ours still answers from its own.
    await theirs();
    expect((await theirStatus()).state).toBe("ready");
    expect(ourRecall(words[1] as string)).toContain(`${words[1]} notes`);

    // Status says the older system uses the vault too, and how to hand it back.
    const status = cli("status");
    expect(status.stdout).toMatch(
      /^note {4}@zosmaai\/pi-llm-wiki uses this vault too: .*wiki_rebuild_meta/m,
    );

    // No name of ours is one of theirs, whatever the case.
    const qmd = join(root, ".llm-wiki", "meta", "qmd");
    const older = new Set(OLDER_NAMES);
    const ourNames = readdirSync(qmd).filter((n) => !older.has(n));
    expect(ourNames.length).toBeGreaterThan(0);
    const lowered = new Set(OLDER_NAMES.map((n) => n.toLowerCase()));
    expect(ourNames.filter((n) => lowered.has(n.toLowerCase()))).toEqual([]);
    expect(ourNames.filter((n) => /^staging-[0-9a-f-]{36}$/i.test(n))).toEqual([]);
  });

  it("leaves the older system's staging folder alone and reads an index an earlier version left", async () => {
    const root = makeTempDir("llm-wiki-older-index-");
    const env = { HOME: makeTempDir("llm-wiki-older-index-home-") };
    const cli = (...args: string[]) => runCli(args, { cwd: root, env });
    expect(cli("init", "--name", randomWords(2)).status).toBe(0);
    const word = randomWord(8, 10);
    expect(
      cli("page", "--type", "concept", "--title", `${word} notes`, "--content", randomWords(8))
        .status,
    ).toBe(0);
    expect(cli("reindex").status).toBe(0);
    const qmd = join(root, ".llm-wiki", "meta", "qmd");
    // A vault the older system never used: status has nothing to say about it.
    expect(cli("status").stdout).not.toContain("@zosmaai/pi-llm-wiki");

    // The older system mid-build: its staging folder, named staging-<uuid>.
    const staging = join(qmd, `staging-${crypto.randomUUID()}`);
    mkdirSync(staging);
    // An index an earlier version of ours built: its pointer was CURRENT.
    renameSync(join(qmd, "LIVE"), join(qmd, "CURRENT"));
    expect(cli("recall", word).stdout).toContain(`${word} notes`);

    expect(cli("reindex", "--all", "--force").status).toBe(0);
    expect(existsSync(staging)).toBe(true);
    expect(existsSync(join(qmd, "LIVE"))).toBe(true);
    expect(existsSync(join(qmd, "CURRENT"))).toBe(false);
    expect(cli("recall", word).stdout).toContain(`${word} notes`);
  });
});
