/**
 * How fresh recall is in a long-running host: explicit recall sees pages
 * changed behind the host's back (an editor, git, another agent's write tool);
 * automatic recall never writes the index on the turn path.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { EXPLICIT_REGISTRY_MAX_AGE_MS } from "../extensions/llm-wiki/lib/recall/recall-vaults.ts";
import {
  registryMaxAge,
  SLOW_WALK_MS,
  WALK_TIME_SHARE,
} from "../extensions/llm-wiki/lib/vault-handles.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempVault, pageText, removeTempDirs, type TempVault } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

async function indexedVault(): Promise<{ vault: TempVault; service: WikiService }> {
  const vault = makeTempVault({
    pages: {
      "concepts/alpha": pageText(
        { type: "concept", title: "Alpha" },
        "Alpha covers the harbour crane schedule.\n",
      ),
    },
  });
  const service = serviceFor(vault.root);
  expect((await service.reindex({ scope: "all" })).ok).toBe(true);
  return { vault, service };
}

const newPage = pageText(
  { type: "concept", title: "Quokka" },
  "The quokka ledger reconciles payouts nightly.\n",
);

describe("explicit recall in a long-running host", () => {
  it("indexes pages written behind its back before answering", async () => {
    const { vault, service } = await indexedVault();
    // Warm: the host holds a registry and an open store.
    await service.recall({ query: "harbour crane", mode: "lexical" });
    vault.writePage("concepts/quokka", newPage);
    await sleep(EXPLICIT_REGISTRY_MAX_AGE_MS + 50);
    const result = await service.recall({ query: "quokka ledger", mode: "lexical" });
    expect(result.results.map((r) => r.id)).toEqual(["concepts/quokka"]);
    expect(service.status().vault?.index.state).toBe("ready");
  });

  it("answers from the index as it is when asked not to refresh", async () => {
    const { vault, service } = await indexedVault();
    vault.writePage("concepts/quokka", newPage);
    const result = await service.recall({
      query: "quokka ledger",
      mode: "lexical",
      refreshIndex: false,
    });
    expect(result.results).toEqual([]);
    expect(service.status().vault?.index.state).toBe("stale");
  });
});

describe("automatic recall", () => {
  it("never updates the index on the turn path", async () => {
    const { vault, service } = await indexedVault();
    await service.recall({ query: "harbour crane", policy: "automatic", mode: "lexical" });
    vault.writePage("concepts/quokka", newPage);
    await sleep(EXPLICIT_REGISTRY_MAX_AGE_MS + 50);
    const result = await service.recall({
      query: "quokka ledger",
      policy: "automatic",
      mode: "lexical",
    });
    expect(result.results).toEqual([]);
    expect(service.status().vault?.index.state).toBe("stale");
  });
});

describe("reindex of the files a host names", () => {
  it("makes the named page searchable without walking the vault; other changes wait for a full pass", async () => {
    const { vault, service } = await indexedVault();
    const named = vault.writePage("concepts/quokka", newPage);
    vault.writePage(
      "concepts/walrus",
      pageText({ type: "concept", title: "Walrus" }, "The walrus tusk inventory.\n"),
    );
    const report = await service.reindex({ scope: "changed", paths: [named] });
    expect(report.reports[0]).toMatchObject({ action: "incremental", written: 1 });
    const quick = { mode: "lexical", refreshIndex: false } as const;
    expect(
      (await service.recall({ query: "quokka ledger", ...quick })).results.map((r) => r.id),
    ).toEqual(["concepts/quokka"]);
    expect((await service.recall({ query: "walrus tusk", ...quick })).results).toEqual([]);
    await service.reindex({ scope: "changed" });
    expect(
      (await service.recall({ query: "walrus tusk", ...quick })).results.map((r) => r.id),
    ).toEqual(["concepts/walrus"]);
  });
});

describe("how often a large vault is walked for edits made outside the tools", () => {
  it("keeps the asked age while a walk is quick, and walks a slow vault at most a twentieth of the time", () => {
    expect(registryMaxAge(EXPLICIT_REGISTRY_MAX_AGE_MS, 0)).toBe(EXPLICIT_REGISTRY_MAX_AGE_MS);
    expect(registryMaxAge(EXPLICIT_REGISTRY_MAX_AGE_MS, SLOW_WALK_MS - 1)).toBe(
      EXPLICIT_REGISTRY_MAX_AGE_MS,
    );
    expect(registryMaxAge(EXPLICIT_REGISTRY_MAX_AGE_MS, 1_300)).toBe(1_300 / WALK_TIME_SHARE);
    expect(registryMaxAge(60_000, 1_300)).toBe(60_000);
    expect(registryMaxAge(Number.POSITIVE_INFINITY, 5_000)).toBe(Number.POSITIVE_INFINITY);
  });
});
