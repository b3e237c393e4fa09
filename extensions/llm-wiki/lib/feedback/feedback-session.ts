/**
 * What one session (a Pi session, an MCP client's connection, a CLI run)
 * showed and what became of it. The shown set holds page ids, ranks and the
 * query's hash — never the query — and is the only source of a query hash
 * for an explicit judgment: a caller can judge only a page this session was
 * shown, and cannot attach a judgment to a query of its choosing.
 *
 * Implicit signals (`shown`, `opened`, `cited`, `shown_only`) are written
 * only while `implicit` is on (the `recallFeedback` setting); explicit
 * judgments and corrections always are.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import type { RecallResult } from "../recall-operation.ts";
import type { PageMeta } from "../vault/page.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { failureDiagnostic } from "../writing/input.ts";
import { type CorrectionWrite, writeCorrection } from "./correction.ts";
import {
  appendFeedback,
  type FeedbackAction,
  type FeedbackEvent,
  INDEX_VERSION,
  JUDGMENTS,
  type Judgment,
  queryHash,
} from "./feedback-event.ts";

export type VaultKind = "project" | "personal";

/** What the session needs to know of a vault. */
export interface FeedbackVault {
  paths: VaultPaths;
  /** `vault_id` of its config. */
  vaultId: string;
  page(id: string): Pick<PageMeta, "id" | "title" | "path"> | undefined;
}

/** A page the session was shown. */
export interface ShownPage {
  vault: VaultKind;
  page: string;
  queryHash: string;
  /** 1-based rank among the recall's pages. */
  rank: number;
  mode: string;
  embedModel?: string;
  /** The turn it was shown in (see `endTurn`). */
  turn: number;
  opened: boolean;
  cited: boolean;
}

export interface JudgeInput {
  vault?: VaultKind;
  page: string;
  judgment: Judgment;
  /** Required for `corrected`: the user's words. */
  correction?: string;
}

export interface JudgeResult {
  ok: boolean;
  vault?: VaultKind;
  page?: string;
  judgment?: Judgment;
  /** The correction's observation page, for `corrected`. */
  correction?: { id: string; path: string; created: boolean };
  diagnostics: Diagnostic[];
}

export interface FeedbackSessionOptions {
  /** Capture implicit signals (the `recallFeedback` setting). */
  implicit: boolean;
  /** The vault of a kind, or undefined when the session has none. */
  vault(kind: VaultKind): FeedbackVault | undefined;
  now?: () => Date;
}

const WIKILINK_ID = /\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]/g;

/** The session's feedback recorder. */
export class FeedbackSession {
  private readonly shownPages = new Map<string, ShownPage>();
  /** Corrections saved whose `corrected` event could not be logged: a retry logs it. */
  private readonly pendingCorrections = new Set<string>();
  /** Log writes of shown pages held until `flushShown` (`recordShown`'s `holdLog`), oldest first. */
  private readonly heldLogs: Array<() => void> = [];
  private turn = 0;
  private readonly options: FeedbackSessionOptions;

  constructor(options: FeedbackSessionOptions) {
    this.options = options;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** The folder of the session's vault of `kind`, when it has one. */
  vaultPaths(kind: VaultKind): VaultPaths | undefined {
    return this.options.vault(kind)?.paths;
  }

  /** Every page shown in this session, newest last. */
  shown(): ShownPage[] {
    return [...this.shownPages.values()];
  }

  /** The shown page, when this session was shown it. */
  find(vault: VaultKind | undefined, page: string): ShownPage | undefined {
    if (vault) return this.shownPages.get(`${vault}:${page}`);
    return this.shownPages.get(`project:${page}`) ?? this.shownPages.get(`personal:${page}`);
  }

  private write(
    entry: Pick<ShownPage, "vault" | "page" | "mode" | "embedModel"> & {
      queryHash: string | null;
      rank: number | null;
    },
    action: FeedbackAction,
    extra: Partial<Pick<FeedbackEvent, "observation" | "resolution">> = {},
  ): void {
    this.writeAll([entry], action, extra);
  }

  /** Logs `action` for each entry, one append per vault (a turn's signals in one write). */
  private writeAll(
    entries: ReadonlyArray<
      Pick<ShownPage, "vault" | "page" | "mode" | "embedModel"> & {
        queryHash: string | null;
        rank: number | null;
      }
    >,
    action: FeedbackAction,
    extra: Partial<Pick<FeedbackEvent, "observation" | "resolution">> = {},
  ): void {
    // Whatever was shown before this is logged before it: the log keeps the session's order.
    this.flushShown();
    const now = this.now();
    for (const kind of ["project", "personal"] as const) {
      const mine = entries.filter((e) => e.vault === kind);
      const v = mine.length > 0 ? this.options.vault(kind) : undefined;
      if (!v) continue;
      appendFeedback(
        v.paths,
        mine.map((entry) => ({
          vault_id: v.vaultId,
          page: entry.page,
          query_hash: entry.queryHash,
          action,
          rank: entry.rank,
          mode: entry.mode,
          index_version: INDEX_VERSION,
          ...(entry.embedModel ? { embed_model: entry.embedModel } : {}),
          ...extra,
        })),
        now,
      );
    }
  }

  /**
   * Records what a delivered recall showed (call after delivery: a block
   * the model never received was not shown). Ranks are the pages' order in
   * the answer. With `holdLog`, the pages count as shown at once but their
   * log line waits for `flushShown` (or the session's next log write,
   * which writes it first): a host records them before its answer goes out
   * and logs them after, so the answer does not wait for the log's first
   * write (the secret detector it builds, the log files it lists).
   */
  recordShown(
    result: Pick<RecallResult, "query" | "results" | "modeUsed">,
    embedModel?: string,
    options: { holdLog?: boolean } = {},
  ): void {
    if (result.results.length === 0) return;
    const hash = queryHash(result.query);
    const mode = result.modeUsed;
    let rank = 0;
    const seen = new Set<string>();
    const fresh: ShownPage[] = [];
    for (const item of result.results) {
      const key = `${item.vault}:${item.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rank += 1;
      const entry: ShownPage = {
        vault: item.vault,
        page: item.id,
        queryHash: hash,
        rank,
        mode,
        ...(embedModel && mode !== "lexical" ? { embedModel } : {}),
        turn: this.turn,
        opened: false,
        cited: false,
      };
      // Shown again: the latest showing is the one later signals refer to.
      this.shownPages.delete(key);
      this.shownPages.set(key, entry);
      fresh.push(entry);
    }
    if (!this.options.implicit) return;
    if (options.holdLog) this.heldLogs.push(() => this.writeAll(fresh, "shown"));
    else this.writeAll(fresh, "shown");
  }

  /**
   * Writes the held log lines of shown pages, oldest first. One that cannot
   * be written (a read-only vault, a full disk) loses that signal only,
   * never the write that flushed it.
   */
  flushShown(): void {
    for (const write of this.heldLogs.splice(0)) {
      try {
        write();
      } catch {
        // As for an unheld log line: the signal is lost, nothing else.
      }
    }
  }

  /**
   * Takes over pages an earlier process showed (the CLI's last recall,
   * saved without the query), writing nothing: judgments may then name
   * them as if this session had shown them, in the current turn.
   */
  restoreShown(pages: readonly Omit<ShownPage, "turn" | "opened" | "cited">[]): void {
    for (const page of pages) {
      const key = `${page.vault}:${page.page}`;
      this.shownPages.delete(key);
      this.shownPages.set(key, { ...page, turn: this.turn, opened: false, cited: false });
    }
  }

  /** A page was read in this turn (a read tool, an MCP resource): `opened`, once per showing. */
  recordOpened(vault: VaultKind, page: string): boolean {
    const entry = this.shownPages.get(`${vault}:${page}`);
    if (!entry || entry.turn !== this.turn || entry.opened) return false;
    entry.opened = true;
    if (this.options.implicit) this.write(entry, "opened");
    return true;
  }

  /** The assistant's answer: pages of this turn named by id or wikilink are `cited`. */
  recordAnswer(text: string): string[] {
    const cited: string[] = [];
    const entries: ShownPage[] = [];
    const links = new Set([...text.matchAll(WIKILINK_ID)].map((m) => (m[1] ?? "").trim()));
    for (const entry of this.shownPages.values()) {
      if (entry.turn !== this.turn || entry.cited) continue;
      if (!links.has(entry.page) && !mentionsId(text, entry.page)) continue;
      entry.cited = true;
      cited.push(entry.page);
      entries.push(entry);
    }
    if (this.options.implicit) this.writeAll(entries, "cited");
    return cited;
  }

  /** Ends the turn: its pages neither opened nor cited are `shown_only`. */
  endTurn(): void {
    const unused = [...this.shownPages.values()].filter(
      (entry) => entry.turn === this.turn && !entry.opened && !entry.cited,
    );
    // The turn ends even when the log cannot be written.
    this.turn += 1;
    if (this.options.implicit) this.writeAll(unused, "shown_only");
  }

  /**
   * An explicit judgment of a page this session was shown. `corrected`
   * writes the correction's observation page first; if that fails nothing
   * else is written (`write_failed`, or the refusal's own code), and if the
   * log then fails the page stands and the result says
   * `correction_saved_feedback_pending` — the projection counts the
   * correction from its page all the same, and the same call retried in this
   * session logs the event once the log takes it (never a second page or event).
   */
  judge(input: JudgeInput): JudgeResult {
    if (!(JUDGMENTS as readonly string[]).includes(input.judgment)) {
      return refuse("feedback_invalid", `judgment must be one of ${JUDGMENTS.join(", ")}`);
    }
    const entry = this.find(input.vault, input.page);
    if (!entry) {
      return refuse(
        "feedback_not_shown",
        `${input.page} was not shown by a recall in this session; only a shown page can be judged`,
      );
    }
    const v = this.options.vault(entry.vault);
    const meta = v?.page(entry.page);
    if (!v || !meta) {
      return refuse(
        "feedback_page_missing",
        `${entry.page} no longer exists in the ${entry.vault} vault`,
      );
    }
    const base = { ok: true, vault: entry.vault, page: entry.page, judgment: input.judgment };
    if (input.judgment !== "corrected") {
      if (input.correction !== undefined && input.correction.trim() !== "") {
        return refuse(
          "feedback_invalid",
          "a correction is given only with the judgment `corrected`",
        );
      }
      this.write(entry, input.judgment);
      return { ...base, diagnostics: [] };
    }
    if (input.correction === undefined || input.correction.trim() === "") {
      return refuse(
        "feedback_invalid",
        "`corrected` needs the correction: what was wrong, what holds instead",
      );
    }
    let written: CorrectionWrite;
    try {
      written = writeCorrection(
        v.paths,
        {
          corrected: meta,
          correction: input.correction,
          vaultId: v.vaultId,
          queryHash: entry.queryHash,
        },
        this.now(),
      );
    } catch (error) {
      // Nothing was written: no page, so no event.
      return { ok: false, diagnostics: [failureDiagnostic(error)] };
    }
    const correction = {
      id: written.id ?? "",
      path: written.path ?? "",
      created: written.created ?? true,
    };
    const pending = (error: unknown): JudgeResult => {
      this.pendingCorrections.add(correction.id);
      return {
        ...base,
        correction,
        diagnostics: [
          diagnostic(
            "correction_saved_feedback_pending",
            "warning",
            `the correction is saved at ${correction.path}; its feedback event could not be logged (${error instanceof Error ? error.message : String(error)}); the correction counts from the page, and the same call again logs the event`,
            { path: correction.path },
          ),
        ],
      };
    };
    if (written.logFailure !== undefined) return pending(written.logFailure);
    // A retried call finds the same page: its event was logged the first time, unless that failed.
    if (!correction.created && !this.pendingCorrections.has(correction.id)) {
      return { ...base, correction, diagnostics: written.diagnostics };
    }
    try {
      this.write(entry, "corrected", { observation: correction.id });
    } catch (error) {
      return pending(error);
    }
    this.pendingCorrections.delete(correction.id);
    return { ...base, correction, diagnostics: written.diagnostics };
  }

  /** A conflict resolution chose `selected` (outside any query): `conflict_selected`. */
  recordConflictChoice(vault: VaultKind, selected: string, resolution: string): void {
    const shown = this.find(vault, selected);
    this.write(
      {
        vault,
        page: selected,
        queryHash: shown?.queryHash ?? null,
        rank: shown?.rank ?? null,
        mode: shown?.mode ?? "none",
      },
      "conflict_selected",
      { resolution },
    );
  }
}

function refuse(code: string, message: string): JudgeResult {
  return { ok: false, diagnostics: [diagnostic(code, "error", message)] };
}

/** Whether `text` names the page id as a whole token (`concepts/x`, not `concepts/xy`). */
function mentionsId(text: string, id: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(id, from);
    if (at < 0) return false;
    const before = text[at - 1] ?? " ";
    const after = text[at + id.length] ?? " ";
    if (!/[\p{L}\p{N}_/-]/u.test(before) && !/[\p{L}\p{N}_-]/u.test(after)) return true;
    from = at + 1;
  }
}
