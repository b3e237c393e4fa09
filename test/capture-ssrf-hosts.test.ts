/**
 * Server-side request forgery through the CLI and MCP hosts, as child
 * processes with their settings file: refusals are one readable line (CLI)
 * or a tool error (MCP) and reach no server; `captureAllowHosts` opens an
 * internal host; a client cannot pass an allow list; TLS over a pinned
 * address still verifies the host name.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { CaptureSourceResult } from "../extensions/llm-wiki/lib/capture/capture-source.ts";
import { runCliAsync } from "./helpers/cli.ts";
import { SERVER as MCP_SERVER } from "./helpers/mcp-child.ts";
import {
  closeTargets,
  expectInternal,
  expectNothingWritten,
  label,
  listen,
  onClose,
  pick,
  randomCase,
  randomLoopback,
  spellIPv4,
} from "./helpers/ssrf-targets.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
/** A self-signed certificate for `localhost` only (test use, valid until 2126), and its key. */
/**
 * A self-signed certificate for `localhost`, made fresh for this run with
 * the system's openssl (no private key is kept in the repository).
 */
function localhostCertificate(): { cert: string; key: string } {
  const dir = makeTempDir("llm-wiki-tls-");
  const cert = join(dir, "localhost.pem");
  const key = join(dir, "localhost.key");
  const made = spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "2",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost",
    ],
    { encoding: "utf8" },
  );
  if (made.status !== 0)
    throw new Error(`openssl could not make a test certificate: ${made.stderr}`);
  return { cert, key };
}

afterEach(async () => {
  await closeTargets();
  removeTempDirs();
});

// ---------------------------------------------------------------- the CLI and MCP hosts

/** A settings file for the CLI and MCP hosts; its path goes in LLM_WIKI_SETTINGS. */
function settingsFile(allow: string[]): string {
  const path = join(makeTempDir("llm-wiki-settings-"), "settings.json");
  writeFileSync(path, JSON.stringify({ "llm-wiki": { captureAllowHosts: allow } }));
  return path;
}

describe("capture SSRF: llm-wiki capture --url", () => {
  it("refuses internal addresses with one readable line and exit 1; fetches an allowed range", async () => {
    const vault = makeTempVault();
    const home = makeTempDir("llm-wiki-home-");
    const address = randomLoopback();
    const target = await listen(address);
    const none = settingsFile([]);
    for (const host of [spellIPv4(address), spellIPv4(address), "[::1]"]) {
      const out = await runCliAsync(["capture", "--url", `http://${host}:${target.port}/`], {
        cwd: vault.root,
        env: { HOME: home, LLM_WIKI_SETTINGS: none },
      });
      expect(out.status, host).toBe(1);
      expect(out.stdout).toBe("");
      const lines = out.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^error: .* is an internal address \(loopback.*\(fix: .*captureAllowHosts/,
      );
    }
    expect(target.hits).toBe(0);
    expectNothingWritten(vault);

    const allowed = settingsFile([`127.0.0.0/8`]);
    const ok = await runCliAsync(["capture", "--url", `${target.base}/page`, "--json"], {
      cwd: vault.root,
      env: { HOME: home, LLM_WIKI_SETTINGS: allowed },
    });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, manifest: { title: "Reached" } });
    expect(target.hits).toBe(1);
  });
});

describe("capture SSRF: wiki_capture_source over MCP", () => {
  async function startMcp(vault: string, settings: string): Promise<Client> {
    const home = makeTempDir("llm-wiki-mcp-home-");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_SERVER, "--vault", vault],
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        WIKI_HOME: home,
        XDG_CACHE_HOME: join(home, ".cache"),
        LLM_WIKI_SETTINGS: settings,
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-ssrf-test", version: "0.0.0" });
    await client.connect(transport);
    onClose(() => client.close());
    return client;
  }

  const capture = async (client: Client, url: string) =>
    (await client.callTool({ name: "wiki_capture_source", arguments: { url } })) as CallToolResult;

  it("answers a refusal as a tool error with the diagnostic, and fetches what the settings allow", async () => {
    const vault = makeTempVault();
    const address = randomLoopback();
    const target = await listen(address);
    const refusing = await startMcp(vault.root, settingsFile([]));
    for (const host of [spellIPv4(address), spellIPv4(address)]) {
      const result = await capture(refusing, `http://${host}:${target.port}/${label()}`);
      expect(result.isError, host).toBe(true);
      const content = result.structuredContent as unknown as CaptureSourceResult;
      expectInternal(content, new URL(`http://${host}/`).hostname, "loopback");
    }
    // A client cannot open the door itself: the allow list is not a tool argument.
    const smuggled = refusing.callTool({
      name: "wiki_capture_source",
      arguments: {
        url: `${target.base}/`,
        [pick(["captureAllowHosts", "allowHosts", "network"])]: ["127.0.0.0/8"],
      },
    });
    await expect(smuggled).rejects.toThrow(/is not a parameter of this tool/);
    expect(target.hits).toBe(0);
    expectNothingWritten(vault);

    const allowing = await startMcp(vault.root, settingsFile([address]));
    const fetched = await capture(allowing, `${target.base}/page`);
    expect(fetched.isError).toBeFalsy();
    expect(fetched.structuredContent).toMatchObject({ ok: true, manifest: { title: "Reached" } });
    expect(target.hits).toBe(1);
  });
});

describe("capture SSRF: https to a pinned address", () => {
  it("keeps TLS on the host name: SNI and the certificate check use it, not the checked address", async () => {
    const vault = makeTempVault();
    const home = makeTempDir("llm-wiki-home-");
    const servernames: string[] = [];
    const { cert: TLS_CERT, key: TLS_KEY } = localhostCertificate();
    const server = createHttpsServer(
      { key: readFileSync(TLS_KEY), cert: readFileSync(TLS_CERT) },
      (req, res) => {
        servernames.push(String((req.socket as TLSSocket).servername));
        res.writeHead(200, { "content-type": "text/markdown" }).end("# Over TLS\n\nSecure.\n");
      },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    onClose(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const port = (server.address() as AddressInfo).port;
    // The child trusts the test certificate as it would a company's own CA.
    const env = { HOME: home, NODE_EXTRA_CA_CERTS: TLS_CERT };
    const named = await runCliAsync(
      ["capture", "--url", `https://${randomCase("localhost")}:${port}/${label()}`, "--json"],
      { cwd: vault.root, env: { ...env, LLM_WIKI_SETTINGS: settingsFile(["localhost"]) } },
    );
    expect(named.status, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ ok: true, manifest: { title: "Over TLS" } });
    expect(servernames).toEqual(["localhost"]);

    // The same server by its address: the certificate does not name 127.0.0.1, so nothing is fetched.
    const literal = await runCliAsync(
      ["capture", "--url", `https://127.0.0.1:${port}/${label()}`],
      { cwd: vault.root, env: { ...env, LLM_WIKI_SETTINGS: settingsFile(["127.0.0.1"]) } },
    );
    expect(literal.status).toBe(1);
    expect(literal.stderr).toMatch(
      /^error: could not fetch https:\/\/127\.0\.0\.1:\d+\/\w+: .*(altnames|not match)/,
    );
    expect(servernames).toEqual(["localhost"]);
  });
});
