/**
 * Time from spawning the MCP server to its first `wiki_recall` answer, as a
 * client sees it (median of a few runs, index already built), and to the
 * end of its handshake on the way. `server` is the entry to spawn: the built
 * bin (`dist/mcp/index.js`) is what users run. The first run fills Node's
 * compile cache, as a user's first spawn does; the median is a later
 * spawn's time.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const SOURCE_ENTRY = join(import.meta.dirname, "..", "..", "mcp", "index.ts");

/** Medians in milliseconds: spawn → handshake done, and spawn → first recall answered. */
export interface McpSpawnTimes {
  handshakeMs: number;
  firstRecallMs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export async function measureMcpSpawn(
  vault: string,
  runs = 5,
  server: string = SOURCE_ENTRY,
): Promise<McpSpawnTimes> {
  const samples: number[] = [];
  const handshakes: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [server, "--vault", vault],
      env: { ...(process.env as Record<string, string>) },
      stderr: "ignore",
    });
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(transport);
    handshakes.push(performance.now() - t);
    await client.callTool({
      name: "wiki_recall",
      arguments: { query: "cache invalidation latency" },
    });
    samples.push(performance.now() - t);
    await client.close();
  }
  return { handshakeMs: median(handshakes), firstRecallMs: median(samples) };
}
