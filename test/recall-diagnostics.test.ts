/**
 * Explicit recall over the project and the personal vault: what is true of
 * the whole recall (a model that is missing) is said once, not per vault.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const services: WikiService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  removeTempDirs();
});

describe("recall diagnostics over two vaults", () => {
  it("reports a missing embed model once, though both vaults fell back to lexical", async () => {
    const page = (title: string) =>
      pageText({ type: "concept", title }, `${title} covers the harbour crane schedule.\n`);
    const project = makeTempVault({ pages: { "concepts/crane": page("Crane") } });
    const home = makeTempVault({ pages: { "concepts/harbour": page("Harbour") } });
    const env = {
      ...process.env,
      HOME: makeTempDir("llm-wiki-home-"),
      WIKI_HOME: home.root,
      QMD_EMBED_MODEL: join(makeTempDir(), "absent.gguf"),
    };
    const service = createWikiService({ cwd: project.root, env });
    services.push(service);
    expect((await service.reindex({ vault: "all", scope: "all" })).ok).toBe(true);
    const result = await service.recall({ query: "harbour crane schedule", mode: "hybrid" });
    expect(new Set(result.results.map((r) => r.vault))).toEqual(new Set(["project", "personal"]));
    const about = result.diagnostics.filter((d) => /embed model/i.test(d.message));
    expect(about).toHaveLength(1);
    expect(result.modeUsed).toBe("lexical");
  });
});
