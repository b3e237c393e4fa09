import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { acquireLock } from "../extensions/llm-wiki/lib/index/lock.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

describe("an index lock that can never be taken", () => {
  it("fails at once with the repair when a folder stands where the lock file goes", async () => {
    const path = join(makeTempDir(), "index.lock");
    mkdirSync(path);
    const attempt = acquireLock(path, { op: "test", waitMs: 60_000 });
    await expect(attempt).rejects.toBeInstanceOf(WikiError);
    await expect(attempt).rejects.toMatchObject({
      diagnostic: { code: "index_lock_unusable", repair: expect.stringContaining(path) },
    });
  });
});
