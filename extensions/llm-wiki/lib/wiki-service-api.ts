/**
 * The service's surface: what every host may ask of it (`WikiService`) and
 * the shapes of its answers. `wiki-service.ts` builds it and re-exports
 * these, so hosts import both from there.
 */
import type { CaptureSourceInput, CaptureSourceResult } from "./capture/capture-source.ts";
import type { LinkedCommit } from "./code-refs/recall-code.ts";
import type { VaultOverview } from "./dashboard/vault-overview.ts";
import type { Diagnostic } from "./diagnostics.ts";
import type { DigestInput, DigestResult } from "./digest/digest.ts";
import type { FeedbackSession, JudgeInput, JudgeResult } from "./feedback/feedback-session.ts";
import type { IndexStatus } from "./index/index-state.ts";
import type { ModelRole } from "./index/models.ts";
import type { ReindexComponent, ReindexReport, ReindexScope } from "./index/qmd-indexing.ts";
import type { ReaderPool } from "./index/reader-pool.ts";
import type { LintResult } from "./lint/types.ts";
import type { OkfExportInput, OkfExportResult } from "./okf/okf-export.ts";
import type { OkfImportInput, OkfImportResult } from "./okf/okf-import.ts";
import type { GitContext } from "./priming/git-context.ts";
import type { PrimeInput, PrimeResult } from "./priming/prime.ts";
import type { RecallInput, RecallResult } from "./recall-operation.ts";
import type { RetrievalMode, WikiSettings } from "./settings.ts";
import type { RecentInput, RecentResult } from "./temporal/recent.ts";
import type { CaptureTrajectoryInput, CaptureTrajectoryResult } from "./trajectories/capture.ts";
import type { DistillBatchResult, MarkDistilledResult } from "./trajectories/distill.ts";
import type { ListSkillsResult } from "./trajectories/list-skills.ts";
import type { RecallSkillsInput } from "./trajectories/recall-skills.ts";
import type { BootstrapResult } from "./vault/bootstrap.ts";
import type { VaultConfig } from "./vault/config.ts";
import type { LookupHit } from "./vault/lookup.ts";
import type { DiscoveryEnv, VaultPaths, VaultSelector } from "./vault/paths.ts";
import type { Registry } from "./vault/registry.ts";
import type { VaultHandles } from "./vault-handles.ts";
import type { RebuildMetaInput, RebuildMetaResult } from "./views/rebuild-meta.ts";
import type { ViewsFollowOptions } from "./views/views-follow.ts";
import type { CRON_STOP, CronInterval, CronLineResult } from "./watch/cron-line.ts";
import type { EnsurePageInput, EnsurePageResult } from "./writing/ensure-page.ts";
import type { IngestInput, IngestResult } from "./writing/ingest.ts";
import type { LogEventInput, LogEventResult } from "./writing/log-event.ts";
import type { ObserveInput } from "./writing/observe.ts";
import type { ResolveConflictResult } from "./writing/record-resolution.ts";
import type { ResolveConflictInput } from "./writing/resolve-conflict.ts";
import type { RetroInput } from "./writing/retro.ts";
import type { WrittenPageResult } from "./writing/unique-page.ts";
import type { VerifyPageInput, VerifyPageResult } from "./writing/verify-page.ts";

export type { VaultSelector } from "./vault/paths.ts";

export interface WikiServiceOptions {
  cwd: string;
  env?: DiscoveryEnv;
  settings?: WikiSettings;
  /** An explicit vault (`--vault DIR`): a folder holding `.llm-wiki/`, or that folder itself. */
  vault?: string;
  /**
   * Open indexes lexical-first: QMD is loaded only when something besides
   * a lexical search needs it. For a process that lives for one recall (a
   * hook); results are the same, only what loads differs.
   */
  lexicalFirst?: boolean;
  /**
   * With `lexicalFirst`: where the read-only index stores are kept after
   * this service closes, for the next service of the same process (a warm
   * hook process makes one per request; index/reader-pool.ts). Answers are
   * the same; a kept store's caches of the index are not lost.
   */
  readers?: ReaderPool;
  /**
   * How the generated views follow writes (views/views-follow.ts): the wait
   * after a burst's last write, and a listener told of each refresh (its
   * diagnostics: a failed refresh never fails the write).
   */
  views?: ViewsFollowOptions;
  /**
   * What the host says about how it chose where its vaults are (e.g. the
   * `WIKI_ROOT` it honoured): added to every status.
   */
  notes?: Diagnostic[];
  /**
   * The agent writes are recorded as (`pi`, `cli`, a hook's client, an MCP
   * client's name; vault/writer.ts), asked at each write; default `cli`.
   */
  agent?: string | (() => string);
}

export interface VaultSummary {
  kind: VaultPaths["kind"];
  root: string;
  name?: string;
}

export interface StatusResult {
  ok: boolean;
  /** The vault's counts and links, then its overview (freshness, activity, queue, orphans, embeddings). */
  vault?: VaultSummary &
    VaultOverview & {
      config: VaultConfig;
      pages: number;
      byType: Record<string, number>;
      byRole: { canonical: number; evidence: number };
      malformed: number;
      /** Pages git left unmerged (conflict markers), to resolve and commit; absent when none. */
      mergeConflicts?: string[];
      links: { resolved: number; missing: number; ambiguous: number };
      index: IndexStatus;
      /** The newest commit whose message names a page of the vault (`[[id]]`, `wiki: id`). */
      lastCommit?: LinkedCommit & { page: string };
    };
  retrieval: {
    mode: RetrievalMode;
    models: Record<ModelRole, { uri: string; source: string; available: boolean; reason?: string }>;
  };
  diagnostics: Diagnostic[];
}

export interface ReindexInput {
  scope?: ReindexScope;
  components?: ReindexComponent[];
  force?: boolean;
  vault?: VaultSelector;
  signal?: AbortSignal;
  onProgress?: (event: { vault: string; phase: string; current: number; total: number }) => void;
  lockWaitMs?: number;
  /**
   * Files the caller knows changed (absolute, or relative to a vault's
   * `.llm-wiki/` folder): only these are looked at instead of walking every
   * page, while this service's registry is current. Files outside a vault's
   * `wiki/` are ignored.
   */
  paths?: readonly string[];
}

export interface ReindexResult {
  ok: boolean;
  reports: ReindexReport[];
  diagnostics: Diagnostic[];
}

export interface SearchResult {
  ok: boolean;
  query: string;
  hits: Array<LookupHit & { vault: VaultPaths["kind"] }>;
  diagnostics: Diagnostic[];
}

export type BootstrapOpResult = BootstrapResult & { ok: boolean; diagnostics: Diagnostic[] };

export interface EnsurePageOpResult extends Partial<EnsurePageResult> {
  ok: boolean;
  diagnostics: Diagnostic[];
}

/** The shared service; one per host process, holding no process-wide state. */
export interface WikiService {
  readonly settings: WikiSettings;
  /** Vaults this service acts on, discovered from the working directory or `--vault`. */
  resolveVaults(selector?: VaultSelector): VaultPaths[];
  /**
   * The vault unasked memory (automatic recall, session priming) reads: the
   * project's, or outside any project the personal vault (when the
   * `includePersonal` setting lets it answer); undefined when there is none.
   */
  ambientVault(): VaultPaths | undefined;
  bootstrap(input: {
    root?: string;
    /** A model named `root`: it must be the working directory or the project's folder. */
    confined?: boolean;
    name?: string;
    topic?: string;
    mode?: string;
  }): BootstrapOpResult;
  ensurePage(input: EnsurePageInput & { vault?: VaultSelector }): EnsurePageOpResult;
  /**
   * Captures text, a file or an http(s) URL into an immutable packet
   * `raw/sources/SRC-…/` (secrets redacted) with a skeleton source page.
   * `allowedRoots` (from a host's configuration, never a model's input) adds
   * folders a file may be read from, besides the project, cwd and home.
   */
  captureSource(
    input: CaptureSourceInput & {
      vault?: VaultSelector;
      allowedRoots?: string[];
      timeoutMs?: number;
      signal?: AbortSignal;
    },
  ): Promise<CaptureSourceResult>;
  /** `type` keeps only pages of that type (the older `wiki_search`'s filter). */
  search(input: {
    query: string;
    limit?: number;
    vault?: VaultSelector;
    type?: string;
  }): SearchResult;
  /**
   * A vault's pages, links, index and overview. `code: true` also counts
   * pages stale by code (git runs only after HEAD moved); `now` dates the
   * week of activity and staleness.
   */
  status(input?: { vault?: VaultSelector; now?: Date; code?: boolean }): StatusResult;
  /**
   * A vault's index status and root alone, none of the rest of `status`.
   * `refresh: false` reads the registry as held (a caller that has just
   * refreshed it, in slices); undefined when no vault is found.
   */
  indexStatus(input?: {
    vault?: VaultSelector;
    refresh?: boolean;
  }): { root: string; index: IndexStatus } | undefined;
  /**
   * Writes the digest of the last day or week (sources, pages, lint trend)
   * to `.llm-wiki/outputs/digest-YYYY-MM-DD.md` (never over an existing
   * file: `-2`, `-3`… the same day) and logs `digest_generated`.
   */
  digest(input?: DigestInput & { vault?: VaultSelector }): DigestResult;
  /** The crontab line that runs reindex, lint and digest on a schedule; installs nothing. */
  watchSchedule(input: {
    interval: CronInterval | typeof CRON_STOP;
    vault?: VaultSelector;
  }): CronLineResult;
  /** The up-to-date registry of a vault (incremental refresh). */
  registry(vault: VaultPaths): Registry;
  /** Recalls pages for a query (explicit or automatic policy) through the one retrieval service. */
  recall(input: RecallInput): Promise<RecallResult>;
  /**
   * Session priming: recalls what the session is about (the vault's topic,
   * the project's name, the git branch, recent commit subjects, changed
   * files) under the priming policy; nothing when nothing qualifies or the
   * `sessionPriming` setting is off. The ambient vault only (`ambientVault`).
   */
  prime(input?: PrimeInput): Promise<PrimeResult>;
  /**
   * Starts reading the session's git context now (session start), so the
   * first turn's priming does not wait for git; used by `prime` within
   * `PRIMING_PREFETCH_MAX_AGE_MS`. Nothing happens when priming is off or
   * there is no ambient vault. Never throws. `context`: a read of `cwd` the
   * host started itself before this service existed (a hook starts git
   * before loading the service's modules), taken instead of a new one.
   */
  prefetchPriming(input?: { cwd?: string; context?: Promise<GitContext> }): void;
  /** What changed in a window of days, from the event log, newest first. */
  recent(input?: RecentInput & { vault?: VaultSelector }): RecentResult;
  /** Brings the search index of the selected vaults up to date. */
  reindex(input?: ReindexInput): Promise<ReindexResult>;
  /**
   * Lints the selected vaults; `fix` only creates stubs for knowledge gaps.
   * Hands the event loop back every few milliseconds; when `signal` aborts,
   * stops there with an `operation_cancelled` diagnostic.
   */
  lint(input?: {
    vault?: VaultSelector;
    fix?: boolean;
    now?: Date;
    signal?: AbortSignal;
  }): Promise<LintResult>;
  /** Records an observation page (type `observation`, under `wiki/sources/`); never overwrites. */
  observe(input: ObserveInput & { vault?: VaultSelector }): WrittenPageResult;
  /** Records a retro page (type `retro`: context, went well, went badly, lessons); never overwrites. */
  retro(input: RetroInput & { vault?: VaultSelector }): WrittenPageResult;
  /** Appends a validated agent event to `meta/events.jsonl`. */
  logEvent(input: LogEventInput & { vault?: VaultSelector }): LogEventResult;
  /**
   * Hands out a skeleton source's text in parts with the page schema, for the
   * caller to write pages from; or, with `markIngested`, marks it ingested.
   */
  ingest(input?: IngestInput & { vault?: VaultSelector }): IngestResult;
  /**
   * Records the user's resolution of a conflict between two pages of one
   * vault as one immutable page under `wiki/analyses/` (the claim pages are
   * never edited), then indexes it. The same decision again is a no-op
   * (`created: false`); a changed one must name the active resolution in
   * `replaces`. Refusals are diagnostics (see `writing/resolve-conflict.ts`).
   */
  resolveConflict(input: ResolveConflictInput): Promise<ResolveConflictResult>;
  /**
   * Marks a page verified against the code: sets its front matter's
   * `verified:` date (today by default), changing no other byte, then
   * indexes it. A page stale by code is current again until its code moves on.
   */
  verifyPage(
    input: VerifyPageInput & { vault?: VaultSelector },
  ): Promise<VerifyPageResult & { indexed?: boolean }>;
  /**
   * A new session's feedback recorder (what it was shown, and what became
   * of it): one per Pi session, MCP connection or CLI run.
   */
  feedbackSession(): FeedbackSession;
  /**
   * An explicit judgment (`relevant`, `irrelevant`, `corrected`) of a page
   * `session` was shown; a correction's observation page is indexed at once.
   */
  recallFeedback(
    session: FeedbackSession,
    input: JudgeInput,
  ): Promise<JudgeResult & { indexed?: boolean }>;
  /**
   * Records how a finished task was solved as a `trajectory` page (steps
   * trimmed, redacted, neutralised; never overwriting), then indexes it.
   */
  captureTrajectory(
    input: CaptureTrajectoryInput & { vault?: VaultSelector },
  ): Promise<CaptureTrajectoryResult & { indexed?: boolean }>;
  /** The next undistilled trajectories (or the one named) with the skill/case page schema; writes nothing. */
  distillBatch(input?: {
    trajectory?: string;
    batchSize?: number;
    vault?: VaultSelector;
  }): DistillBatchResult;
  /**
   * Marks a trajectory distilled into `pages` (each a skill or case page
   * that cites it) on its front matter, then indexes it.
   */
  markDistilled(input: {
    trajectory: string;
    pages: readonly string[];
    vault?: VaultSelector;
  }): Promise<MarkDistilledResult & { indexed?: boolean }>;
  /** "Have I done this before?": explicit recall limited to skill and case pages. */
  recallSkills(input: RecallSkillsInput): Promise<RecallResult>;
  /** The skill and case pages of the selected vaults (default all), and the undistilled trajectories' count. */
  listSkills(input?: { vault?: VaultSelector }): ListSkillsResult;
  /** Per-vault handles (registry, index, open store) this service keeps. */
  readonly handles: VaultHandles;
  /** Closes open stores; call on host shutdown. */
  /**
   * Regenerates the vault's readable views (meta/index.md, meta/log.md,
   * meta/lint-report.md; in OKF mode wiki/index.md and wiki/log.md) after
   * bringing its index up to date; pages, raw/ and events are only read.
   */
  rebuildMeta(input?: RebuildMetaInput): Promise<RebuildMetaResult>;
  /**
   * Writes the selected vault's pages as an OKF v0.2 bundle in `dir`
   * (relative to the working directory; missing, empty or a previous
   * export). `confined` — a model named `dir` (Pi, MCP) — keeps it inside
   * the project, symlinks resolved (`okf_dir_outside`, see okf-confine.ts).
   * Runs in slices; `signal` cancels it (`operation_cancelled`), leaving
   * `dir` as it was.
   */
  okfExport(
    input: OkfExportInput & { vault?: VaultSelector; confined?: boolean; signal?: AbortSignal },
  ): Promise<OkfExportResult>;
  /**
   * Reviews an OKF bundle in `dir` against the selected vault (a dry run
   * writing nothing), or with `apply` creates what is new (never
   * overwriting), logs `okf_import` and indexes it. `confined` as for
   * `okfExport`. Runs in slices; `signal` cancels the review, and stops an
   * apply between two created files.
   */
  okfImport(
    input: OkfImportInput & { vault?: VaultSelector; confined?: boolean; signal?: AbortSignal },
  ): Promise<OkfImportResult>;
  /**
   * Files changed outside the service's own writes (a watcher, an agent's
   * file tools): the generated views follow them as they follow a write.
   */
  noteWrite(vault: VaultPaths, changed?: readonly string[]): void;
  /** Refreshes now the generated views that writes left pending (see `views`); `close` does too. */
  flushViews(): Promise<void>;
  close(): Promise<void>;
}
