/**
 * The operations every host offers (Pi tools, MCP tools, CLI commands). A
 * host parses its input, calls one of these and renders the structured
 * result, so the three hosts cannot drift apart.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  type CaptureSourceInput,
  type CaptureSourceResult,
  captureSource,
} from "./capture/capture-source.ts";
import { lastLinkedCommit } from "./code-refs/code-state.ts";
import { type LinkedCommit, linkedCommit } from "./code-refs/recall-code.ts";
import { staleByCode } from "./dashboard/code-stale.ts";
import { type VaultOverview, vaultOverview } from "./dashboard/vault-overview.ts";
import { type Diagnostic, diagnostic, WikiError } from "./diagnostics.ts";
import type { DigestInput, DigestResult } from "./digest/digest.ts";
import { digestOperation } from "./digest/digest-operation.ts";
import { appendFeedback, INDEX_VERSION } from "./feedback/feedback-event.ts";
import {
  FeedbackSession,
  type FeedbackVault,
  type JudgeInput,
  type JudgeResult,
} from "./feedback/feedback-session.ts";
import type { IndexStatus } from "./index/index-state.ts";
import { acquireLock, type LockHandle } from "./index/lock.ts";
import { type ModelRole, resolveModels } from "./index/models.ts";
import type { ReindexComponent, ReindexReport, ReindexScope } from "./index/qmd-indexing.ts";
import { lintVaults, lintWithoutVault } from "./lint/lint.ts";
import type { LintResult } from "./lint/types.ts";
import { okfModelRoots } from "./okf/okf-confine.ts";
import type { OkfExportInput, OkfExportResult } from "./okf/okf-export.ts";
import type { OkfImportInput, OkfImportResult } from "./okf/okf-import.ts";
import { okfExportOperation, okfImportOperation } from "./okf/okf-operations.ts";
import { type GitContext, readGitContext } from "./priming/git-context.ts";
import {
  type GitPrefetch,
  type PrimeInput,
  type PrimeResult,
  primeOperation,
} from "./priming/prime.ts";
import { type RecallInput, type RecallResult, recallOperation } from "./recall-operation.ts";
import { singleLineProblem } from "./safety/text.ts";
import { DEFAULT_SETTINGS, type RetrievalMode, type WikiSettings } from "./settings.ts";
import { type RecentInput, type RecentResult, recentChanges } from "./temporal/recent.ts";
import {
  type CaptureTrajectoryInput,
  type CaptureTrajectoryResult,
  captureTrajectory,
} from "./trajectories/capture.ts";
import {
  type DistillBatchResult,
  distillBatch,
  type MarkDistilledResult,
  markDistilled,
  undistilled,
} from "./trajectories/distill.ts";
import { type ListSkillsResult, listSkills } from "./trajectories/list-skills.ts";
import { type RecallSkillsInput, recallSkillsInput } from "./trajectories/recall-skills.ts";
import { type BootstrapResult, bootstrapVault } from "./vault/bootstrap.ts";
import { readVaultConfig, type VaultConfig } from "./vault/config.ts";
import { symlinkedLayoutDiagnostic, symlinkInLayout } from "./vault/layout-guard.ts";
import { legacyLayoutDiagnostics } from "./vault/legacy-layout.ts";
import { type LookupHit, lookupPages, MATCH_RANK } from "./vault/lookup.ts";
import type { PageMeta } from "./vault/page.ts";
import { type EnsurePageInput, type EnsurePageResult, ensurePage } from "./vault/page-write.ts";
import {
  type DiscoveryEnv,
  findPersonalVault,
  findProjectVault,
  rootFromArg,
  type VaultPaths,
  vaultExists,
  vaultFromArg,
  vaultPaths,
} from "./vault/paths.ts";
import type { Registry } from "./vault/registry.ts";
import { createVaultHandles, type VaultHandles } from "./vault-handles.ts";
import {
  type RebuildMetaInput,
  type RebuildMetaResult,
  rebuildMetaOperation,
  writeVaultViews,
} from "./views/rebuild-meta.ts";
import { type CronInterval, type CronLineResult, cronLine } from "./watch/cron-line.ts";
import { indexWrittenPage } from "./writing/index-written-page.ts";
import { type IngestInput, type IngestResult, ingestStep } from "./writing/ingest.ts";
import { failureDiagnostic } from "./writing/input.ts";
import { type LogEventInput, type LogEventResult, logEvent } from "./writing/log-event.ts";
import { type ObserveInput, recordObservation } from "./writing/observe.ts";
import { type ResolveConflictResult, recordResolution } from "./writing/record-resolution.ts";
import type { ResolveConflictInput } from "./writing/resolve-conflict.ts";
import { type RetroInput, recordRetro } from "./writing/retro.ts";
import type { WrittenPageResult } from "./writing/unique-page.ts";
import type { VerifyPageInput, VerifyPageResult } from "./writing/verify-page.ts";
import { verifyPageOperation } from "./writing/verify-page-op.ts";

/** Which vault an operation acts on. */
export type VaultSelector = "active" | "project" | "personal" | "all";

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
  bootstrap(input: {
    root?: string;
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
  search(input: { query: string; limit?: number; vault?: VaultSelector }): SearchResult;
  /**
   * A vault's pages, links, index and overview. `code: true` also counts
   * pages stale by code (git runs only after HEAD moved); `now` dates the
   * week of activity and staleness.
   */
  status(input?: { vault?: VaultSelector; now?: Date; code?: boolean }): StatusResult;
  /**
   * Writes the digest of the last day or week (sources, pages, lint trend)
   * to `.llm-wiki/outputs/digest-YYYY-MM-DD.md` (never over an existing
   * file: `-2`, `-3`… the same day) and logs `digest_generated`.
   */
  digest(input?: DigestInput & { vault?: VaultSelector }): DigestResult;
  /** The crontab line that runs reindex, lint and digest on a schedule; installs nothing. */
  watchSchedule(input: { interval: CronInterval; vault?: VaultSelector }): CronLineResult;
  /** The up-to-date registry of a vault (incremental refresh). */
  registry(vault: VaultPaths): Registry;
  /** Recalls pages for a query (explicit or automatic policy) through the one retrieval service. */
  recall(input: RecallInput): Promise<RecallResult>;
  /**
   * Session priming: recalls what the session is about (the vault's topic,
   * the project's name, the git branch, recent commit subjects, changed
   * files) under the priming policy; nothing when nothing qualifies or the
   * `sessionPriming` setting is off. Project vault only.
   */
  prime(input?: PrimeInput): Promise<PrimeResult>;
  /**
   * Starts reading the session's git context now (session start), so the
   * first turn's priming does not wait for git; used by `prime` within
   * `PRIMING_PREFETCH_MAX_AGE_MS`. Nothing happens when priming is off or
   * there is no project vault. Never throws. `context`: a read of `cwd` the
   * host started itself before this service existed (a hook starts git
   * before loading the service's modules), taken instead of a new one.
   */
  prefetchPriming(input?: { cwd?: string; context?: Promise<GitContext> }): void;
  /** What changed in a window of days, from the event log, newest first. */
  recent(input?: RecentInput & { vault?: VaultSelector }): RecentResult;
  /** Brings the search index of the selected vaults up to date. */
  reindex(input?: ReindexInput): Promise<ReindexResult>;
  /** Lints the selected vaults; `fix` only creates stubs for knowledge gaps. */
  lint(input?: { vault?: VaultSelector; fix?: boolean; now?: Date }): LintResult;
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
   */
  okfExport(input: OkfExportInput & { vault?: VaultSelector; confined?: boolean }): OkfExportResult;
  /**
   * Reviews an OKF bundle in `dir` against the selected vault (a dry run
   * writing nothing), or with `apply` creates what is new (never
   * overwriting), logs `okf_import` and indexes it. `confined` as for
   * `okfExport`.
   */
  okfImport(
    input: OkfImportInput & { vault?: VaultSelector; confined?: boolean },
  ): Promise<OkfImportResult>;
  close(): Promise<void>;
}

/** Diagnostic for an operation that needs a vault and found none. */
export function noVaultDiagnostic(explicit?: string): Diagnostic {
  return explicit
    ? diagnostic("vault_not_found", "error", `no .llm-wiki vault at ${explicit}`, {
        repair: `llm-wiki init --vault ${explicit}`,
      })
    : diagnostic(
        "vault_not_found",
        "error",
        "no .llm-wiki vault in this folder or any parent, and no personal vault",
        {
          repair: "llm-wiki init",
        },
      );
}

/** The lock file under `meta/` that serialises conflict resolutions of a vault. */
const RESOLUTION_LOCK = "resolution.lock";
/** How long a resolution waits for another in progress (a write takes milliseconds). */
const RESOLUTION_LOCK_WAIT_MS = 5_000;

/** A git context read at session start is used by priming up to this age (then read again). */
export const PRIMING_PREFETCH_MAX_AGE_MS = 5 * 60_000;

/** Creates the service for a host. */
export function createWikiService(options: WikiServiceOptions): WikiService {
  const env = options.env ?? process.env;
  const settings = options.settings ?? DEFAULT_SETTINGS;
  const handles = createVaultHandles(
    resolveModels(settings.models, env as NodeJS.ProcessEnv, options.cwd),
    options.lexicalFirst ? { lexicalFirst: true } : {},
  );

  const explicit = (): VaultPaths | undefined =>
    options.vault === undefined ? undefined : vaultFromArg(options.vault, env);

  // A vault whose layout holds a symbolic link is not opened (layout-guard.ts);
  // `missing()` says which link.
  const opened = (v: VaultPaths | undefined): VaultPaths | undefined =>
    v && symlinkInLayout(v) === undefined ? v : undefined;
  const discovered = () => ({
    project: opened(findProjectVault(options.cwd, env)),
    personal: opened(findPersonalVault(env)),
  });

  const resolveVaults = (selector: VaultSelector = "active"): VaultPaths[] => {
    if (options.vault !== undefined) {
      const v = opened(explicit());
      return v ? [v] : [];
    }
    const { project, personal } = discovered();
    switch (selector) {
      case "project":
        return project ? [project] : [];
      case "personal":
        return personal ? [personal] : [];
      case "all":
        return [project, personal].filter((v): v is VaultPaths => v !== undefined);
      case "active":
        return project ? [project] : personal ? [personal] : [];
    }
  };

  // An old package's layout is named, with its repair, rather than passing for no vault.
  const legacy = (): Diagnostic[] => legacyLayoutDiagnostics(options.cwd, env, options.vault);
  /** Vaults discovery found but that are not opened, each with the link that stops it. */
  const refused = (): Diagnostic[] => {
    const found =
      options.vault !== undefined
        ? [explicit()]
        : [findProjectVault(options.cwd, env), findPersonalVault(env)];
    return found.flatMap((v) => {
      const link = v ? symlinkInLayout(v) : undefined;
      return v && link ? [symlinkedLayoutDiagnostic(v, link)] : [];
    });
  };
  const missing = (): Diagnostic[] => [...refused(), noVaultDiagnostic(options.vault), ...legacy()];
  let prefetch: (GitPrefetch & { at: number }) | undefined;

  const registry = (vault: VaultPaths): Registry => handles.get(vault).refresh();

  /** A bundle folder made absolute; one a model named (`confined`) must stay in the project. */
  const okfPlacement = (dir: string, confined: boolean | undefined) => {
    const abs = resolve(options.cwd, dir);
    if (!confined) return { dir: abs };
    const project = resolveVaults("project").find((v) => v.kind === "project");
    return { dir: abs, roots: okfModelRoots(project?.root, options.cwd, env.HOME) };
  };

  /**
   * Runs a write on the selected vault (default: the active one): no vault,
   * or an error the write throws, becomes the operation's failure with a
   * diagnostic (a `WikiError` keeps its own code).
   */
  const onVault = <R>(
    selector: VaultSelector | undefined,
    run: (vault: VaultPaths) => R,
    failure: (diagnostics: Diagnostic[]) => R,
  ): R => {
    const [vault] = resolveVaults(selector ?? "active");
    if (!vault || !vaultExists(vault)) return failure(missing());
    try {
      return run(vault);
    } catch (error) {
      return failure([failureDiagnostic(error)]);
    }
  };

  const modelsSummary = (): StatusResult["retrieval"]["models"] => {
    const availability = handles.availability();
    const out = {} as StatusResult["retrieval"]["models"];
    for (const role of ["embed", "rerank", "generate"] as const) {
      const m = handles.models[role];
      const a = availability[role];
      out[role] = { uri: m.uri, source: m.source, available: a.available };
      if (a.reason) out[role].reason = a.reason;
    }
    return out;
  };

  return {
    settings,
    resolveVaults,
    registry,
    handles,

    rebuildMeta(input = {}) {
      return rebuildMetaOperation(handles, resolveVaults, missing, input);
    },

    async close() {
      await handles.closeAll();
    },

    recall(input) {
      if (options.vault !== undefined) {
        const v = opened(explicit());
        return recallOperation(handles, v ? { [v.kind]: v } : {}, settings, input, missing);
      }
      const { project, personal } = discovered();
      return recallOperation(
        handles,
        { ...(project ? { project } : {}), ...(personal ? { personal } : {}) },
        settings,
        input,
        missing,
      );
    },

    prime(input = {}) {
      const [project] = resolveVaults(options.vault !== undefined ? "active" : "project");
      const fresh =
        prefetch !== undefined && performance.now() - prefetch.at <= PRIMING_PREFETCH_MAX_AGE_MS;
      return primeOperation(
        handles,
        project && vaultExists(project) ? project : undefined,
        settings,
        options.cwd,
        input,
        fresh ? prefetch : undefined,
      );
    },

    prefetchPriming(input = {}) {
      if (!settings.sessionPriming) return;
      const [project] = resolveVaults(options.vault !== undefined ? "active" : "project");
      if (project === undefined || !vaultExists(project)) return;
      const cwd = input.cwd ?? options.cwd;
      // Never a rejection left unhandled: a failed read is an empty context, as in readGitContext.
      const context = (input.context ?? readGitContext(cwd)).catch(() => ({
        subjects: [],
        files: [],
      }));
      prefetch = { cwd, context, at: performance.now() };
    },

    async reindex(input = {}) {
      const vaults = resolveVaults(input.vault ?? "active");
      if (vaults.length === 0) return { ok: false, reports: [], diagnostics: missing() };
      const diagnostics: Diagnostic[] = [];
      let components = input.components ?? ["lexical"];
      if (components.includes("vectors")) {
        const embed = handles.availability().embed;
        if (!embed.available) {
          components = components.filter((c) => c !== "vectors");
          diagnostics.push(
            diagnostic(
              "model_unavailable",
              "error",
              `vectors not built: embed model unavailable (${embed.reason ?? embed.uri})`,
              {
                ...(embed.repair ? { repair: embed.repair } : {}),
              },
            ),
          );
        }
      }
      const reports: ReindexReport[] = [];
      for (const v of vaults) {
        const handle = handles.get(v);
        const reg = handle.refresh(input.paths);
        const report = await handle.index.reindex(reg, {
          components,
          ...(input.scope ? { scope: input.scope } : {}),
          ...(input.force ? { force: true } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
          ...(input.lockWaitMs !== undefined ? { lockWaitMs: input.lockWaitMs } : {}),
          onProgress: (e) => input.onProgress?.({ vault: v.root, ...e }),
        });
        reports.push(report);
      }
      const failed = reports.some((r) => r.diagnostics.some((d) => d.severity === "error"));
      return {
        ok: !failed && diagnostics.every((d) => d.severity !== "error"),
        reports,
        diagnostics,
      };
    },

    lint({ vault = "active", ...rest } = {}) {
      const vaults = resolveVaults(vault);
      return vaults.length === 0 ? lintWithoutVault(missing()) : lintVaults(handles, vaults, rest);
    },

    bootstrap(input) {
      const root =
        input.root ?? (options.vault !== undefined ? rootFromArg(options.vault) : options.cwd);
      // The name and topic are shown on every status: one line of visible text each.
      const refused =
        singleLineProblem(input.name, "name") ?? singleLineProblem(input.topic, "topic");
      if (refused) {
        const vault = vaultPaths(root, "project");
        return { vault, created: false, createdPaths: [], ok: false, diagnostics: [refused] };
      }
      let result: BootstrapResult;
      try {
        result = bootstrapVault({ ...input, root });
      } catch (error) {
        // A place that cannot hold a vault (vault_path_unusable): a result, not a crash.
        if (!(error instanceof WikiError)) throw error;
        const vault = vaultPaths(root, "project");
        return {
          vault,
          created: false,
          createdPaths: [],
          ok: false,
          diagnostics: [error.diagnostic],
        };
      }
      // A new vault starts with its views (catalog, log, lint report; OKF's reserved files).
      const views = result.created ? writeVaultViews(handles, result.vault).diagnostics : [];
      const diagnostics = result.created
        ? views
        : [
            diagnostic(
              "vault_exists",
              "info",
              `a vault already exists at ${result.vault.dir}; nothing overwritten`,
            ),
          ];
      return { ...result, ok: true, diagnostics };
    },

    ensurePage({ vault: selector, ...input }) {
      return onVault<EnsurePageOpResult>(
        selector,
        (vault) => ({ ok: true, ...ensurePage(vault, input) }),
        (diagnostics) => ({ ok: false, diagnostics }),
      );
    },

    observe({ vault: selector, ...input }) {
      return onVault(
        selector,
        (vault) => recordObservation(vault, input),
        (diagnostics) => ({ ok: false, diagnostics }),
      );
    },

    retro({ vault: selector, ...input }) {
      return onVault(
        selector,
        (vault) => recordRetro(vault, input),
        (diagnostics) => ({ ok: false, diagnostics }),
      );
    },

    recent({ vault: selector, ...input } = {}) {
      return onVault(
        selector,
        (vault) => recentChanges(vault, input),
        (diagnostics) => ({
          ok: false,
          since: "",
          entries: [],
          total: 0,
          truncated: false,
          diagnostics,
        }),
      );
    },

    logEvent({ vault: selector, ...input }) {
      return onVault(
        selector,
        (vault) => logEvent(vault, input),
        (diagnostics) => ({ ok: false, diagnostics }),
      );
    },

    ingest({ vault: selector, ...input } = {}) {
      return onVault(
        selector,
        (vault) => ingestStep(vault, () => registry(vault), input),
        (diagnostics) => ({ ok: false, pending: [], diagnostics }),
      );
    },

    async resolveConflict(input) {
      const [vault] = resolveVaults(input.vault ?? "active");
      if (!vault || !vaultExists(vault)) return { ok: false, diagnostics: missing() };
      // Two processes deciding the same pair differently at once: the lock
      // makes the second see the first's page (its registry is re-read
      // inside) and refuse, instead of leaving two active resolutions.
      let lock: LockHandle;
      try {
        mkdirSync(vault.meta, { recursive: true });
        lock = await acquireLock(join(vault.meta, RESOLUTION_LOCK), {
          op: "resolve-conflict",
          waitMs: RESOLUTION_LOCK_WAIT_MS,
        });
      } catch (error) {
        const cause = failureDiagnostic(error);
        return {
          ok: false,
          diagnostics: [
            diagnostic(
              "resolution_busy",
              "error",
              `another conflict resolution in this vault holds its lock (${cause.message}); nothing written, try again`,
            ),
          ],
        };
      }
      let written: ResolveConflictResult;
      try {
        // Read only to tell a page of the other vault from a missing one.
        const otherKind = vault.kind === "project" ? "personal" : "project";
        const other = resolveVaults(otherKind).find((v) => v.dir !== vault.dir && vaultExists(v));
        let otherPages: ReadonlyMap<string, PageMeta> | undefined;
        const vaultId = readVaultConfig(vault).config.vault_id;
        written = recordResolution(
          vault,
          {
            kind: vault.kind,
            ...(vaultId !== undefined ? { vaultId } : {}),
            pages: registry(vault).pages,
            otherVaultHas(id) {
              if (!other) return false;
              otherPages ??= registry(other).pages;
              return otherPages.has(id);
            },
          },
          input,
        );
        if (written.created && written.resolution) {
          // The user's choice is the strongest feedback there is; the page above is its record.
          try {
            appendFeedback(vault, [
              {
                vault_id: vaultId ?? "",
                page: written.resolution.selected,
                query_hash: null,
                action: "conflict_selected",
                rank: null,
                mode: "none",
                index_version: INDEX_VERSION,
                resolution: written.resolution.id,
              },
            ]);
          } catch {
            // Replayed from the resolution page (see feedback/vault-feedback.ts).
          }
        }
      } catch (error) {
        return { ok: false, diagnostics: [failureDiagnostic(error)] };
      } finally {
        lock.release();
      }
      if (!written.created || written.path === undefined) return written;
      const indexing = await indexWrittenPage(handles.get(vault), written.path);
      return {
        ...written,
        indexed: indexing.indexed,
        diagnostics: [...written.diagnostics, ...indexing.diagnostics],
      };
    },

    feedbackSession() {
      const kinds = new Map<string, FeedbackVault>();
      return new FeedbackSession({
        implicit: settings.recallFeedback,
        vault(kind) {
          const [paths] = resolveVaults(options.vault !== undefined ? "active" : kind);
          if (!paths || paths.kind !== kind || !vaultExists(paths)) return undefined;
          let known = kinds.get(paths.dir);
          if (!known) {
            known = {
              paths,
              vaultId: readVaultConfig(paths).config.vault_id ?? "",
              page: (id) => handles.get(paths).view().pages.get(id),
            };
            kinds.set(paths.dir, known);
          }
          return known;
        },
      });
    },

    async recallFeedback(session, input) {
      const result = session.judge(input);
      if (!result.ok || !result.correction?.created || result.vault === undefined) return result;
      const paths = session.vaultPaths(result.vault);
      if (!paths) return result;
      const indexing = await indexWrittenPage(handles.get(paths), result.correction.path);
      return {
        ...result,
        indexed: indexing.indexed,
        diagnostics: [...result.diagnostics, ...indexing.diagnostics],
      };
    },

    async captureTrajectory({ vault: selector, ...input }) {
      const written = onVault<CaptureTrajectoryResult>(
        selector,
        (vault) => captureTrajectory(vault, input),
        (diagnostics) => ({ ok: false, diagnostics }),
      );
      const [vault] = resolveVaults(selector ?? "active");
      if (!written.ok || !written.created || !written.path || !vault) return written;
      const indexing = await indexWrittenPage(handles.get(vault), written.path);
      return {
        ...written,
        indexed: indexing.indexed,
        diagnostics: [...written.diagnostics, ...indexing.diagnostics],
      };
    },

    distillBatch({ vault: selector, ...input } = {}) {
      return onVault<DistillBatchResult>(
        selector,
        (vault) => distillBatch(vault, registry(vault), input),
        (diagnostics) => ({ ok: false, batch: [], remaining: 0, diagnostics }),
      );
    },

    async markDistilled({ vault: selector, ...input }) {
      const marked = onVault<MarkDistilledResult>(
        selector,
        (vault) => markDistilled(vault, registry(vault), input),
        (diagnostics) => ({ ok: false, diagnostics }),
      );
      const [vault] = resolveVaults(selector ?? "active");
      const page =
        marked.trajectory && vault ? registry(vault).pages.get(marked.trajectory) : undefined;
      if (!marked.ok || !marked.changed || !page || !vault) return marked;
      const indexing = await indexWrittenPage(handles.get(vault), page.path);
      return {
        ...marked,
        indexed: indexing.indexed,
        diagnostics: [...marked.diagnostics, ...indexing.diagnostics],
      };
    },

    recallSkills(input) {
      return this.recall(recallSkillsInput(input));
    },

    listSkills({ vault = "all" } = {}) {
      const vaults = resolveVaults(vault).filter(vaultExists);
      if (vaults.length === 0) return { ok: false, skills: [], diagnostics: missing() };
      const read = vaults.map((paths) => ({ paths, registry: registry(paths) }));
      let waiting = 0;
      for (const { paths, registry: reg } of read) waiting += undistilled(paths, reg).length;
      return { ok: true, skills: listSkills(read), undistilled: waiting, diagnostics: [] };
    },

    okfExport({ vault, confined, dir, ...input }) {
      return okfExportOperation(
        { resolveVaults, handles, missing },
        { ...input, ...okfPlacement(dir, confined), ...(vault ? { vault } : {}) },
      );
    },

    okfImport({ vault, confined, dir, ...input }) {
      return okfImportOperation(
        { resolveVaults, handles, missing },
        { ...input, ...okfPlacement(dir, confined), ...(vault ? { vault } : {}) },
      );
    },

    async verifyPage({ vault: selector, ...input }) {
      const [vault] = resolveVaults(selector ?? "active");
      if (!vault || !vaultExists(vault)) return { ok: false, diagnostics: missing() };
      return verifyPageOperation(handles.get(vault), input);
    },

    async captureSource({ vault: selector, allowedRoots, timeoutMs, signal, ...input }) {
      const [vault] = resolveVaults(selector ?? "active");
      if (!vault || !vaultExists(vault))
        return { ok: false, redactions: {}, diagnostics: missing() };
      return captureSource(vault, input, {
        cwd: options.cwd,
        ...(env.HOME ? { home: env.HOME } : {}),
        ...(allowedRoots ? { allowedRoots } : {}),
        // From the host's settings only: a model's input can never open an internal host.
        network: { allowHosts: settings.captureAllowHosts },
        ...(timeoutMs !== undefined ? { limits: { timeoutMs } } : {}),
        ...(signal ? { signal } : {}),
      });
    },

    search({ query, limit = 10, vault = "all" }) {
      const vaults = resolveVaults(vault);
      if (vaults.length === 0) return { ok: false, query, hits: [], diagnostics: missing() };
      const hits: SearchResult["hits"] = [];
      const diagnostics: Diagnostic[] = [];
      for (const v of vaults) {
        const reg = registry(v);
        for (const hit of lookupPages(reg.pages.values(), query, limit))
          hits.push({ ...hit, vault: v.kind });
      }
      // Exact matches from any vault before partial ones; the stable sort keeps
      // the project vault first among equal matches.
      hits.sort((a, b) => MATCH_RANK[a.match] - MATCH_RANK[b.match]);
      return { ok: true, query, hits: hits.slice(0, limit), diagnostics };
    },

    digest({ vault: selector, ...input } = {}) {
      const [vault] = resolveVaults(selector ?? "active");
      return digestOperation(handles, vault, input, missing);
    },

    watchSchedule({ interval, vault: selector }) {
      const [vault] = resolveVaults(selector ?? "active");
      if (!vault || !vaultExists(vault))
        return { ok: false, installed: false, diagnostics: missing() };
      return cronLine(vault.root, interval);
    },

    status({ vault = "active", now = new Date(), code = false } = {}) {
      const [v] = resolveVaults(vault);
      const retrieval = { mode: settings.retrievalMode, models: modelsSummary() };
      if (!v) return { ok: false, retrieval, diagnostics: missing() };
      const { config, diagnostics } = readVaultConfig(v);
      const handle = handles.get(v);
      const reg = handle.refresh();
      const index = handle.index.status(reg);
      // A Map: any type name is accepted (OKF), and "constructor" or "__proto__" must count like any other.
      const byType = new Map<string, number>();
      const byRole = { canonical: 0, evidence: 0 };
      for (const page of reg.pages.values()) {
        byType.set(page.type, (byType.get(page.type) ?? 0) + 1);
        byRole[page.role] += 1;
      }
      const resolved = [...reg.links.values()].reduce((n, l) => n + l.length, 0);
      const malformed = reg.diagnostics.filter((d) => d.severity === "error").length;
      const summary: NonNullable<StatusResult["vault"]> = {
        kind: v.kind,
        root: v.root,
        config,
        pages: reg.pages.size,
        byType: Object.fromEntries([...byType].sort(([a], [b]) => (a < b ? -1 : 1))),
        byRole,
        malformed,
        links: {
          resolved,
          missing: reg.linkProblems.filter((p) => p.status === "missing").length,
          ambiguous: reg.linkProblems.filter((p) => p.status === "ambiguous").length,
        },
        index,
        ...vaultOverview(v, reg, index, now, code ? staleByCode(handle, v, reg) : undefined),
      };
      if (config.name) summary.name = config.name;
      const linked = lastLinkedCommit(handle, v, reg.pages.keys());
      if (linked) summary.lastCommit = { ...linkedCommit(linked.commit), page: linked.page };
      return {
        ok: true,
        vault: summary,
        retrieval,
        diagnostics: [...legacy(), ...diagnostics, ...reg.diagnostics, ...index.diagnostics],
      };
    },
  };
}
