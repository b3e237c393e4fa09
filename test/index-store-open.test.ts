import { afterEach, describe, expect, it } from "vitest";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import { openVaultIndex } from "../extensions/llm-wiki/lib/index/qmd-indexing.ts";
import { refreshRegistry } from "../extensions/llm-wiki/lib/vault/registry.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

describe("the live store of a vault index", () => {
  it("is opened once when two callers ask at the same time (a background reindex and a recall)", async () => {
    const vault = makeTempVault({
      pages: { "concepts/a": pageText({ type: "concept", title: "A" }, "Alpha.\n") },
    });
    const index = openVaultIndex(vault.paths, { models: resolveModels({}) });
    try {
      expect((await index.reindex(refreshRegistry(vault.paths))).action).toBe("rebuild");
      const [first, second] = await Promise.all([index.store(), index.store()]);
      expect(first).toBeDefined();
      expect(second).toBe(first);
      expect(await index.store()).toBe(first);
    } finally {
      await index.close();
    }
  });
});
