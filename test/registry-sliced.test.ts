/**
 * The registry refresh as sliced work (vault/registry.ts
 * `refreshRegistrySteps`, `VaultHandle.refreshInSlices`): made to yield
 * after every step, it gives the registry a refresh in one go gives; a
 * handle's sliced refresh stops at a slice when its signal aborts, and
 * gives way to a plain refresh asked for meanwhile.
 */
import { afterEach, describe, expect, it } from "vitest";
import { resolveModels } from "../extensions/llm-wiki/lib/index/models.ts";
import { isCancelled, runWhole, type SliceClock } from "../extensions/llm-wiki/lib/sliced-work.ts";
import {
  type Registry,
  refreshRegistry,
  refreshRegistrySteps,
} from "../extensions/llm-wiki/lib/vault/registry.ts";
import { createVaultHandles } from "../extensions/llm-wiki/lib/vault-handles.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

/** A vault of linked pages, one of them malformed. */
function linkedVault(n: number): TempVault {
  const pages: Record<string, string> = { "concepts/bad": "---\ntype: [\n---\n" };
  for (let i = 0; i < n; i += 1) {
    pages[`concepts/p${i}`] = pageText(
      { type: "concept", title: `P${i} ${randomWord(4, 8)}` },
      `${randomWords(20, 3, 8)} [[concepts/p${(i * 7 + 1) % n}]] [[concepts/missing${i % 3}]]\n`,
    );
  }
  return makeTempVault({ pages });
}

/** What a registry says of the vault, without its identity objects or how much it read. */
function content(reg: Registry) {
  return {
    pages: [...reg.pages],
    hashes: [...reg.hashes],
    secretPages: [...reg.secretPages],
    links: [...reg.links],
    backlinks: [...reg.backlinks],
    linkProblems: reg.linkProblems,
    diagnostics: reg.diagnostics,
  };
}

const ALWAYS_DUE: SliceClock = { due: () => true };

describe("the registry refreshed in slices", () => {
  it("yields between steps and gives the registry a refresh in one go gives", () => {
    const vault = linkedVault(60);
    const steps = refreshRegistrySteps(vault.paths, undefined, { readOnly: true }, ALWAYS_DUE);
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields += 1;
    // At least one slice boundary per page walked, looked at and linked.
    expect(yields).toBeGreaterThan(3 * 60);
    const whole = refreshRegistry(vault.paths, undefined, { readOnly: true });
    expect(content(step.value)).toEqual(content(whole));
    expect(step.value.stats).toEqual(whole.stats);
    // And with the derived files written, as a host does.
    const written = runWhole((clock) => refreshRegistrySteps(vault.paths, undefined, {}, clock));
    expect(content(written)).toEqual(content(whole));
  });

  it("stops at a slice when its signal aborts, and gives way to a plain refresh", async () => {
    const vault = linkedVault(600);
    const handles = createVaultHandles(resolveModels({}, {}, vault.root), { lexicalFirst: true });
    const handle = handles.get(vault.paths);
    const stopped = new AbortController();
    const sliced = handle.refreshInSlices(stopped.signal);
    stopped.abort();
    const error = await sliced.catch((e: unknown) => e);
    expect(isCancelled(error)).toBe(true);

    // A plain refresh asked for while a sliced one runs: both end with its registry.
    const running = handle.refreshInSlices();
    const plain = handle.refresh();
    expect(await running).toBe(plain);
    expect(handle.registry()).toBe(plain);
    expect(content(plain)).toEqual(content(refreshRegistry(vault.paths)));
    await handles.closeAll();
  });
});
