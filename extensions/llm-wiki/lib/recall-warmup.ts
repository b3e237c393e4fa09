/**
 * What a first recall would otherwise pay for before it reads anything,
 * paid while the server has nothing else to do: after the handshake's answer
 * has gone out and before the client's first call arrives. Each vault's
 * index is opened (its SQLite file and the lexical search's prepared
 * statements; an index that exists opens read-only and lexical-first, a
 * missing one opens nothing), the models' availability is probed (file
 * checks), and the parsers a recall runs on its question build their
 * patterns and tables on a fixed phrase. The first step (the first vault's
 * index, the largest) runs at once, the others one per event-loop turn, so
 * a call that arrives waits for the step in hand at most, and none runs once
 * a call has started: that call pays what is left itself.
 *
 * Nothing here searches, writes or takes a lock, so no answer can change
 * and no writer waits; a step that fails (a vault gone, an unreadable
 * index) is dropped, and the recall that meets the same failure reports it.
 */
import { buildLexQuery } from "./index/lex-query.ts";
import { ftsTokens } from "./lexical/fts-tokens.ts";
import { readQuestion } from "./retrieval/question-intent.ts";
import { redactSecrets } from "./safety/redact.ts";
import { parseTimeWindow } from "./temporal/time-window.ts";
import type { WikiService } from "./wiki-service.ts";

/** A phrase with a question, a time window and plain words: every parser below reads something in it. */
const PHRASE = "how did we decide the retry policy for failed jobs since last week";

export interface RecallWarmup {
  /** Starts the steps (once; a stopped warm-up stays stopped). */
  start(): void;
  /** No further step runs; the one in hand finishes. */
  stop(): void;
  /** Resolves when the warm-up has finished or stopped (at once when never started). */
  settled(): Promise<void>;
}

/** One step of the warm-up; a promise is awaited before the next step's turn. */
export type WarmupStep = () => unknown;

/** The steps for `service`: its vaults' indexes opened, model availability, the question parsers. */
export function recallWarmupSteps(service: WikiService): WarmupStep[] {
  return [
    ...service.resolveVaults("all").map((vault) => () => service.handles.get(vault).index.store()),
    () => service.handles.availability(),
    () => readQuestion(PHRASE),
    () => parseTimeWindow(PHRASE, { now: new Date() }),
    () => buildLexQuery(PHRASE, { joinWords: true, relatedWords: true }),
    () => ftsTokens(PHRASE),
    // Shown pages are logged, and page resources served, redacted: the
    // detector builds its automaton on first use.
    () => redactSecrets(PHRASE),
  ];
}

/** The warm-up running `steps` (default: `recallWarmupSteps(service)`, listed when it starts). */
export function createRecallWarmup(
  service: WikiService,
  steps: () => WarmupStep[] = () => recallWarmupSteps(service),
): RecallWarmup {
  let state: "idle" | "running" | "stopped" = "idle";
  let running: Promise<void> | undefined;
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const run = async (): Promise<void> => {
    let list: WarmupStep[];
    try {
      list = steps();
    } catch {
      // No vault to resolve (a folder gone): the first call says so itself.
      return;
    }
    for (const [i, step] of list.entries()) {
      // The first step at once: the client's next message is still on its way.
      if (i > 0) await nextTurn();
      if (state === "stopped") return;
      try {
        await step();
      } catch {
        // The recall meeting the same failure reports it; a warm-up only saves time.
      }
    }
  };
  return {
    start() {
      if (state !== "idle") return;
      state = "running";
      running = run().finally(() => {
        if (state === "running") state = "stopped";
      });
    },
    stop() {
      state = "stopped";
    },
    settled: () => running ?? Promise.resolve(),
  };
}
