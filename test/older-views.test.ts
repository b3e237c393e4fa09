/**
 * Our `rebuild-meta` and `@zosmaai/pi-llm-wiki` 0.12.2's (its own
 * `rebuildMetadata`, imported from the installed package) on one vault:
 * both write meta/index.md, meta/log.md, wiki/index.md, each folder's
 * index.md and wiki/log.md, each in its own shape. Where the older system
 * keeps the vault too (its meta/registry.json is there), ours leaves those
 * views as it wrote them and says so, so running one after the other, in
 * either order and again, never flips wiki/index.md back and forth; our own
 * lint report is still written. Page words are fresh each run.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, pageText, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const OLD_LIB = "@zosmaai/pi-llm-wiki/dist/extensions/llm-wiki/lib";

/** The shared views as they are now (meta/index.md aside: the older one dates itself). */
function sharedViews(dot: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [rel, bytes] of snapshotFiles(dot)) {
    const shared =
      rel === "meta/log.md" ||
      (rel.startsWith("wiki/") && (rel === "wiki/log.md" || rel.endsWith("/index.md")));
    if (shared) out.set(rel, bytes);
  }
  return out;
}

describe("rebuild-meta beside the older system's", () => {
  it("leaves the views it also writes as it wrote them, so neither order flips wiki/index.md", async () => {
    const root = makeTempDir("llm-wiki-older-views-");
    const env = { HOME: makeTempDir("llm-wiki-older-views-home-") };
    const cli = (...args: string[]) => runCli(args, { cwd: root, env });
    expect(cli("init", "--name", randomWords(2)).status).toBe(0);
    const dot = join(root, ".llm-wiki");
    const word = randomWord();
    mkdirSync(join(dot, "wiki", "concepts"), { recursive: true });
    writeFileSync(
      join(dot, "wiki", "concepts", `${word}.md`),
      pageText({ type: "concept", title: word }, `${randomWords(10)}\n`),
    );
    cli("log-event", "note_taken", "--detail", JSON.stringify({ source_id: `SRC-${word}` }));

    const metadata = (await import(`${OLD_LIB}/metadata.js`)) as {
      rebuildMetadata(paths: unknown): { ok: boolean };
    };
    const utils = (await import(`${OLD_LIB}/utils.js`)) as {
      resolveVaultPaths(cwd: string): unknown;
    };
    const theirs = () =>
      expect(metadata.rebuildMetadata(utils.resolveVaultPaths(root)).ok).toBe(true);

    // Ours first, on a vault the older system never touched: ours writes the views.
    expect(cli("rebuild-meta").status).toBe(0);
    const oursFirst = sharedViews(dot);
    expect(oursFirst.has("wiki/index.md")).toBe(true);

    // Then theirs, then ours: ours leaves what theirs wrote, byte for byte.
    theirs();
    const afterTheirs = sharedViews(dot);
    expect(afterTheirs.get("wiki/index.md")).not.toEqual(oursFirst.get("wiki/index.md"));
    const lintReport = join(dot, "meta", "lint-report.md");
    writeFileSync(lintReport, "stale\n");
    const ours = cli("rebuild-meta", "--json");
    expect(ours.status).toBe(0);
    const result = JSON.parse(ours.stdout) as { diagnostics: Array<{ code: string }> };
    expect(result.diagnostics.map((d) => d.code)).toContain("views_left_to_older_system");
    expect(sharedViews(dot)).toEqual(afterTheirs);
    // The view only ours writes is still ours to write.
    expect(readFileSync(lintReport, "utf8")).not.toBe("stale\n");

    // And again in both orders: nothing flips.
    theirs();
    const again = sharedViews(dot);
    expect(cli("rebuild-meta").status).toBe(0);
    expect(sharedViews(dot)).toEqual(again);
  });
});
