/**
 * Guardrails in a real Pi session driven by the faux model: the agent's own
 * write, edit and bash tools cannot change a vault's `raw/` or `meta/`; the
 * refusal names the wiki tool to use instead, and nothing on disk changes.
 * Pages under `wiki/` stay writable.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import type {
  ExtensionContext,
  ToolCallEvent,
  ToolResultEvent,
} from "@earendil-works/pi-coding-agent";
import { beforeEach, describe, expect, it } from "vitest";
import { eventLogFiles } from "../extensions/llm-wiki/lib/vault/event-log-files.ts";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { createBashWatch } from "../extensions/llm-wiki/pi/bash-watch.ts";
import type { WikiHost } from "../extensions/llm-wiki/pi/wiki-host.ts";
import { cloneHome, runGit, runTeamCli, setUpTeam } from "../scripts/bench/team-sim.ts";
import { CLI } from "./helpers/cli.ts";
import { type PiHarness, piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, snapshotFiles, type TempVault } from "./helpers/temp-vault.ts";

const RAW_FILE = ".llm-wiki/raw/x.md";
const EVENTS = ".llm-wiki/meta/events.jsonl";
const EVENT_LINE = '{"ts":"2026-11-30T09:00:00.000Z","kind":"vault_initialized"}\n';

let vault: TempVault;
const fixture = piPerTest("llm-wiki-guard-");
const pi = (): Promise<PiHarness> => fixture.start();

beforeEach(() => {
  vault = makeTempVault({ root: fixture.dirs.project });
  mkdirSync(vault.paths.raw, { recursive: true });
  mkdirSync(vault.paths.meta, { recursive: true });
  writeFileSync(join(fixture.dirs.project, RAW_FILE), "captured, immutable\n");
  writeFileSync(join(fixture.dirs.project, EVENTS), EVENT_LINE);
});

/** raw/ and meta/events.jsonl as bytes: what the refused calls must leave alone. */
function protectedFiles(): Map<string, Buffer> {
  return new Map([
    ...snapshotFiles(vault.paths.raw),
    ["events", readFileSync(join(fixture.dirs.project, EVENTS))],
  ]);
}

describe("guardrails in a real Pi session", () => {
  it("refuses write into raw/ and edit of meta/events.jsonl, naming the tool to use; allows wiki/", async () => {
    const session = await pi();
    const before = protectedFiles();
    const page = "---\ntype: concept\ntitle: X\n---\n# X\n";
    session.script(
      [fauxToolCall("write", { path: RAW_FILE, content: "overwritten\n" })],
      [
        fauxToolCall("edit", {
          path: EVENTS,
          edits: [{ oldText: "vault_initialized", newText: "forged" }],
        }),
      ],
      [fauxToolCall("write", { path: ".llm-wiki/wiki/concepts/x.md", content: page })],
      "Done.",
    );
    await session.session.prompt("try the three writes");

    const [write, edit, allowed] = toolResults(session.session);
    expect(write).toMatchObject({ toolName: "write", isError: true });
    expect(write && textOf(write)).toContain("wiki_capture_source");
    expect(write && textOf(write)).toContain(RAW_FILE);
    expect(edit).toMatchObject({ toolName: "edit", isError: true });
    expect(edit && textOf(edit)).toContain("wiki_log_event");
    expect(edit && textOf(edit)).toContain("wiki_reindex");
    expect(protectedFiles()).toEqual(before);

    expect(allowed).toMatchObject({ toolName: "write", isError: false });
    expect(readFileSync(join(fixture.dirs.project, ".llm-wiki/wiki/concepts/x.md"), "utf8")).toBe(
      page,
    );
  });

  it("refuses a write through a symlink that leads into raw/", async () => {
    symlinkSync(vault.paths.raw, join(fixture.dirs.project, "notes"));
    const session = await pi();
    const before = protectedFiles();
    session.script([fauxToolCall("write", { path: "notes/y.md", content: "sneaky\n" })], "ok");
    await session.session.prompt("write through the link");

    const [result] = toolResults(session.session);
    expect(result).toMatchObject({ isError: true });
    expect(result && textOf(result)).toContain("wiki_capture_source");
    expect(existsSync(join(vault.paths.raw, "y.md"))).toBe(false);
    expect(protectedFiles()).toEqual(before);
  });

  it("refuses bash commands that obviously write into raw/ or meta/, and runs those that only read", async () => {
    writeFileSync(join(fixture.dirs.project, "notes.md"), "notes\n");
    const session = await pi();
    const before = protectedFiles();
    const refused = [
      `echo forged >> ${EVENTS}`,
      "rm -rf .llm-wiki/raw",
      "cp notes.md .llm-wiki/raw/",
      `sed -i 's/vault/forged/' ${EVENTS}`,
      'touch ".llm-wiki/meta/new file"',
      "mv .llm-wiki ../elsewhere",
    ];
    const allowed = [`cat ${EVENTS} > copy.txt`, "ls .llm-wiki/raw 2>&1"];
    session.script(
      ...[...refused, ...allowed].map((command) => [fauxToolCall("bash", { command })]),
      "ok",
    );
    await session.session.prompt("run the commands");

    const results = toolResults(session.session);
    const text = (i: number) => {
      const result = results.at(i);
      return result ? textOf(result) : "";
    };
    expect(results).toHaveLength(refused.length + allowed.length);
    for (const result of results.slice(0, refused.length)) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/wiki_log_event|wiki_capture_source/);
    }
    expect(text(0)).toContain("wiki_log_event");
    expect(text(1)).toContain("wiki_capture_source");
    expect(protectedFiles()).toEqual(before);
    expect(existsSync(join(fixture.dirs.project, ".llm-wiki"))).toBe(true);

    // Reading is not writing: these ran.
    expect(results.slice(refused.length).map((r) => r.isError)).toEqual([false, false]);
    expect(readFileSync(join(fixture.dirs.project, "copy.txt"), "utf8")).toBe(EVENT_LINE);
    expect(text(-1)).toContain("x.md");
  });

  it("reports a bash command that slipped past the guard and changed raw/ or rewrote the event log", async () => {
    // An interpreter writing files is not something the command-line heuristic can see.
    const node = JSON.stringify(process.execPath);
    const script = (code: string) => `${node} -e ${JSON.stringify(code)}`;
    const session = await pi();
    session.script(
      [
        fauxToolCall("bash", {
          command: script(`require("fs").writeFileSync("${RAW_FILE}", "forged")`),
        }),
      ],
      [
        fauxToolCall("bash", {
          command: script(`require("fs").writeFileSync("${EVENTS}", "{}\\n")`),
        }),
      ],
      [
        fauxToolCall("bash", {
          command: script(`require("fs").appendFileSync("${EVENTS}", "{}\\n")`),
        }),
      ],
      [fauxToolCall("bash", { command: "ls .llm-wiki/raw" })],
      "ok",
    );
    await session.session.prompt("run the scripts");

    const results = toolResults(session.session);
    expect(results).toHaveLength(4);
    const [rawChange, logRewrite, logAppend, listing] = results.map((r) => textOf(r));
    expect(rawChange).toContain(".llm-wiki/raw/x.md was changed");
    expect(logRewrite).toContain(".llm-wiki/meta/events.jsonl was rewritten");
    // Appending keeps every earlier event: nothing to report.
    expect(logAppend).not.toContain("llm-wiki:");
    expect(listing).not.toContain("llm-wiki:");
    expect(session.notices.filter((n) => n.type === "warning").map((n) => n.message)).toEqual([
      expect.stringContaining("raw/x.md was changed"),
      expect.stringContaining("events.jsonl was rewritten"),
    ]);
  });
});

describe("the bash watch, call by call", () => {
  const host = (paths: TempVault["paths"]) =>
    ({ service: () => ({ resolveVaults: () => [paths] }) }) as unknown as WikiHost;
  const ctx = { ui: { notify() {} } } as unknown as ExtensionContext;
  const call = (id: string) =>
    ({ type: "tool_call", toolName: "bash", toolCallId: id, input: {} }) as ToolCallEvent;
  const result = (id: string) =>
    ({
      type: "tool_result",
      toolName: "bash",
      toolCallId: id,
      content: [],
    }) as unknown as ToolResultEvent;

  it("checks a log it remembers from the last call, and forgets calls whose result never came", () => {
    const v = makeTempVault();
    mkdirSync(v.paths.meta, { recursive: true });
    writeFileSync(v.paths.events, EVENT_LINE);
    const watch = createBashWatch(host(v.paths));

    // Appended: kept, and remembered whole for the next call.
    watch.onToolCall(call("1"), ctx);
    appendFileSync(v.paths.events, EVENT_LINE);
    expect(watch.onToolResult(result("1"), ctx)).toBeUndefined();

    // Rewritten to the same size: still caught against the remembered log.
    watch.onToolCall(call("2"), ctx);
    writeFileSync(v.paths.events, EVENT_LINE.replace("vault", "VAULT").repeat(2));
    utimesSync(v.paths.events, new Date(), new Date(Date.now() + 5_000));
    expect(JSON.stringify(watch.onToolResult(result("2"), ctx))).toContain(
      "meta/events.jsonl was rewritten",
    );

    // A call whose result never comes is dropped when the run ends.
    watch.onToolCall(call("3"), ctx);
    writeFileSync(v.paths.events, "{}\n");
    watch.onAgentEnd();
    expect(watch.onToolResult(result("3"), ctx)).toBeUndefined();
  });

  it("lets git bring the log and raw/ to another commit, and still reports a change git did not make", () => {
    const root = makeTempDir();
    const { clones } = setUpTeam(root, 2, CLI);
    const [mine, theirs] = clones as [string, string];
    const home = join(root, "home");
    const paths = vaultPaths(mine, "project");
    // A teammate's merge puts their events before lines this clone already has.
    runTeamCli(CLI, theirs, cloneHome(root, 1), ["capture", "--text", randomWords(8)]);
    runTeamCli(CLI, mine, cloneHome(root, 0), [
      "observe",
      "--title",
      randomWord(),
      "--content",
      "x",
    ]);
    runGit(mine, home, ["add", "-A"]);
    runGit(mine, home, ["commit", "-q", "-m", "mine"]);
    runGit(mine, home, ["push", "-q", "origin", "HEAD:main"]);
    runGit(theirs, home, ["add", "-A"]);
    runGit(theirs, home, ["commit", "-q", "-m", "theirs"]);
    runGit(theirs, home, ["pull", "-q", "--no-edit", "origin", "main"]);
    runGit(theirs, home, ["push", "-q", "origin", "HEAD:main"]);
    const watch = createBashWatch(host(paths));

    // `git pull` (a fast-forward to the teammate's merge): nothing to report.
    watch.onToolCall(call("pull"), ctx);
    runGit(mine, home, ["pull", "-q", "--no-edit", "origin", "main"]);
    expect(watch.onToolResult(result("pull"), ctx)).toBeUndefined();

    // `git checkout` of the older commit takes their packet away: git's doing too.
    watch.onToolCall(call("back"), ctx);
    runGit(mine, home, ["checkout", "-q", "HEAD~1"]);
    expect(watch.onToolResult(result("back"), ctx)).toBeUndefined();

    // A rewrite in the same call as a checkout is still reported.
    runGit(mine, home, ["checkout", "-q", "main"]);
    watch.onToolCall(call("both"), ctx);
    runGit(mine, home, ["checkout", "-q", "HEAD~1"]);
    // In git, the log is each clone's own files: the one `init` began.
    const log = eventLogFiles(paths)[0] as string;
    writeFileSync(log, "{}\n");
    expect(JSON.stringify(watch.onToolResult(result("both"), ctx))).toContain(
      `${relative(mine, log)} was rewritten`,
    );
  });
});
