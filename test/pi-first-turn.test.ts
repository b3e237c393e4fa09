/**
 * The first turn in a fresh vault: a session that starts on a vault with no
 * index yet builds it in the background, and a small vault's first automatic
 * recall waits for it, so the very first question already gets its notes.
 * A big vault does not hold the turn: the status line says once that
 * automatic recall starts when indexing ends.
 */
import { cpSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { beforeEach, describe, expect, it } from "vitest";
import { FIRST_TURN_WAIT_PAGES } from "../extensions/llm-wiki/pi/session-start.ts";
import { eventually, piPerTest, textOf } from "./helpers/pi-session.ts";
import { makeTempVault, pageText } from "./helpers/temp-vault.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const fixture = piPerTest("llm-wiki-first-turn-");

const isRecall = (m: Message) => m.role === "user" && textOf(m).startsWith("<wiki-recall");

describe("a small vault with no index yet", () => {
  beforeEach(() => {
    cpSync(EXAMPLE, fixture.dirs.project, {
      recursive: true,
      filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
    });
  });

  it("gets automatic recall on the very first prompt, every time", async () => {
    for (let run = 0; run < 3; run += 1) {
      // A fresh copy each run: nothing left from the run before.
      const project = join(fixture.dirs.root, `project-${run}`);
      cpSync(fixture.dirs.project, project, { recursive: true });
      const pi = await fixture.start({ project });
      pi.script("ok");
      await pi.session.prompt("how do we keep the cache consistent");
      await pi.session.waitForIdle();
      const [first] = pi.requests;
      expect(first?.some(isRecall), `run ${run}: the first request carries recalled notes`).toBe(
        true,
      );
    }
  });
});

describe("a big vault with no index yet", () => {
  beforeEach(() => {
    const pages: Record<string, string> = {};
    for (let i = 0; i <= FIRST_TURN_WAIT_PAGES; i += 1) {
      pages[`concepts/note-${i}`] = pageText(
        { type: "concept", title: `Note ${i}` },
        `Note number ${i} about topic ${i % 17}.\n`,
      );
    }
    makeTempVault({ root: fixture.dirs.project, pages });
  });

  it("does not hold the first turn, and says once when automatic recall starts", async () => {
    const pi = await fixture.start();
    pi.script("ok");
    await pi.session.prompt("what is note 7 about");
    await pi.session.waitForIdle();
    // The pass runs in the background; the turn did not wait for it.
    expect(
      await eventually(() => pi.statuses.some((s) => s.startsWith("wiki: index updated")), 60_000),
    ).toBe(true);
    const said = pi.statuses.filter((s) =>
      s.includes("automatic recall starts when indexing ends"),
    );
    expect(said).toEqual([
      `wiki: indexing ${FIRST_TURN_WAIT_PAGES + 1} pages; automatic recall starts when indexing ends`,
    ]);
  });
});
