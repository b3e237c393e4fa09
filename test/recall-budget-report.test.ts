/**
 * When the turn budget cuts a search step, the answer says so: a
 * `recall_budget_exceeded` warning naming the step and the budget, and the
 * hosts show it — the CLI's text ("not searched in time", never "no
 * reliable memory found"), the text a Pi or MCP tool returns, and Pi's
 * status line — so an empty answer never reads as "no memory". The step is
 * forced out with a store whose lexical search never answers (no timing
 * assertion: the budget, not the machine, decides).
 */
import { afterAll, describe, expect, it } from "vitest";
import { capabilities, retrievalVault } from "../extensions/llm-wiki/lib/recall/recall-vaults.ts";
import { emptyRecall } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { renderAnswer, renderRecallResult } from "../extensions/llm-wiki/lib/render-text.ts";
import type { RetrievalStore } from "../extensions/llm-wiki/lib/retrieval/retrieval-types.ts";
import { BUDGET_DIAGNOSTIC } from "../extensions/llm-wiki/lib/retrieval/turn-budget.ts";
import { retrieve } from "../extensions/llm-wiki/lib/retrieval.ts";
import { AUTOMATIC_POLICY } from "../extensions/llm-wiki/lib/retrieval-policy.ts";
import { recallStatus } from "../extensions/llm-wiki/pi/status-line.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterAll(async () => {
  await closeServices();
  removeTempDirs();
});

const QUERY = "tombstone compaction";

describe("a recall whose lexical step the budget cuts", () => {
  it("carries a warning naming the step and the budget, and every host shows it", async () => {
    const vault = makeTempVault({
      pages: {
        "concepts/tombstones": pageText(
          { type: "concept", title: "Tombstones" },
          "Tombstone compaction runs nightly and keeps deletes for 30 days.",
        ),
      },
    });
    const service = serviceFor(vault.root);
    await service.reindex({});
    const [paths] = service.resolveVaults();
    if (!paths) throw new Error("no vault");
    const handle = service.handles.get(paths);
    const real = await handle.index.store();
    if (!real) throw new Error("no store");
    // Answered at once, the same query finds the page: the cut, not the vault, empties the answer.
    expect((await real.searchLex(QUERY, { limit: 5 })).length).toBeGreaterThan(0);
    const hung: RetrievalStore = {
      searchLex: () => new Promise<never>(() => {}),
      searchVector: real.searchVector,
      searchExpanded: real.searchExpanded,
    };
    const budgetMs = 50;
    const outcome = await retrieve([{ ...retrievalVault(handle), store: async () => hung }], {
      query: QUERY,
      policy: AUTOMATIC_POLICY,
      mode: "lexical",
      capabilities: capabilities(service.handles),
      budgetMs,
    });
    expect(outcome.hits).toEqual([]);
    const cut = outcome.diagnostics.find((d) => d.code === BUDGET_DIAGNOSTIC);
    expect(cut?.severity).toBe("warning");
    expect(cut?.message).toContain("lexical step");
    expect(cut?.message).toContain(`turn budget ${budgetMs} ms`);

    const result = emptyRecall(
      { query: QUERY, policy: "automatic", requestedMode: "lexical" },
      outcome.diagnostics,
    );
    const text = renderRecallResult(result);
    expect(text).toContain("not searched in time");
    expect(text).not.toContain("no reliable memory found");
    // Pi and MCP tools answer with the rendering and the warnings.
    expect(renderAnswer(result.ok, text, result.diagnostics)).toContain("lexical step");
    expect(recallStatus(result)).toBe("wiki: out of time (turn budget)");
    expect(recallStatus({ ...result, diagnostics: [] })).toBe("wiki: no match");
  });
});
