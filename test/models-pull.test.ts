/**
 * `llm-wiki models pull`, the only command that downloads: run as a child
 * process against a local stand-in for Hugging Face (`HF_ENDPOINT`), serving
 * the tiny test GGUF, a 404, a stall, an HTML page and a split model. The
 * CLI is the bundle the package ships (test/helpers/cli.ts): it starts about
 * three times faster than the TypeScript sources, and this file starts it a
 * dozen times.
 */

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTestModels } from "../scripts/generate-test-models.ts";
import { CLI } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

let gguf: Buffer;
let server: Server;
let endpoint = "";
const requests: string[] = [];

beforeAll(async () => {
  gguf = readFileSync((await ensureTestModels()).embed);
  server = createServer((req, res) => {
    const url = req.url ?? "";
    requests.push(url);
    if (/\/resolve\/main\/(tiny|big-0000[12]-of-00002)\.gguf$/.test(url)) {
      res.writeHead(200, { "content-length": gguf.length });
      res.end(gguf);
    } else if (url.endsWith("/stall.gguf")) {
      res.writeHead(200, { "content-length": gguf.length });
      res.write(gguf.subarray(0, 16)); // then nothing more
    } else if (url.endsWith("/page.gguf")) {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><html><body>Sign in</body></html>");
    } else {
      res.writeHead(404);
      res.end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  removeTempDirs();
});

/** A fresh cache and the given embed model; the other roles point at local files. */
function envFor(embed: string, cache = makeTempDir("llm-wiki-pull-cache-")) {
  return {
    cache,
    env: childEnv({
      XDG_CACHE_HOME: cache,
      HF_ENDPOINT: endpoint,
      QMD_EMBED_MODEL: embed,
    }),
  };
}

/** Runs the CLI without blocking: the stand-in server answers from this process. */
function run(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, cwd: makeTempDir() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function modelFiles(cache: string): string[] {
  const dir = join(cache, "qmd", "models");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

describe("llm-wiki models pull", () => {
  it("downloads a missing hf: model into QMD's cache, where availability then finds it", async () => {
    const { cache, env } = envFor("hf:org/repo/tiny.gguf");
    expect(JSON.parse((await run(["models", "--json"], env)).stdout).models[0]).toMatchObject({
      role: "embed",
      available: false,
      repair: expect.stringContaining("llm-wiki models pull --role embed"),
    });
    const pulled = await run(["models", "pull", "--role", "embed", "--json"], env);
    expect(pulled.code).toBe(0);
    const [result] = JSON.parse(pulled.stdout).models;
    expect(result).toMatchObject({ role: "embed", status: "downloaded", bytes: gguf.length });
    // The same bytes, compared by digest: a deep equality walks the 2 MB byte by byte (16 s).
    expect(sha256(readFileSync(result.path))).toBe(sha256(gguf));
    expect(modelFiles(cache)).toEqual(["hf_org_repo_tiny.gguf"]);
    const status = JSON.parse((await run(["models", "--json"], env)).stdout).models[0];
    expect(status).toMatchObject({ available: true, path: result.path });

    const seen = requests.length;
    const again = await run(["models", "pull", "--role", "embed", "--json"], env);
    expect(JSON.parse(again.stdout).models[0].status).toBe("present");
    expect(requests.length).toBe(seen);
  }, 180_000);

  it("fetches every part of a split model", async () => {
    const { cache, env } = envFor("hf:org/repo/big-00001-of-00002.gguf");
    const pulled = await run(["models", "pull", "--role", "embed"], env);
    expect(pulled.code).toBe(0);
    expect(modelFiles(cache)).toEqual([
      "hf_org_repo_big-00001-of-00002.gguf",
      "hf_org_repo_big-00002-of-00002.gguf",
    ]);
  });

  it.each([
    ["a missing file", "hf:org/repo/missing.gguf", [], /HTTP 404/],
    ["an HTML page instead of a model", "hf:org/repo/page.gguf", [], /not a GGUF file/],
    [
      "a download that stalls",
      "hf:org/repo/stall.gguf",
      ["--stall-timeout", "1"],
      /no data for 1 s/,
    ],
  ])("fails cleanly on %s and leaves nothing in the cache", async (_name, uri, extra, reason) => {
    const { cache, env } = envFor(uri);
    const pulled = await run(["models", "pull", "--role", "embed", ...extra], env);
    expect(pulled.code).toBe(1);
    expect(pulled.stderr).toMatch(reason);
    expect(pulled.stdout).toMatch(/embed\s+failed/);
    expect(modelFiles(cache)).toEqual([]);
  });

  it("reports local files as they are and never downloads a URI it cannot name one file for", async () => {
    const { env } = envFor("hf:org/repo:Q4_K_M");
    const local = await run(["models", "pull", "--json"], {
      ...env,
      QMD_RERANK_MODEL: join(makeTempDir(), "absent.gguf"),
    });
    expect(local.code).toBe(1);
    const byRole = Object.fromEntries(
      JSON.parse(local.stdout).models.map((m: { role: string }) => [m.role, m]),
    );
    expect(byRole.embed).toMatchObject({ status: "not-pullable" });
    expect(byRole.rerank).toMatchObject({ status: "not-pullable" });
    expect(byRole.rerank.reason).toMatch(/file not found/);
    expect(byRole.generate.status).toBe("present");
    expect((await run(["models", "pull", "--role", "everything"], env)).code).toBe(2);
  });

  it("stops on Ctrl-C with exit code 130 and removes the partial file", async () => {
    const { cache, env } = envFor("hf:org/repo/stall.gguf");
    const child = spawn(process.execPath, [CLI, "models", "pull", "--role", "embed"], {
      env,
      cwd: makeTempDir(),
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const part = () => modelFiles(cache).some((f) => f.endsWith(".part"));
    const deadline = Date.now() + 120_000;
    while (!part() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(part()).toBe(true);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(modelFiles(cache)).toEqual([]);
  });

  it('offline, says what failed and what to do instead of only "fetch failed"', async () => {
    // A port with nothing listening: the request fails before any answer, as offline.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { cache, env } = envFor("hf:org/repo/tiny.gguf");
    const out = await run(["models", "pull", "--role", "embed", "--json"], {
      ...env,
      HF_ENDPOINT: `http://127.0.0.1:${port}`,
    });
    expect(out.code).toBe(1);
    const [model] = (JSON.parse(out.stdout) as { models: Array<{ reason?: string }> }).models;
    expect(model?.reason).toContain(`cannot download from 127.0.0.1:${port}`);
    expect(model?.reason).toContain("ECONNREFUSED");
    expect(model?.reason).not.toContain("fetch failed");
    expect(out.stderr).toContain("HF_ENDPOINT");
    expect(out.stderr).toContain(join(cache, "qmd", "models"));
  });
});
