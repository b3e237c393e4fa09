/**
 * Any page type is kept (OKF readers tolerate unknown types), so a type may
 * be named like a property of every JavaScript object: status still counts
 * each as a number, and nothing is inherited or polluted.
 */
import { afterEach, describe, expect, it } from "vitest";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

describe("status counts by type", () => {
  it("counts types named constructor, toString or valueOf like any other", () => {
    const types = ["constructor", "toString", "hasOwnProperty", "valueOf", randomWord()];
    const pages: Record<string, string> = {};
    for (const [i, type] of types.entries()) {
      pages[`sources/p${i}`] = pageText({ type, title: `Page ${i} ${randomWord()}` }, "Body.\n");
    }
    pages["concepts/known"] = pageText({ type: "concept", title: "Known" }, "Body.\n");
    const { root } = makeTempVault({ pages });
    const status = serviceFor(root).status();
    const byType = status.vault?.byType ?? {};
    for (const type of types) {
      expect(Object.hasOwn(byType, type), type).toBe(true);
      expect(byType[type], type).toBe(1);
    }
    expect(byType.concept).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(byType)).toBe(Object.prototype);
  });
});
