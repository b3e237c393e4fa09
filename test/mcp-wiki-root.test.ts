/**
 * `WIKI_ROOT`, which users of the older system set in their `.mcp.json`:
 * the real MCP server process, started in a folder with a vault of its own,
 * answers from the vault `WIKI_ROOT` names (its `.llm-wiki/`, or the nearest
 * above it) and says so in `wiki_status`; `wiki_bootstrap` creates the vault
 * there when there is none. `--vault` wins over it, and status says it was
 * not used. Without it nothing changes. Words are fresh each run.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  removeTempDirs();
});

async function start(cwd: string, env: Record<string, string>, args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, ...args],
    cwd,
    env: { ...isolatedEnv(), ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "llm-wiki-wiki-root", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** A vault holding one page about `word`, in a fresh folder. */
function vaultAbout(word: string) {
  return makeTempVault({
    pages: {
      [`concepts/${word}`]: pageText(
        { type: "concept", title: `${word} notes` },
        `${randomWords(8)} ${word} ${randomWords(8)}\n`,
      ),
    },
  });
}

interface Status {
  vault?: { root: string };
  diagnostics: Array<{ code: string; message: string }>;
}

describe("WIKI_ROOT in the MCP server", () => {
  it("answers from the vault WIKI_ROOT names, not the working directory's, and says so", async () => {
    const theirs = `zq${randomWord(6, 8)}`;
    const here = `zq${randomWord(6, 8)}`;
    const named = vaultAbout(theirs);
    const local = vaultAbout(here);
    // Started inside a subfolder of the other vault: its own vault would be found there.
    const cwd = join(local.root, "src");
    mkdirSync(cwd);
    const client = await start(cwd, { WIKI_ROOT: named.root });

    const status = await call(client, "wiki_status");
    const result = metaResult<Status>(status);
    expect(result.vault?.root).toBe(named.root);
    expect(result.diagnostics.map((d) => d.code)).toContain("vault_root_from_wiki_root");
    expect(text(status)).toContain(`WIKI_ROOT=${named.root}`);

    const found = await call(client, "wiki_recall", { query: theirs });
    expect(text(found)).toContain(`concepts/${theirs}`);
    const other = await call(client, "wiki_recall", { query: here });
    expect(text(other)).not.toContain(`concepts/${here}`);
  });

  it("finds the vault above WIKI_ROOT, and bootstraps at WIKI_ROOT when there is none", async () => {
    const word = `zq${randomWord(6, 8)}`;
    const above = vaultAbout(word);
    const nested = join(above.root, "packages", randomWord());
    mkdirSync(nested, { recursive: true });
    const client = await start(makeTempDir("llm-wiki-wiki-root-cwd-"), { WIKI_ROOT: nested });
    expect(metaResult<Status>(await call(client, "wiki_status")).vault?.root).toBe(above.root);

    const empty = makeTempDir("llm-wiki-wiki-root-empty-");
    const fresh = await start(makeTempDir("llm-wiki-wiki-root-cwd-"), { WIKI_ROOT: empty });
    const missing = metaResult<Status>(await call(fresh, "wiki_status"));
    expect(missing.vault).toBeUndefined();
    expect(missing.diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(["vault_root_from_wiki_root", "vault_not_found"]),
    );
    const made = await call(fresh, "wiki_bootstrap", { topic: randomWords(2) });
    expect(made.isError, text(made)).toBeFalsy();
    expect(existsSync(join(empty, ".llm-wiki", "config.json"))).toBe(true);
  });

  it("gives way to --vault, saying WIKI_ROOT was not used", async () => {
    const named = vaultAbout(`zq${randomWord(6, 8)}`);
    const given = vaultAbout(`zq${randomWord(6, 8)}`);
    const client = await start(makeTempDir("llm-wiki-wiki-root-cwd-"), { WIKI_ROOT: named.root }, [
      "--vault",
      given.root,
    ]);
    const result = metaResult<Status>(await call(client, "wiki_status"));
    expect(result.vault?.root).toBe(given.root);
    expect(result.diagnostics.map((d) => d.code)).toContain("wiki_root_ignored");
  });

  it("changes nothing when it is not set", async () => {
    const word = `zq${randomWord(6, 8)}`;
    const local = vaultAbout(word);
    const client = await start(local.root, {});
    const result = metaResult<Status>(await call(client, "wiki_status"));
    expect(result.vault?.root).toBe(local.root);
    const codes = result.diagnostics.map((d) => d.code);
    expect(codes).not.toContain("vault_root_from_wiki_root");
    expect(codes).not.toContain("wiki_root_ignored");
  });
});
