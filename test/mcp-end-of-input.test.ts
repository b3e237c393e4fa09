/**
 * A client that pipes its requests into the MCP server and closes its end,
 * as scripts and CI do (`printf … | llm-wiki-mcp`): the server reads nothing
 * more, but answers every request it has read before it exits, with exit
 * code 0. A call still running when the grace ends answers that it was
 * cancelled; none is left silent. The server is the real bin, a child
 * process whose standard input is a file (all the input and its end arrive
 * at once) or a pipe closed right after the last request. Exit is awaited
 * under a hang guard; no time is asserted.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import {
  initializeRequest,
  isolatedEnv,
  responseTo,
  type WireMessage,
} from "./helpers/mcp-child.ts";
import { randomWord } from "./helpers/random-text.ts";
import { copyExampleVault, makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
/** The installed command `llm-wiki-mcp`: the Node check, then the server. */
const BIN = join(REPO, "bin", "llm-wiki-mcp.js");
/** Fails a test whose server does not exit; generous, since the machine is shared. */
const EXIT_GUARD_MS = 60_000;

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});
afterAll(removeTempDirs);

interface Ended {
  code: number | string;
  messages: WireMessage[];
  stderr: string;
}

/**
 * Runs the server on `vault` with `lines` as its whole input, then its end:
 * from a file (`stdin: "file"`, as `llm-wiki-mcp < requests.jsonl`) or
 * written to a pipe that is closed at once. Resolves once it has exited.
 */
function runPiped(vault: string, lines: string[], stdin: "file" | "pipe"): Promise<Ended> {
  const input = lines.map((l) => `${l}\n`).join("");
  let fd: number | undefined;
  if (stdin === "file") {
    const file = join(makeTempDir("llm-wiki-eoi-input-"), "requests.jsonl");
    writeFileSync(file, input);
    fd = openSync(file, "r");
  }
  const child = spawn(process.execPath, [BIN, "--vault", vault], {
    cwd: REPO,
    env: isolatedEnv(),
    stdio: [fd ?? "pipe", "pipe", "pipe"],
  }) as ChildProcessWithoutNullStreams;
  if (fd !== undefined) closeSync(fd);
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  if (stdin === "pipe") {
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  }
  return new Promise((resolve, reject) => {
    const guard = setTimeout(
      () => reject(new Error(`hang guard: the server did not exit; stderr: ${stderr}`)),
      EXIT_GUARD_MS,
    );
    child.once("close", (code, signal) => {
      clearTimeout(guard);
      // Every line the server writes is protocol: one that does not parse fails here.
      const messages = stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as WireMessage);
      resolve({ code: code ?? signal ?? "unknown", messages, stderr });
    });
  });
}

function request(id: string, method: string, params?: object): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
}

function toolCall(id: string, name: string, args: object): string {
  return request(id, "tools/call", { name, arguments: args });
}

const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });

/** The text of a tool call's answer. */
function textOf(message: WireMessage): string {
  const content = message.result?.content as Array<{ type: string; text?: string }> | undefined;
  return (content ?? []).map((c) => c.text ?? "").join("\n");
}

/** Each id answered exactly once. */
function expectEachAnsweredOnce(messages: WireMessage[], ids: string[]): void {
  for (const id of ids) {
    const answers = messages.filter((m) => m.id === id && (m.result || m.error));
    expect(answers, `answers to ${id}`).toHaveLength(1);
  }
}

/** A tool call's answer: its own result, or an error result saying it was cancelled; never silence. */
function expectToolAnswer(message: WireMessage, name: string): void {
  expect(message.result, `${name}: ${JSON.stringify(message)}`).toBeDefined();
  const text = textOf(message);
  expect(text.length, name).toBeGreaterThan(0);
  if (message.result?.isError === true) expect(text, name).toMatch(/cancelled/);
}

describe("MCP server: the end of input", () => {
  it("answers a wiki_recall read just before its input ended, then exits 0", async () => {
    const vault = copyExampleVault(join(makeTempDir("llm-wiki-eoi-"), "acme-notes"));
    const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
    try {
      expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    } finally {
      await service.close();
    }
    for (const stdin of ["file", "pipe"] as const) {
      const ended = await runPiped(
        vault,
        [
          JSON.stringify(initializeRequest("init")),
          INITIALIZED,
          request("list", "tools/list"),
          toolCall("recall", "wiki_recall", { query: "how do we keep the cache consistent" }),
        ],
        stdin,
      );
      expect(ended.code, ended.stderr).toBe(0);
      expectEachAnsweredOnce(ended.messages, ["init", "list", "recall"]);
      const recall = responseTo(ended.messages, "recall");
      expectToolAnswer(recall, `wiki_recall (${stdin})`);
      // Answered by the recall itself, unless the machine was too slow for the grace.
      if (recall.result?.isError !== true) expect(textOf(recall)).toContain("concepts/");
      expect(ended.stderr).toContain("standard input closed; stopping");
      expect(ended.stderr).not.toMatch(/did not finish within|Error:|at \S+:\d+:\d+/);
    }
  });

  it("answers every request of a queue piped in at once, slow calls included, then exits 0", async () => {
    // No index yet: the first recalls wait for the background build, as in a fresh checkout.
    const vault = copyExampleVault(join(makeTempDir("llm-wiki-eoi-queue-"), "acme-notes"));
    const calls: Array<[string, string, object]> = [
      ["recall-0", "wiki_recall", { query: "how do we keep the cache consistent" }],
      ["search", "wiki_search", { query: "cache" }],
      ["status", "wiki_status", {}],
      ["lint", "wiki_lint", {}],
      ["recent", "wiki_recent", {}],
      ["reindex", "wiki_reindex", { scope: "all", force: true }],
      ["recall-1", "wiki_recall", { query: `${randomWord()} sync conflicts` }],
      [
        "capture",
        "wiki_capture_source",
        { text: `${randomWord()} ${randomWord()} notes about the cache`, title: randomWord() },
      ],
      ["prime", "wiki_prime", {}],
      ["recall-2", "wiki_recall", { query: "what broke last time" }],
    ];
    const lines = [
      JSON.stringify(initializeRequest("init")),
      INITIALIZED,
      request("list", "tools/list"),
      ...calls.map(([id, name, args]) => toolCall(id, name, args)),
      request("ping", "ping"),
      request("prompts", "prompts/list"),
      // Refused ones are answered too: an unknown tool and arguments of the wrong shape.
      toolCall("unknown", `wiki_${randomWord()}`, {}),
      toolCall("invalid", "wiki_recall", { max_results: 0 }),
    ];
    const ended = await runPiped(vault, lines, "pipe");
    expect(ended.code, ended.stderr).toBe(0);
    expectEachAnsweredOnce(ended.messages, [
      "init",
      "list",
      ...calls.map(([id]) => id),
      "ping",
      "prompts",
      "unknown",
      "invalid",
    ]);
    for (const [id, name] of calls) expectToolAnswer(responseTo(ended.messages, id), name);
    expect(responseTo(ended.messages, "unknown").error?.code).toBe(-32602);
    // Arguments are checked when the call starts: one the grace left unstarted says it was cancelled.
    const invalid = responseTo(ended.messages, "invalid");
    if (invalid.error) expect(invalid.error.code).toBe(-32602);
    else expectToolAnswer(invalid, "wiki_recall with invalid arguments");
    expect(ended.stderr).not.toMatch(/did not finish within|Error:|at \S+:\d+:\d+/);
  });
});
