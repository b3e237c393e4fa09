import { join } from "node:path";
import { beforeAll, it } from "vitest";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { writeSyntheticVault } from "../scripts/bench/synthetic-vault.ts";
import { answered, initializeRequest, isolatedEnv, spawnRawServer } from "./helpers/mcp-child.ts";
import { makeTempDir } from "./helpers/temp-vault.ts";

let vault: string;
beforeAll(async () => {
  vault = join(makeTempDir("scratch-"), "vault");
  writeSyntheticVault(vault, 2000);
  const service = createWikiService({ cwd: vault, vault, env: isolatedEnv() });
  await service.reindex({ scope: "all" });
  await service.close();
}, 300_000);

it("times", async () => {
  for (let round = 0; round < 3; round += 1) {
    const server = spawnRawServer(vault);
    await server.send(initializeRequest("init"));
    await server.waitFor(answered("init"));
    for (let i = 0; i < 3; i += 1)
      await server.send({ jsonrpc: "2.0", id: `reindex-${i}`, method: "tools/call", params: { name: "wiki_reindex", arguments: { scope: "all" }, _meta: { progressToken: `p${i}` } } });
    for (let i = 0; i < 40; i += 1)
      await server.send({ jsonrpc: "2.0", id: `recall-${i}`, method: "tools/call", params: { name: "wiki_recall", arguments: { query: "cache index" } } });
    await server.waitFor((ms) => ms.some((m) => m.method === "notifications/progress"));
    const t0 = performance.now();
    const seen: string[] = [];
    let last = "";
    server.child.stderr.on("data", (c: Buffer) => { seen.push(`${Math.round(performance.now() - t0)} ${c.toString().trim()}`); });
    server.child.stdout.on("data", () => { last = `${Math.round(performance.now() - t0)}`; });
    server.child.stdin.end();
    const code = await server.exited();
    console.info(`round ${round}: exit ${code} at ${Math.round(performance.now() - t0)}; last stdout ${last}\n${seen.join("\n")}`);
  }
}, 300_000);
