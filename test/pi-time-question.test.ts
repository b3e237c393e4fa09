/**
 * Pi's automatic recall (before_agent_start) answers a question only about
 * a time: "what did we decide last week" carries last week's decision into
 * the model's request, through a real Pi session with the faux model, while
 * an ordinary prompt carries no recalled notes. Pi's clock is the real one,
 * so the vault is dated relative to today.
 */
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { decisionVault } from "./helpers/decision-vault.ts";
import { piPerTest, textOf } from "./helpers/pi-session.ts";

const fixture = piPerTest("llm-wiki-time-question-");
const recallOf = (messages: readonly Message[] | undefined) =>
  (messages ?? [])
    .filter((m) => m.role === "user" && textOf(m).startsWith("<wiki-recall"))
    .map(textOf)
    .join("\n");

describe("Pi: automatic recall of a question about a time", () => {
  it("injects last week's decision for 'what did we decide last week', and nothing for an ordinary prompt", async () => {
    const { lastWeek, older, card } = decisionVault(new Date(), fixture.dirs.project);
    const pi = await fixture.start();
    pi.script("ok", "ok");
    await pi.session.prompt("what did we decide last week?");
    await pi.session.waitForIdle();
    const asked = recallOf(pi.requests[0]);
    expect(asked).toContain(lastWeek.id);
    expect(asked).not.toContain(older.id);
    expect(asked).not.toContain(card.id);
    await pi.session.prompt("write a haiku about autumn leaves");
    await pi.session.waitForIdle();
    const last = pi.requests.at(-1) ?? [];
    // Only the newest user message belongs to this turn.
    const turn = last.slice(last.findLastIndex((m) => m.role === "assistant") + 1);
    expect(recallOf(turn)).toBe("");
  });
});
