/**
 * An index this user may not write (another user's vault, `chmod -R a-w`):
 * recall, explicit and automatic, answers lexically from the readable index
 * and writes nothing (no lock, no `-shm`, no state, no refresh of changed
 * pages), saying so with `index_read_only`. Where no index can answer,
 * `recall --json` prints one JSON document with `ok: false` and a repair
 * that works when followed.
 *
 * Tests run as root on CI, and root writes through any mode bits: the CLI
 * then runs as `nobody` (see helpers/unprivileged.ts).
 */
import { randomInt } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import {
  makeTempVault,
  pageText,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";
import {
  giveToUnprivileged,
  makeUnwritable,
  makeWritable,
  openToEveryone,
  runAsUnprivileged,
  runCliUnprivileged,
  unprivilegedHome,
} from "./helpers/unprivileged.ts";

const isRoot = process.getuid?.() === 0;
const locked: string[] = [];

afterEach(async () => {
  await closeServices();
  for (const dir of locked.splice(0)) if (existsSync(dir)) makeWritable(dir);
  removeTempDirs();
});

interface Fixture {
  vault: TempVault;
  /** A word only the page `concepts/target` holds. */
  marker: string;
  home: string;
}

/** A vault of a few random pages, one of them holding `marker`; indexed when `indexed`. */
async function vaultWithPages(indexed: boolean): Promise<Fixture> {
  const marker = randomWord(6, 12);
  const pages: Record<string, string> = {
    "concepts/target": pageText(
      { type: "concept", title: `Target ${randomWord(6, 12)}` },
      `${randomWord(6, 12)} ${marker} ${randomWord(6, 12)}\n`,
    ),
  };
  for (let i = randomInt(2, 6); i > 0; i--) {
    pages[`concepts/other-${i}`] = pageText(
      { type: "concept", title: `Other ${randomWord(6, 12)}` },
      `${randomWord(6, 12)} ${randomWord(6, 12)}\n`,
    );
  }
  const vault = makeTempVault({ pages });
  if (indexed) {
    const built = await serviceFor(vault.root).reindex();
    expect(built.ok).toBe(true);
    await closeServices();
  }
  return { vault, marker, home: unprivilegedHome() };
}

/** Makes the index another user's: readable, not writable by the child. */
function asAnotherUsersIndex(vault: TempVault): void {
  // As root, the child (nobody) cannot write root's folders; as anyone else, mode bits do it.
  openToEveryone(vault.root);
  if (!isRoot) lockAway(vault.paths.meta);
}

function lockAway(dir: string): void {
  locked.push(dir);
  makeUnwritable(dir);
}

function recallJson(f: Fixture, extra: string[] = []) {
  const run = runCliUnprivileged(
    ["recall", f.marker, "--vault", f.vault.root, "--json", ...extra],
    {
      env: { HOME: f.home },
    },
  );
  expect(run.signal).toBeNull();
  expect(run.stderr).not.toMatch(/\n\s+at /);
  // One JSON document, whatever happened.
  return { status: run.status, out: JSON.parse(run.stdout) as RecallJson };
}

interface RecallJson {
  ok: boolean;
  modeUsed: string;
  results: Array<{ id: string }>;
  diagnostics: Array<{ code: string; severity: string; repair?: string }>;
}

describe("recall from an index this user may not write", () => {
  it("answers lexically and writes nothing, explicit and automatic", async () => {
    const f = await vaultWithPages(true);
    asAnotherUsersIndex(f.vault);
    const before = snapshotFiles(f.vault.paths.meta);

    for (const extra of [[], ["--auto"], ["--mode", "hybrid"]]) {
      const { status, out } = recallJson(f, extra);
      expect(status, JSON.stringify(out)).toBe(0);
      expect(out.ok).toBe(true);
      expect(out.modeUsed).toBe("lexical");
      expect(out.results.map((r) => r.id)).toContain("concepts/target");
      expect(out.diagnostics).toContainEqual(
        expect.objectContaining({ code: "index_read_only", severity: "info" }),
      );
    }
    expect(snapshotFiles(f.vault.paths.meta)).toEqual(before);
  });

  it("with changed pages, answers from the index as it is, refreshing nothing", async () => {
    const f = await vaultWithPages(true);
    const added = randomWord(6, 12);
    f.vault.writePage(
      "concepts/late",
      pageText({ type: "concept", title: `Late ${randomWord(6, 12)}` }, `${added} ${f.marker}\n`),
    );
    asAnotherUsersIndex(f.vault);
    const before = snapshotFiles(f.vault.paths.meta);

    const { status, out } = recallJson(f);
    expect(status).toBe(0);
    expect(out.ok).toBe(true);
    expect(out.results.map((r) => r.id)).toEqual(["concepts/target"]);
    expect(out.diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(["index_read_only", "index_stale"]),
    );
    expect(snapshotFiles(f.vault.paths.meta)).toEqual(before);
  });

  it("reindex refuses with index_read_only and the repair, writing nothing", async () => {
    const f = await vaultWithPages(true);
    asAnotherUsersIndex(f.vault);
    const before = snapshotFiles(f.vault.paths.meta);
    const run = runCliUnprivileged(["reindex", "--vault", f.vault.root, "--json"], {
      env: { HOME: f.home },
    });
    expect(run.status).toBe(1);
    const out = JSON.parse(run.stdout) as { ok: boolean; reports: RecallJson[] };
    expect(out.ok).toBe(false);
    expect(out.reports[0]?.diagnostics).toContainEqual(
      expect.objectContaining({ code: "index_read_only", severity: "error" }),
    );
    expect(snapshotFiles(f.vault.paths.meta)).toEqual(before);
  });
});

describe("recall where no index can answer and none may be built", () => {
  it("prints one JSON document with ok false and a repair that works", async () => {
    const f = await vaultWithPages(false);
    mkdirSync(f.vault.paths.meta, { recursive: true });
    // The user's own vault, made read-only (`chmod -R a-w meta`): its owner can undo that.
    openToEveryone(f.vault.root);
    giveToUnprivileged(f.vault.root);
    lockAway(f.vault.paths.meta);

    const { status, out } = recallJson(f);
    expect(status).toBe(1);
    expect(out.ok).toBe(false);
    expect(out.results).toEqual([]);
    const readOnly = out.diagnostics.find((d) => d.code === "index_read_only");
    expect(readOnly).toMatchObject({ severity: "error", repair: expect.any(String) });
    // The only repair offered is the one that works here: no bare `llm-wiki reindex`.
    expect(out.diagnostics.filter((d) => d.repair !== undefined)).toEqual([readOnly]);

    // Follow the repair as the user would: `chmod …` in a shell, then `llm-wiki reindex …`.
    const [chmod, reindex] = (readOnly?.repair ?? "").split(" && ");
    expect(chmod).toMatch(/^chmod -R u\+w /);
    const shell = runAsUnprivileged("sh", ["-c", chmod ?? "false"], { env: { HOME: f.home } });
    expect(shell.status, shell.stderr).toBe(0);
    const args = (reindex ?? "").replace(/^llm-wiki /, "").split(" ");
    const rebuilt = runCliUnprivileged(args, { env: { HOME: f.home } });
    expect(rebuilt.status, rebuilt.stderr).toBe(0);

    const again = recallJson(f);
    expect(again.status).toBe(0);
    expect(again.out.ok).toBe(true);
    expect(again.out.results.map((r) => r.id)).toContain("concepts/target");
    expect(again.out.diagnostics.map((d) => d.code)).not.toContain("index_read_only");
  });

  it("(the harness) the child really cannot write a locked folder", () => {
    const f = makeTempVault();
    openToEveryone(f.root);
    lockAway(f.paths.dir);
    const probe = runAsUnprivileged("sh", ["-c", `: > '${f.paths.dir}/probe'`], {
      env: { HOME: unprivilegedHome() },
    });
    expect(probe.status).not.toBe(0);
    expect(existsSync(`${f.paths.dir}/probe`)).toBe(false);
  });
});
