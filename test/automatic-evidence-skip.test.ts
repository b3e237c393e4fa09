/**
 * Automatic recall skips the lexical search when no page could pass its
 * evidence gate: a prompt made only of words that most of the vault's pages
 * hold (the work of that OR query grows with the vault) gets the answer it
 * would have got from the full search — nothing — and says why. Each run
 * draws its own vocabulary and prompts; the seed is printed on failure.
 */
import { afterEach, describe, expect, it } from "vitest";
import { quietReason } from "../cli/hook-quiet.ts";
import type { LexSearchOptions } from "../extensions/llm-wiki/lib/index/qmd-store-types.ts";
import { capabilities, retrievalVault } from "../extensions/llm-wiki/lib/recall/recall-vaults.ts";
import { AUTOMATIC_EVIDENCE, pageEvidence } from "../extensions/llm-wiki/lib/recall-evidence.ts";
import { type RetrievalVault, retrieve } from "../extensions/llm-wiki/lib/retrieval.ts";
import { AUTOMATIC_POLICY } from "../extensions/llm-wiki/lib/retrieval-policy.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(removeTempDirs);

/** A small deterministic generator, so a failing seed replays. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The same vault without the gate handed to the store: the full search. */
function ungated(vault: RetrievalVault): RetrievalVault {
  return {
    ...vault,
    store: async () => {
      const store = await vault.store();
      if (!store) return store;
      return {
        ...store,
        searchLex: (query: string, opts?: LexSearchOptions) =>
          store.searchLex(query, opts?.limit === undefined ? {} : { limit: opts.limit }),
      };
    },
  } as RetrievalVault;
}

describe("automatic recall and words on most pages", () => {
  it("skips the search exactly when no page could pass the evidence gate, with the same answer", async () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const random = rng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    // Words on every page, words on about a third, and topics of six pages each.
    const everywhere = Array.from({ length: 4 }, () => randomWord(7, 10));
    const third = Array.from({ length: 4 }, () => randomWord(7, 10));
    const topics = Array.from({ length: 10 }, () => randomWord(9, 12));
    const pages: Record<string, string> = {};
    Array.from({ length: 60 }, (_, i) => topics[i % 10] as string).forEach((word, i) => {
      const body = [
        ...everywhere,
        ...third.filter((_, j) => (i + j) % 3 === 0),
        word,
        word,
        randomWord(9, 12),
        ...everywhere,
      ].join(" ");
      pages[`concepts/page-${i}`] =
        `---\ntitle: Page ${i}\ntype: concept\n---\n# Page ${i}\n\n${body}.\n`;
    });
    const vault = makeTempVault({ pages });
    const service = createWikiService({ cwd: vault.root, vault: vault.root });
    try {
      await service.reindex({ scope: "all" });
      const handle = service.handles.get(vault.paths);
      const view = retrievalVault(handle);
      const caps = capabilities(service.handles);
      let skippedSome = false;
      let searchedSome = false;
      for (let n = 0; n < 40; n += 1) {
        // Words on every page; then also a word on a third of them, a topic, or both.
        const words = [pick(everywhere), pick(everywhere)];
        if (n % 4 === 1 || n % 4 === 3) words.push(pick(third));
        if (n % 4 >= 2) words.push(pick(topics));
        const query = words.join(" ");
        const req = {
          query,
          policy: AUTOMATIC_POLICY,
          mode: "lexical" as const,
          capabilities: caps,
        };
        const gated = await retrieve([view], req);
        const full = await retrieve([ungated(view)], req);
        const context = `seed ${seed}, prompt "${query}"`;
        expect(
          gated.hits.map((h) => h.id),
          context,
        ).toEqual(full.hits.map((h) => h.id));
        const skipped = gated.trace.some((t) => t.tooCommon === true);
        if (skipped) {
          skippedSome = true;
          // The proof: the full search's pages all stay under the gate.
          const list = (await (await view.store())?.searchLex(query, { limit: 20 })) ?? [];
          expect(list.length, context).toBeGreaterThan(0);
          for (const hit of list) {
            expect(pageEvidence(hit.matches ?? []).total, context).toBeLessThan(AUTOMATIC_EVIDENCE);
          }
          expect(
            quietReason("recall", { results: [], diagnostics: [], trace: gated.trace }),
          ).toMatch(/on too many of the vault's pages/);
        } else {
          searchedSome = true;
        }
        // Words on every page are no evidence; six pages holding a word the
        // background never saw are: that search always runs.
        if (n % 4 === 0) expect(skipped, context).toBe(true);
        if (n % 4 >= 2) expect(skipped, context).toBe(false);
      }
      expect(skippedSome, `seed ${seed}`).toBe(true);
      expect(searchedSome, `seed ${seed}`).toBe(true);
    } finally {
      await service.close();
    }
  });

  it("answers a prompt that names a page exactly, however common its words, as the full search does", async () => {
    const seed = Number(process.env.EVIDENCE_SKIP_SEED) || Math.floor(Math.random() * 2 ** 31);
    const random = rng(seed);
    const word = () =>
      Array.from({ length: 7 + Math.floor(random() * 4) }, () =>
        String.fromCharCode(97 + Math.floor(random() * 26)),
      ).join("");
    const common = [word(), word()];
    const pages: Record<string, string> = {};
    for (let i = 0; i < 30; i += 1) {
      const title = i === 0 ? `${common[0]} ${common[1]}` : `Page ${i}`;
      pages[`concepts/page-${i}`] =
        `---\ntitle: ${title}\ntype: concept\n---\n# ${title}\n\n${common.join(" ")} ${word()}.\n`;
    }
    const vault = makeTempVault({ pages });
    const service = createWikiService({ cwd: vault.root, vault: vault.root });
    const context = `seed ${seed} (EVIDENCE_SKIP_SEED replays it)`;
    try {
      await service.reindex({ scope: "all" });
      const view = retrievalVault(service.handles.get(vault.paths));
      const req = {
        query: `${common[0]} ${common[1]}`,
        policy: AUTOMATIC_POLICY,
        mode: "lexical" as const,
        capabilities: capabilities(service.handles),
      };
      const gated = await retrieve([view], req);
      const full = await retrieve([ungated(view)], req);
      // Not searched: the named page answers, and no other page could pass the gate.
      const lexical = gated.trace.find((t) => t.step === "lexical");
      expect(lexical?.tooCommon, context).toBe(true);
      expect(lexical?.note, context).toMatch(/names its page/);
      expect(
        full.trace.some((t) => t.tooCommon),
        context,
      ).toBe(false);
      // The same answer as the full search's, but for the store's excerpt.
      const shown = (hits: typeof gated.hits) => hits.map(({ excerpt: _e, ...hit }) => hit);
      expect(shown(gated.hits), context).toEqual(shown(full.hits));
      expect(
        gated.hits.map((h) => h.id),
        context,
      ).toEqual(["concepts/page-0"]);
      // Recall cuts its excerpts from the page itself: its answer is the same either way.
      const recalled = (explain: boolean) =>
        service.recall({ query: req.query, policy: "automatic", mode: "lexical", explain });
      const quick = await recalled(false);
      const searched = await recalled(true);
      expect(
        searched.trace.some((t) => t.tooCommon),
        context,
      ).toBe(false);
      expect(
        quick.results.map(({ why: _w, ...item }) => item),
        context,
      ).toEqual(searched.results.map(({ why: _w, ...item }) => item));
      expect(quick.rendered, context).toBe(searched.rendered);
      expect(quick.results[0]?.excerpt, context).toBeTruthy();
      // A page whose name the prompt only contains takes its confidence from the list: searched.
      const contained = await retrieve([view], { ...req, query: `notes on ${req.query} today` });
      expect(
        contained.trace.some((t) => t.tooCommon),
        context,
      ).toBe(false);
      expect(
        contained.hits.map((h) => h.id),
        context,
      ).toContain("concepts/page-0");
    } finally {
      await service.close();
    }
  });
});
