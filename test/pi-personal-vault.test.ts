/**
 * The Pi host outside any project: a real Pi session (Pi's faux model)
 * working in a folder with no `.llm-wiki/` up the tree gets automatic recall
 * from the personal vault (`$HOME/.llm-wiki`, here a copy of the example
 * vault), as `@zosmaai/pi-llm-wiki` does, and the status line says so.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type PiHarness, startPi, textOf } from "./helpers/pi-session.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const PROMPT = "how do we keep the cache consistent";

let dirs: { root: string; home: string; agentDir: string; project: string };
const open: PiHarness[] = [];

beforeEach(() => {
  const root = makeTempDir("llm-wiki-pi-personal-");
  dirs = {
    root,
    home: join(root, "home"),
    agentDir: join(root, "agent"),
    project: join(root, "scratch"),
  };
  mkdirSync(dirs.agentDir, { recursive: true });
  mkdirSync(dirs.project, { recursive: true });
  cpSync(EXAMPLE, dirs.home, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  vi.stubEnv("HOME", dirs.home);
  vi.stubEnv("WIKI_HOME", dirs.home);
  vi.stubEnv("XDG_CACHE_HOME", join(root, "xdg-cache"));
  vi.stubEnv("PI_CODING_AGENT_DIR", dirs.agentDir);
});

afterEach(async () => {
  for (const harness of open.splice(0)) await harness.close();
  vi.unstubAllEnvs();
  removeTempDirs();
});

describe("Pi outside any project", () => {
  it("recalls automatically from the personal vault", async () => {
    const service = createWikiService({ cwd: dirs.home, vault: dirs.home });
    try {
      expect((await service.reindex({ scope: "all" })).ok).toBe(true);
    } finally {
      await service.close();
    }
    writeFileSync(
      join(dirs.agentDir, "settings.json"),
      `${JSON.stringify({ "llm-wiki": { sessionPriming: false } })}\n`,
    );
    const pi = await startPi(dirs);
    open.push(pi);
    expect(pi.errors).toEqual([]);
    pi.script("ok");
    await pi.session.prompt(PROMPT);

    const request = pi.requests[0] ?? [];
    const at = request.findLastIndex((m) => m.role === "user" && textOf(m) === PROMPT);
    const recall = request.slice(at + 1).find((m: Message) => m.role === "user");
    expect(recall && textOf(recall)).toContain("concepts/cache-invalidation");
    expect(recall && textOf(recall)).toContain("personal vault");
    expect(pi.statuses.some((s) => /^wiki: [1-9]\d* pages? · lexical · \d+ ms$/.test(s))).toBe(
      true,
    );
    expect(pi.errors).toEqual([]);
  });
});
