/**
 * The bundled bins leave out the MCP SDK server's Ajv provider
 * (scripts/build-sdk-validator.ts): a server built as the bins are, given
 * its own validator as llm-wiki-mcp's is, answers a client; one without a
 * validator says at construction that the bundle has no Ajv; and no Ajv
 * module is in the output.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binBuildOptions } from "../scripts/build.ts";
import { randomWord } from "./helpers/random-text.ts";

const REPO = join(import.meta.dirname, "..");
let work = "";

beforeAll(() => {
  // Inside the repository, so the SDK resolves from its node_modules.
  mkdirSync(join(REPO, ".cache"), { recursive: true });
  work = mkdtempSync(join(REPO, ".cache", "sdk-validator-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the bundled MCP server without Ajv", () => {
  it("serves with its own validator, refuses to construct without one, and bundles no Ajv", async () => {
    const name = randomWord(8, 10);
    const file = join(work, "probe.ts");
    writeFileSync(
      file,
      [
        'import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";',
        'import { Server } from "@modelcontextprotocol/sdk/server/index.js";',
        "const none = { getValidator() { throw new Error('unused'); } };",
        `const server = new Server({ name: ${JSON.stringify(name)}, version: "1" }, { capabilities: {}, jsonSchemaValidator: none });`,
        "const [client, end] = InMemoryTransport.createLinkedPair();",
        "await server.connect(end);",
        "const answered = new Promise((resolve) => { client.onmessage = resolve; });",
        "await client.start();",
        "await client.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } });",
        "const served = (await answered).result?.serverInfo?.name;",
        "let refused = '';",
        "try { new Server({ name: 'x', version: '1' }); } catch (error) { refused = String(error); }",
        "await server.close();",
        "process.stdout.write(JSON.stringify({ served, refused }));",
        "",
      ].join("\n"),
    );
    const out = join(work, "out");
    await build({ ...binBuildOptions(out), entryPoints: { probe: file } });
    const run = spawnSync(process.execPath, [join(out, "probe.js")], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const seen = JSON.parse(run.stdout) as { served?: string; refused: string };
    expect(seen.served).toBe(name);
    expect(seen.refused).toMatch(/no Ajv: give Server a jsonSchemaValidator/);
    const bundled = readdirSync(out, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(out, f), "utf8"))
      .join("\n");
    // Ajv's own modules (the SDK client's provider is not replaced; the probe imports no client).
    expect(/ajv\/dist\/|ajv-formats/.test(bundled)).toBe(false);
  });
});
