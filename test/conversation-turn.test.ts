/**
 * A turn of conversation with the agent ("go ahead", "looks good to me",
 * "ship it") names nothing to remember: automatic recall stays silent on
 * it, even in a vault whose pages use those very words, and says why. An
 * asked recall still searches it, and a turn that names something is no
 * longer conversation. Each run draws its own turns and coined words.
 */
import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quietReason } from "../cli/hook-quiet.ts";
import { renderRecallResult } from "../extensions/llm-wiki/lib/render-text.ts";
import { isConversationTurn } from "../extensions/llm-wiki/lib/retrieval/conversation-turn.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)] as T;

const ACKNOWLEDGE = ["ok", "okay", "yes", "yeah", "sure", "great", "perfect", "thanks", "lgtm"];
const STEER = [
  "go ahead",
  "keep going",
  "continue",
  "looks good to me",
  "sounds good",
  "try again",
  "what's next?",
  "no, the other one",
  "wait, stop",
  "never mind",
  "do the same for the rest",
];
const VERBS = ["ship", "commit", "push", "fix", "merge", "deploy", "revert", "explain", "rerun"];
const REFERENTS = ["it", "that", "this", "them"];

/** A turn of conversation as people type one, drawn afresh. */
function turn(): string {
  const shape = randomInt(3);
  if (shape === 0) return `${pick(ACKNOWLEDGE)}, ${pick(STEER)}`;
  if (shape === 1) return `${pick(ACKNOWLEDGE)} ${pick(VERBS)} ${pick(REFERENTS)}`;
  return `${pick(STEER)}${pick(["", "!", ".", " please"])}`;
}

describe("a turn of conversation", () => {
  it("is told from conversation, whatever acknowledgement, steer or short command on a referent", () => {
    for (let i = 0; i < 200; i += 1) {
      const text = turn();
      expect(isConversationTurn(text), text).toBe(true);
      expect(isConversationTurn(text.toUpperCase()), text).toBe(true);
    }
  });

  it("is no longer conversation once it names something: a word, a number or a path", () => {
    for (let i = 0; i < 100; i += 1) {
      const name = randomWord(5, 9);
      for (const text of [
        `${pick(STEER)} with the ${name}`,
        `${name}`,
        `${pick(VERBS)} ${name} ${pick(REFERENTS)}`,
        `${pick(VERBS)} ${pick(REFERENTS)} to ${randomInt(2, 99)}`,
        `${pick(VERBS)} src/${name}.ts`,
        `${pick(ACKNOWLEDGE)}, now ${pick(VERBS)} the ${name} ${randomWord(5, 9)} too`,
      ]) {
        expect(isConversationTurn(text), text).toBe(false);
      }
    }
    expect(isConversationTurn("")).toBe(false);
  });
});

describe("automatic recall on a turn of conversation", () => {
  let service: WikiService;
  const project = randomWord(7, 10);

  beforeAll(async () => {
    // A release team's notes say "ship", "ahead" and "keep going" far more
    // often than software English does: without the rule, those words alone
    // pass automatic recall's evidence gate (the control below shows it).
    const pages: Record<string, string> = {
      "skills/ship-a-release": pageText(
        { title: "Ship a release", type: "skill" },
        `Go ahead and ship only when the checks look good. Ship ahead of the train when ${project} needs a hotfix; keep going until the rollout is at 100%. Ship it, then ship the notes.`,
      ),
      "concepts/ship-ahead": pageText(
        { title: "Shipping ahead of the train", type: "concept" },
        "We ship ahead of the train for hotfixes. Go ahead only with a second reviewer. Keep going once the canary looks good.",
      ),
    };
    for (let i = 0; i < 10; i += 1) {
      pages[`entities/${randomWord(6, 9)}`] = pageText(
        { title: randomWord(6, 9), type: "entity" },
        `${randomWord(5, 8)} ${randomWord(5, 8)} ${randomWord(5, 8)} runs on the ${randomWord(5, 8)} cluster.`,
      );
    }
    const vault = makeTempVault({ pages });
    service = serviceFor(vault.root);
    expect((await service.reindex({ scope: "all", components: ["lexical"] })).ok).toBe(true);
  });

  afterAll(async () => {
    await closeServices();
    removeTempDirs();
  });

  it("injects nothing and says it was a turn of conversation", async () => {
    for (const query of ["go ahead", "ship it", "keep going", "looks good, go ahead", turn()]) {
      const result = await service.recall({ query, policy: "automatic" });
      expect(result.results, query).toEqual([]);
      expect(result.rendered, query).toBe("");
      expect(quietReason("recall", result)).toMatch(/turn of conversation/);
      expect(renderRecallResult(result).split("\n")[0]).toContain("a turn of conversation");
    }
  });

  it("still injects for the same words once they name what the vault holds (the control)", async () => {
    const result = await service.recall({ query: "ship ahead", policy: "automatic" });
    expect(result.results.map((r) => r.id)).toContain("concepts/ship-ahead");
    const named = await service.recall({
      query: `go ahead with the ${project} hotfix`,
      policy: "automatic",
    });
    expect(named.results.map((r) => r.id)).toContain("skills/ship-a-release");
  });

  it("is searched as written when recall is asked for", async () => {
    const result = await service.recall({ query: "go ahead" });
    expect(result.results.length).toBeGreaterThan(0);
  });
});
