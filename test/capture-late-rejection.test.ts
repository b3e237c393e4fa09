/**
 * No rejection escapes: a small PDF (about 75 KB) whose 300 pages share one
 * 8 MiB content stream of drawing operators takes longer to read than
 * `capture_pdf_timeout` allows; once the read is abandoned, pdf.js rejects
 * inside its own code. Through the real MCP server and the real CLI (both
 * child processes, run side by side): the capture answers
 * `capture_pdf_timeout` as a normal error, the late rejection is one
 * structured `unhandled_rejection` warning on stderr, never a crash or a
 * stack, and the server still answers afterwards. The PDF is generated here.
 *
 * Both processes run with a 3 s deadline (`LLM_WIKI_CAPTURE_PDF_TIMEOUT_MS`,
 * honoured only under `LLM_WIKI_TEST`) instead of the users' 30 s: what
 * happens once a read is abandoned does not depend on how long it ran, and
 * the PDF takes over 30 s to read, so it still outlasts the deadline.
 */
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runCliAsync } from "./helpers/cli.ts";
import {
  initializeRequest,
  isolatedEnv,
  type RawServer,
  spawnRawServer,
  type WireMessage,
} from "./helpers/mcp-child.ts";
import { pdfFile } from "./helpers/pdf-file.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

const started: RawServer[] = [];
afterEach(() => {
  for (const s of started.splice(0)) if (s.child.exitCode === null) s.child.kill("SIGKILL");
});
afterAll(removeTempDirs);

/** Hang guard for a read that runs into the capture deadline on a busy machine; not a timing assertion. */
const GUARD_MS = 240_000;
/** The deadline both processes read the PDF under (see the header). */
const DEADLINE = { LLM_WIKI_TEST: "1", LLM_WIKI_CAPTURE_PDF_TIMEOUT_MS: "3000" };

/**
 * `pages` pages whose `/Contents` are one shared Flate stream of
 * `streamBytes` bytes: a line of text, then drawing operators (slow to
 * interpret, no text to run into the text limit first).
 */
function sharedStreamPdf(pages: number, streamBytes: number): Buffer {
  const x = randomInt(1, 500);
  // One line of text per page: on a fast machine a line repeated through
  // the stream ran into the capture's text limit before its deadline.
  const text = `BT /F1 12 Tf 72 720 Td (Slow ${x}) Tj ET\n`;
  const op = `1 0 0 1 0 0 cm ${x} 0 m 1 1 l S\n`.repeat(50);
  const raw = Buffer.from(text + op.repeat(Math.ceil(streamBytes / op.length)), "latin1");
  const data = deflateSync(raw, { level: 9 });
  const first = 3;
  const content = first + pages;
  const font = content + 1;
  const kids = Array.from({ length: pages }, (_, i) => `${first + i} 0 R`).join(" ");
  return pdfFile([
    ["<< /Type /Catalog /Pages 2 0 R >>"],
    [`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`],
    ...Array.from({ length: pages }, () => [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`,
    ]),
    [`<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, data, "\nendstream"],
    ["<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"],
  ]);
}

const answered = (id: string) => (messages: WireMessage[]) => messages.some((m) => m.id === id);
const resultOf = (messages: WireMessage[], id: string) => messages.find((m) => m.id === id);

describe("a PDF read abandoned at its deadline: no rejection escapes", () => {
  it("the MCP server answers capture_pdf_timeout and keeps answering (a late rejection is a structured warning); the CLI exits with the error, no crash", {
    timeout: GUARD_MS * 2,
  }, async () => {
    const vault = makeTempVault();
    const pdf = sharedStreamPdf(300, 8 * 1024 * 1024);
    expect(pdf.length).toBeLessThan(120 * 1024);
    const file = join(vault.root, `slow-${randomInt(1e6)}.pdf`);
    writeFileSync(file, pdf);

    const home = makeTempDir("llm-wiki-late-rejection-home-");
    const cli = runCliAsync(["capture", "--file", file, "--json", "--vault", vault.root], {
      cwd: vault.root,
      env: { HOME: home, WIKI_HOME: home, ...DEADLINE },
      timeout: GUARD_MS,
    });

    const server = spawnRawServer(vault.root, { ...isolatedEnv(), ...DEADLINE });
    started.push(server);
    await server.send(initializeRequest("init"));
    await server.waitFor(answered("init"));
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await server.send({
      jsonrpc: "2.0",
      id: "capture",
      method: "tools/call",
      params: { name: "wiki_capture_source", arguments: { file } },
    });
    await server.waitFor(answered("capture"), GUARD_MS);
    const capture = resultOf(server.messages, "capture")?.result as
      | { isError?: boolean; content?: Array<{ text?: string }> }
      | undefined;
    expect(capture?.isError).toBe(true);
    expect(JSON.stringify(capture)).toContain("capture_pdf_timeout");
    expect(JSON.stringify(capture)).toContain("longer than 3000 ms");
    // The CLI's read of the same PDF ends when its own abandoned work has settled;
    // by then the server's has too, and it still answers.
    const run = await cli;
    await server.send({
      jsonrpc: "2.0",
      id: "status",
      method: "tools/call",
      params: { name: "wiki_status", arguments: {} },
    });
    await server.waitFor(answered("status"), GUARD_MS);
    expect(resultOf(server.messages, "status")?.result).toBeDefined();
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr()).not.toContain("UnhandledPromiseRejection");
    // A late rejection, when pdf.js makes one, is a structured warning line.
    for (const line of server
      .stderr()
      .split("\n")
      .filter((l) => l.includes("unhandled_rejection"))) {
      const doc = JSON.parse(line.replace(/^llm-wiki-mcp: /, "")) as Record<string, unknown>;
      expect(doc).toMatchObject({ code: "unhandled_rejection", severity: "warning" });
    }

    expect(run.status, run.stderr).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toContain("capture_pdf_timeout");
    expect(`${run.stdout}${run.stderr}`).toContain("longer than 3000 ms");
    expect(run.stderr).not.toContain("UnhandledPromiseRejection");
    expect(run.stderr).not.toMatch(/node:internal|\n\s+at /);
  });

  it("a host's handler turns any unhandled rejection into one structured warning and the process goes on", () => {
    const dir = makeTempDir("llm-wiki-late-rejection-script-");
    const script = join(dir, "late.ts");
    const handler = join(
      import.meta.dirname,
      "..",
      "extensions",
      "llm-wiki",
      "lib",
      "late-rejections.ts",
    );
    const word = `late-${randomInt(1e9)}`;
    writeFileSync(
      script,
      [
        `import { reportUnhandledRejections } from ${JSON.stringify(handler)};`,
        `reportUnhandledRejections((line) => process.stderr.write(\`host: \${line}\\n\`));`,
        `Promise.reject(new Error(${JSON.stringify(`${word}\u001b[31m`)}));`,
        "setTimeout(() => process.stdout.write('still here'), 50);",
      ].join("\n"),
    );
    const run = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe("still here");
    const line = run.stderr.split("\n").find((l) => l.startsWith("host: ")) ?? "";
    const doc = JSON.parse(line.slice("host: ".length)) as { code: string; message: string };
    expect(doc.code).toBe("unhandled_rejection");
    expect(doc.message).toContain(word);
    expect(doc.message).not.toContain("\u001b");
  });
});
