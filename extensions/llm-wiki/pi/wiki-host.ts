/**
 * Per-session state of the Pi host: the one service (created on first use
 * from the session's working directory and settings), the session's recall
 * feedback recorder, the background reindexer, and the UI the background
 * work reports to. A new session loads the extension again, so nothing here
 * outlives its session.
 */
import type { ExtensionContext, ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../lib/diagnostics.ts";
import type { FeedbackSession } from "../lib/feedback/feedback-session.ts";
import { preloadQmd } from "../lib/index/qmd-store.ts";
import { renderDiagnostics } from "../lib/render-text.ts";
import type { VaultKind } from "../lib/vault/paths.ts";
import { refreshProblems } from "../lib/views/views-follow.ts";
import { createWikiService, type WikiService } from "../lib/wiki-service.ts";
import { type CommandOutput, createCommandOutput } from "./command-output.ts";
import { createReindexScheduler } from "./reindex-scheduler.ts";
import { loadPiSettings } from "./settings.ts";
import { INDEXING_STATUS, reindexStatus, STATUS_KEY, statusText } from "./status-line.ts";

/** Quiet period before page edits are indexed: one pass for a burst of edits. */
const REINDEX_DELAY_MS = 500;
/** How long an explicit tool waits for a background pass before answering from the index as it is. */
const INDEX_WAIT_MS = 15_000;

export interface WikiHost {
  /** The session's service; the first call reads the settings and reports their problems once. */
  service(ctx: ExtensionContext): WikiService;
  /**
   * The session's recall feedback recorder (what recall showed it, and what
   * became of each page), created on first use; the only one that can judge
   * the pages this session was shown.
   */
  feedback(ctx: ExtensionContext): FeedbackSession;
  /** Forgets what was shown: a session that starts afresh judges only what it is shown itself. */
  resetFeedback(): void;
  /**
   * Asks for a coalesced background lexical update of a vault's index;
   * `paths` are the files known to have changed, when the caller knows.
   */
  scheduleReindex(
    ctx: ExtensionContext,
    vault: VaultKind,
    delayMs?: number,
    paths?: readonly string[],
  ): void;
  /** Resolves when no background update is running or waiting, or after `INDEX_WAIT_MS`. */
  indexed(): Promise<void>;
  /**
   * Makes the next automatic recall wait for the background index first:
   * the session started on a small vault without a usable index, and a first
   * turn answered from no index would recall nothing.
   */
  holdFirstRecall(): void;
  /** Waits for the index once after `holdFirstRecall`; at once otherwise. */
  firstRecallReady(): Promise<void>;
  /** What the status line says while the next background pass runs (instead of "indexing…"). */
  announceNextPass(text: string): void;
  /** Reports on the status line; never throws (the UI may be gone). */
  setStatus(text: string): void;
  /** Stops background work and closes the service. */
  shutdown(): Promise<void>;
}

export interface WikiHostOptions {
  /** Environment for vault discovery and models; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Pi's agent folder; default Pi's own (`PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
  agentDir?: string;
  reindexDelayMs?: number;
  /** Where the settings' problems are shown; default notices and, with no UI, standard error. */
  output?: CommandOutput;
}

export function createWikiHost(options: WikiHostOptions = {}): WikiHost {
  // The service is made at session start; QMD's modules load from the
  // extension's own start, so a first prompt right after session start
  // (print mode) does not wait for them.
  preloadQmd();
  let service: WikiService | undefined;
  let feedback: FeedbackSession | undefined;
  // Background passes outlive the event that scheduled them; they report to the latest UI.
  let ui: ExtensionUIContext | undefined;
  let firstRecallHeld = false;
  let nextPassStatus: string | undefined;

  const setStatus = (text: string) => {
    try {
      ui?.setStatus(STATUS_KEY, statusText(text));
    } catch {
      // A UI that is gone (session replaced) has nobody to tell.
    }
  };

  const scheduler = createReindexScheduler({
    delayMs: options.reindexDelayMs ?? REINDEX_DELAY_MS,
    async run(vault, paths) {
      if (!service) return;
      setStatus(nextPassStatus ?? INDEXING_STATUS);
      nextPassStatus = undefined;
      try {
        setStatus(
          reindexStatus(
            await service.reindex({ scope: "changed", vault, ...(paths ? { paths } : {}) }),
          ),
        );
        // The views follow pages the agent wrote with its own file tools too.
        const current = service;
        const [target] = current?.resolveVaults(vault) ?? [];
        if (current && target) current.noteWrite(target, paths);
      } catch (error) {
        setStatus(`wiki: indexing failed (${errorMessage(error)})`);
      }
    },
  });

  const getService = (ctx: ExtensionContext): WikiService => {
    ui = ctx.ui;
    if (service) return service;
    const { settings, diagnostics } = loadPiSettings({
      cwd: ctx.cwd,
      projectTrusted: ctx.isProjectTrusted(),
      ...(options.agentDir ? { agentDir: options.agentDir } : {}),
    });
    service = createWikiService({
      cwd: ctx.cwd,
      settings,
      agent: "pi",
      env: options.env ?? process.env,
      // The views follow the session's writes, debounced; shutdown flushes them (`close`).
      views: {
        onRefresh(refresh) {
          const problems = refreshProblems(refresh);
          if (problems.length > 0) {
            ui?.notify(`llm-wiki views after a write:\n${renderDiagnostics(problems)}`, "warning");
          }
        },
      },
    });
    if (diagnostics.length > 0) {
      (options.output ?? createCommandOutput()).show(
        ctx,
        `llm-wiki settings:\n${renderDiagnostics(diagnostics)}`,
        "warning",
      );
    }
    return service;
  };

  return {
    service: getService,

    feedback(ctx) {
      feedback ??= getService(ctx).feedbackSession();
      return feedback;
    },

    resetFeedback() {
      feedback = undefined;
    },

    scheduleReindex(ctx, vault, delayMs, paths) {
      getService(ctx);
      scheduler.schedule(vault, delayMs, paths);
    },

    async indexed() {
      if (!scheduler.busy) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      // Referenced: a tool's answer waits on this race, so the process must
      // not end before it resolves (it is cleared as soon as the pass ends).
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, INDEX_WAIT_MS);
      });
      await Promise.race([scheduler.settled(), timeout]);
      clearTimeout(timer);
    },

    holdFirstRecall() {
      firstRecallHeld = true;
    },

    async firstRecallReady() {
      if (!firstRecallHeld) return;
      firstRecallHeld = false;
      await this.indexed();
    },

    announceNextPass(text) {
      nextPassStatus = text;
    },

    setStatus,

    async shutdown() {
      await scheduler.dispose();
      const current = service;
      service = undefined;
      feedback = undefined;
      ui = undefined;
      await current?.close();
    },
  };
}
