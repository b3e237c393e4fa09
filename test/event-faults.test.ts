/**
 * All or nothing under faults (issue 22, section 4). Once a page or a
 * packet is on disk it is the record; the event in `meta/events.jsonl` is
 * only its trace. So a write whose event cannot be appended (the log made
 * unwritable: here a folder where the file should be, which stops root as
 * surely as anyone) is reported as done, with an `event_not_recorded`
 * warning, never as `write_failed` with the page left behind for a retry to
 * meet as `page_exists`.
 *
 * A last line torn by a full disk is never joined to the next event: the
 * next append starts on a fresh line, the earlier bytes stay as they were
 * (the log is never rewritten), and `recent` says how many lines it could
 * not read instead of losing the event after the torn one.
 */
import { randomInt } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterAll(removeTempDirs);

interface Json {
  ok: boolean;
  id?: string;
  page?: string;
  created?: boolean;
  diagnostics: Array<{ code: string; severity: string; message: string }>;
}

/** A vault whose event log cannot be appended to: a folder stands where the file goes. */
function vaultWithUnwritableLog() {
  const vault = makeTempVault();
  mkdirSync(vault.paths.events, { recursive: true });
  return vault;
}

function codes(out: Json): string[] {
  return out.diagnostics.map((d) => d.code);
}

/** The host-facing writers of the CLI, each with fresh random input. */
const WRITERS: Array<{ name: string; args: () => string[]; folder: string }> = [
  {
    name: "page",
    folder: "concepts",
    args: () => [
      "page",
      "--type",
      "concept",
      "--title",
      `Concept ${randomWords(3)}`,
      "--content",
      randomWords(20),
    ],
  },
  {
    name: "observe",
    folder: "sources",
    args: () => ["observe", "--title", `Seen ${randomWords(3)}`, "--content", randomWords(20)],
  },
  {
    name: "retro",
    folder: "sources",
    args: () => ["retro", "--title", `Retro ${randomWords(3)}`, "--lesson", randomWords(8)],
  },
  {
    name: "capture",
    folder: "sources",
    args: () => ["capture", "--text", `# ${randomWords(3)}\n\n${randomWords(40)}\n`],
  },
];

function pagesIn(root: string, folder: string): string[] {
  const dir = join(root, ".llm-wiki", "wiki", folder);
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe("a write whose event cannot be recorded", () => {
  for (const writer of WRITERS) {
    it(`${writer.name}: is reported done with event_not_recorded, and a retry finds it`, () => {
      const vault = vaultWithUnwritableLog();
      const env = childEnv();
      const args = writer.args();
      const run = runCli([...args, "--json"], { cwd: vault.root, env });
      expect(run.status).toBe(0);
      const out = JSON.parse(run.stdout) as Json;
      expect(out.ok).toBe(true);
      expect(out.diagnostics).toContainEqual(
        expect.objectContaining({ code: "event_not_recorded", severity: "warning" }),
      );
      expect(codes(out)).not.toContain("write_failed");
      const written = pagesIn(vault.root, writer.folder);
      expect(written).toHaveLength(1);
      if (writer.name === "capture") {
        expect(readdirSync(join(vault.paths.raw, "sources"))).toHaveLength(1);
        return;
      }
      // The same call again: the page it made, recognised and left alone.
      const again = JSON.parse(
        runCli([...args, "--json"], { cwd: vault.root, env }).stdout,
      ) as Json;
      expect(again.ok).toBe(true);
      expect(codes(again)).toContain("page_exists");
      expect(pagesIn(vault.root, writer.folder)).toEqual(written);
    });
  }
});

/** A random prefix of a JSON event line: what a full disk leaves of an append. */
function tornLine(): string {
  const whole = JSON.stringify({
    ts: new Date(Date.UTC(2020, 0, randomInt(1, 28))).toISOString(),
    kind: "page_created",
    id: `concepts/${randomWord(5, 12)}`,
    note: randomWords(6),
  });
  return whole.slice(0, randomInt(1, whole.length - 1));
}

describe("a torn last line in the event log", () => {
  it("is never joined to the next event, never rewritten, and is reported by recent", () => {
    const vault = makeTempVault();
    mkdirSync(vault.paths.meta, { recursive: true });
    const earlier = Array.from({ length: randomInt(0, 4) }, () =>
      JSON.stringify({ ts: new Date().toISOString(), kind: "page_created", id: "concepts/x" }),
    );
    const before = `${earlier.map((l) => `${l}\n`).join("")}${tornLine()}`;
    writeFileSync(vault.paths.events, before);
    const env = childEnv();
    const title = `Seen ${randomWords(3)}`;
    const run = runCli(["observe", "--title", title, "--content", randomWords(12), "--json"], {
      cwd: vault.root,
      env,
    });
    expect(run.status).toBe(0);

    const after = readFileSync(vault.paths.events, "utf8");
    // Appended to, never rewritten: the torn bytes are still there, alone on their line.
    expect(after.startsWith(before)).toBe(true);
    const added = after.slice(before.length);
    expect(added.startsWith("\n")).toBe(true);
    const newLines = added.slice(1).split("\n").filter(Boolean);
    const kinds = newLines.map((l) => (JSON.parse(l) as { kind: string }).kind);
    expect(kinds).toEqual(["page_created", "observation_recorded"]);

    const recent = JSON.parse(
      runCli(["recent", "--json"], { cwd: vault.root, env }).stdout,
    ) as Json & { entries: Array<{ kind: string; title?: string }> };
    expect(recent.ok).toBe(true);
    expect(recent.entries).toContainEqual(
      expect.objectContaining({ kind: "observation_recorded", title }),
    );
    const warning = recent.diagnostics.find((d) => d.code === "event_log_malformed");
    expect(warning?.message).toMatch(/^1 line\(s\)/);
  });
});
