/**
 * `pnpm plugin:listing`: writes plugin/mcp-listing.json, what the plugin's
 * launcher answers a client's handshake and lists with while its runtime is
 * still installing (plugin/mcp-waiting.js). It is read from the real MCP
 * server over stdio, started in an empty folder with a home of its own (no
 * vault, working memory off: the tools every install has), so it is the
 * server's own listing, not a copy kept by hand; test/plugin-mcp.test.ts
 * fails when the file no longer matches the server.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";

const root = join(import.meta.dirname, "..");
/** Where the plugin reads it. */
export const LISTING_FILE = join(root, "plugin", "mcp-listing.json");

/** The listing as the file holds it: the real server's answers, read through an MCP client. */
export async function readServerListing(): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), "llm-wiki-listing-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, "mcp", "index.ts")],
    cwd: scratch,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: scratch,
      WIKI_HOME: scratch,
      XDG_CONFIG_HOME: join(scratch, ".config"),
      XDG_CACHE_HOME: join(scratch, ".cache"),
    },
    stderr: "ignore",
  });
  const client = new Client({ name: "plugin-listing", version: "0" });
  try {
    await client.connect(transport);
    const listing = {
      generatedBy: "pnpm plugin:listing (scripts/plugin-listing.ts)",
      protocolVersions: SUPPORTED_PROTOCOL_VERSIONS,
      serverInfo: client.getServerVersion(),
      instructions: client.getInstructions(),
      tools: (await client.listTools()).tools,
      prompts: (await client.listPrompts()).prompts,
      resourceTemplates: (await client.listResourceTemplates()).resourceTemplates,
    };
    return `${JSON.stringify(listing, null, 2)}\n`;
  } finally {
    await client.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  writeFileSync(LISTING_FILE, await readServerListing());
  process.stdout.write(`wrote ${LISTING_FILE}\n`);
}
