/**
 * The operations every host offers (Pi tools, MCP tools, CLI commands). A
 * host parses its input, calls one of these and renders the structured
 * result, so the three hosts cannot drift apart. Its surface and answer
 * shapes are in wiki-service-api.ts; larger operations live beside the
 * concern they belong to (`*-operation.ts`).
 */
import { resolve } from "node:path";
import { lastLinkedCommit } from "./code-refs/code-state.ts";
import { linkedCommit } from "./code-refs/recall-code.ts";
import { staleByCode } from "./dashboard/code-stale.ts";
import { vaultOverview } from "./dashboard/vault-overview.ts";
import { type Diagnostic, diagnostic, WikiError } from "./diagnostics.ts";
import { digestOperation } from "./digest/digest-operation.ts";
import { FeedbackSession, type FeedbackVault } from "./feedback/feedback-session.ts";
import { resolveModels } from "./index/models.ts";
import type { ReindexReport } from "./index/qmd-indexing.ts";
import type { RefreshFeed } from "./index/streamed-load.ts";
import { lintVaultsSliced, lintWithoutVault } from "./lint/lint.ts";
import { okfModelRoots } from "./okf/okf-confine.ts";
import { okfExportOperation, okfImportOperation } from "./okf/okf-operations.ts";
import { readGitContext } from "./priming/git-context.ts";
import { type GitPrefetch, primeOperation } from "./priming/prime.ts";
import { recallOperation } from "./recall-operation.ts";
import { singleLineProblem } from "./safety/text.ts";
import { DEFAULT_SETTINGS } from "./settings.ts";
import { recentChanges } from "./temporal/recent.ts";
import { type CaptureTrajectoryResult, captureTrajectory } from "./trajectories/capture.ts";
import {
  type DistillBatchResult,
  distillBatch,
  type MarkDistilledResult,
  markDistilled,
  undistilled,
  undistilledPackets,
} from "./trajectories/distill.ts";
import { listSkills } from "./trajectories/list-skills.ts";
import { recallSkillsInput } from "./trajectories/recall-skills.ts";
import { type BootstrapResult, bootstrapVault } from "./vault/bootstrap.ts";
import { bootstrapRootOutside } from "./vault/bootstrap-root.ts";
import { readVaultConfig } from "./vault/config.ts";
import { symlinkedLayoutDiagnostic, symlinkInLayout } from "./vault/layout-guard.ts";
import { legacyLayoutAt, legacyLayoutDiagnostics } from "./vault/legacy-layout.ts";
import { lookupPages, MATCH_RANK } from "./vault/lookup.ts";
import { MERGE_CONFLICT_CODE } from "./vault/merge-conflicts.ts";
import {
  findPersonalVault,
  findProjectVault,
  personalRoot,
  rootFromArg,
  type VaultPaths,
  vaultExists,
  vaultFromArg,
  vaultPaths,
} from "./vault/paths.ts";
import type { Registry } from "./vault/registry.ts";
import { resolveWriter, type Writer } from "./vault/writer.ts";
import { createVaultHandles } from "./vault-handles.ts";
import { followWrites } from "./views/follow-service.ts";
import { olderSystemHandback } from "./views/older-views.ts";
import { rebuildMetaOperation, writeVaultViews } from "./views/rebuild-meta.ts";
import { createViewsFollower } from "./views/views-follow.ts";
import { CRON_STOP, cronLine, cronStop } from "./watch/cron-line.ts";
import type {
  EnsurePageOpResult,
  SearchResult,
  StatusResult,
  VaultSelector,
  WikiService,
  WikiServiceOptions,
} from "./wiki-service-api.ts";
import { ensurePage } from "./writing/ensure-page.ts";
import { indexWrittenPage } from "./writing/index-written-page.ts";
import { ingestStep } from "./writing/ingest.ts";
import { failureDiagnostic } from "./writing/input.ts";
import { logEvent } from "./writing/log-event.ts";
import { recordObservation } from "./writing/observe.ts";
import { resolveConflictOperation } from "./writing/resolve-conflict-operation.ts";
import { recordRetro } from "./writing/retro.ts";
import { verifyPageOperation } from "./writing/verify-page-op.ts";
import { withSourceNotices } from "./writing/write-notices.ts";

export type {
  BootstrapOpResult,
  EnsurePageOpResult,
  ReindexInput,
  ReindexResult,
  SearchResult,
  StatusResult,
  VaultSelector,
  VaultSummary,
  WikiService,
  WikiServiceOptions,
} from "./wiki-service-api.ts";

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

/** A git context read at session start is used by priming up to this age (then read again). */
export const PRIMING_PREFETCH_MAX_AGE_MS = 5 * 60_000;

/** Creates the service for a host. */
export function createWikiService(options: WikiServiceOptions): WikiService {
  const env = options.env ?? process.env;
  const settings = options.settings ?? DEFAULT_SETTINGS;
  const handles = createVaultHandles(
    resolveModels(settings.models, env as NodeJS.ProcessEnv, options.cwd),
    {
      ...(options.lexicalFirst ? { lexicalFirst: true } : {}),
      ...(options.readers ? { readers: options.readers } : {}),
      // A pull, checkout or merge changed pages: the views follow it as they follow a write.
      onGitMove: (vault, changed) => follower.noteWrite(vault, changed),
    },
  );

  // Who this host's writes are recorded as, read when a write asks (vault/writer.ts).
  const withWriter = (v: VaultPaths): VaultPaths => {
    let writer: Writer | undefined;
    const agent = options.agent;
    return {
      ...v,
      writer: () => {
        writer ??= resolveWriter(v.root, typeof agent === "function" ? agent() : (agent ?? "cli"), {
          configured: settings.author,
          env: env as NodeJS.ProcessEnv,
        });
        return writer;
      },
    };
  };

  const explicit = (): VaultPaths | undefined =>
    options.vault === undefined ? undefined : vaultFromArg(options.vault, env);

  // A vault whose layout holds a symbolic link is not opened (layout-guard.ts);
  // `missing()` says which link.
  const opened = (v: VaultPaths | undefined): VaultPaths | undefined =>
    v && symlinkInLayout(v) === undefined ? withWriter(v) : undefined;
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

  const ambientVault = (): VaultPaths | undefined => {
    if (options.vault !== undefined) return resolveVaults("active")[0];
    const { project, personal } = discovered();
    return project ?? (settings.includePersonal ? personal : undefined);
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
  /**
   * The registry a status reads: refreshed (or as held, `refresh` false),
   * except in a doubled layout, whose outer folder is not the vault yet and
   * gets nothing written before migrate.
   */
  const statusRegistry = (vault: VaultPaths, refresh: boolean) => {
    const handle = handles.get(vault);
    const doubled = legacyLayoutAt(vault.root)?.kind === "doubled";
    const reg = doubled ? handle.peek() : refresh ? handle.refresh() : handle.registry();
    return { doubled, reg };
  };

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

  const follower = createViewsFollower(handles, options.views);
  const service: WikiService = {
    settings,
    resolveVaults,
    ambientVault,
    registry,
    handles,

    rebuildMeta(input = {}) {
      return rebuildMetaOperation(handles, resolveVaults, missing, input);
    },

    noteWrite(vault, changed) {
      follower.noteWrite(vault, changed);
    },

    flushViews() {
      return follower.flush();
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
      const project = ambientVault();
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
      const project = ambientVault();
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
        let reg: Registry | undefined;
        // Refreshed by the index under its lock: a rebuild indexes each page as the refresh reads it.
        const source = {
          refresh: async (feed?: RefreshFeed) => {
            reg = feed
              ? await handle.refreshFeeding(input.paths, feed)
              : handle.refresh(input.paths);
            return reg;
          },
        };
        const report = await handle.index.reindex(source, {
          components,
          ...(input.scope ? { scope: input.scope } : {}),
          ...(input.force ? { force: true } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
          ...(input.lockWaitMs !== undefined ? { lockWaitMs: input.lockWaitMs } : {}),
          onProgress: (e) => input.onProgress?.({ vault: v.root, ...e }),
        });
        if (reg) handle.indexed(reg);
        reports.push(report);
      }
      const failed = reports.some((r) => r.diagnostics.some((d) => d.severity === "error"));
      return {
        ok: !failed && diagnostics.every((d) => d.severity !== "error"),
        reports,
        diagnostics,
      };
    },

    async lint({ vault = "active", ...rest } = {}) {
      const vaults = resolveVaults(vault);
      if (vaults.length === 0) return lintWithoutVault(missing());
      return lintVaultsSliced(handles, vaults, rest);
    },

    bootstrap({ confined, ...input }) {
      const fallback = options.vault !== undefined ? rootFromArg(options.vault) : options.cwd;
      if (confined && input.root !== undefined) {
        // A model named the folder: only where the vault would go anyway.
        const asked = resolve(options.cwd, input.root);
        const project = resolveVaults("project").find((v) => v.kind === "project");
        const outside = bootstrapRootOutside(asked, [fallback, project?.root]);
        if (outside) {
          const vault = vaultPaths(fallback, "project");
          return { vault, created: false, createdPaths: [], ok: false, diagnostics: [outside] };
        }
        input = { ...input, root: asked };
      }
      const root = input.root ?? fallback;
      // The name and topic are shown on every status: one line of visible text each.
      const refused =
        singleLineProblem(input.name, "name") ?? singleLineProblem(input.topic, "topic");
      if (refused) {
        const vault = vaultPaths(root, "project");
        return { vault, created: false, createdPaths: [], ok: false, diagnostics: [refused] };
      }
      // A linked `.llm-wiki/` (or a part of it) a repository shipped: never made
      // through. The personal vault's own folder may be the user's link.
      const target = vaultPaths(
        root,
        resolve(root) === resolve(personalRoot(env)) ? "personal" : "project",
      );
      const link = symlinkInLayout(target);
      if (link !== undefined) {
        return {
          vault: target,
          created: false,
          createdPaths: [],
          ok: false,
          diagnostics: [symlinkedLayoutDiagnostic(target, link)],
        };
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
        // The registry's pages let the write resolve relation targets and warn of missing links.
        (vault) => {
          const result = ensurePage(vault, input, new Date(), () => registry(vault).pages);
          // The next recall, automatic too, knows the page and its relations
          // at once (a draft is shown beside the page it would replace), while
          // its text waits for the index.
          if (result.created || result.updated) handles.get(vault).refresh([result.path]);
          return { ok: true, ...result };
        },
        (diagnostics) => ({ ok: false, diagnostics }),
      );
    },

    observe({ vault: selector, ...input }) {
      return onVault(
        selector,
        (vault) =>
          withSourceNotices(
            vault,
            recordObservation(vault, input),
            input.sources,
            () => registry(vault).pages,
          ),
        (diagnostics) => ({ ok: false, diagnostics }),
      );
    },

    retro({ vault: selector, ...input }) {
      return onVault(
        selector,
        (vault) =>
          withSourceNotices(
            vault,
            recordRetro(vault, input),
            input.sources,
            () => registry(vault).pages,
          ),
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

    resolveConflict(input) {
      return resolveConflictOperation({ handles, resolveVaults, registry, missing }, input);
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
      for (const { paths, registry: reg } of read) {
        waiting += undistilled(paths, reg).length + undistilledPackets(paths, reg).length;
      }
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
      // Loaded on the first capture: its parsers and network guard are most
      // of what a process that only recalls would otherwise load at start.
      const { captureSource } = await import("./capture/capture-source.ts");
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

    search({ query, limit = 10, vault = "all", type }) {
      const vaults = resolveVaults(vault);
      if (vaults.length === 0) return { ok: false, query, hits: [], diagnostics: missing() };
      const hits: SearchResult["hits"] = [];
      const diagnostics: Diagnostic[] = [];
      for (const v of vaults) {
        const reg = registry(v);
        const pages = [...reg.pages.values()].filter((p) => type === undefined || p.type === type);
        for (const hit of lookupPages(pages, query, limit)) hits.push({ ...hit, vault: v.kind });
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
      return interval === CRON_STOP ? cronStop() : cronLine(vault.root, interval);
    },

    indexStatus({ vault = "active", refresh = true } = {}) {
      const [v] = resolveVaults(vault);
      if (!v) return undefined;
      const { reg } = statusRegistry(v, refresh);
      return { root: v.root, index: handles.get(v).index.status(reg) };
    },

    status({ vault = "active", now = new Date(), code = false } = {}) {
      const [v] = resolveVaults(vault);
      const retrieval = { mode: settings.retrievalMode, models: modelsSummary() };
      const notes = options.notes ?? [];
      if (!v) return { ok: false, retrieval, diagnostics: [...notes, ...missing()] };
      const { config, diagnostics } = readVaultConfig(v);
      const handle = handles.get(v);
      const { doubled, reg } = statusRegistry(v, true);
      const index = handle.index.status(reg);
      // A Map: any type name is accepted (OKF), and "constructor" or "__proto__" must count like any other.
      const byType = new Map<string, number>();
      const byRole = { canonical: 0, evidence: 0 };
      for (const page of reg.pages.values()) {
        byType.set(page.type, (byType.get(page.type) ?? 0) + 1);
        byRole[page.role] += 1;
      }
      const resolved = [...reg.links.values()].reduce((n, l) => n + l.length, 0);
      const unmerged = [...reg.pages.values()].filter((p) => p.mergeConflicts).map((p) => p.id);
      const malformed = reg.diagnostics.filter(
        (d) => d.severity === "error" && d.code !== MERGE_CONFLICT_CODE,
      ).length;
      const summary: NonNullable<StatusResult["vault"]> = {
        kind: v.kind,
        root: v.root,
        config,
        pages: reg.pages.size,
        byType: Object.fromEntries([...byType].sort(([a], [b]) => (a < b ? -1 : 1))),
        byRole,
        malformed,
        ...(unmerged.length > 0 ? { mergeConflicts: unmerged } : {}),
        links: {
          resolved,
          missing: reg.linkProblems.filter((p) => p.status === "missing").length,
          ambiguous: reg.linkProblems.filter((p) => p.status === "ambiguous").length,
        },
        index,
        ...vaultOverview(
          v,
          reg,
          index,
          now,
          code && !doubled ? staleByCode(handle, v, reg) : undefined,
        ),
      };
      if (config.name) summary.name = config.name;
      const linked = doubled ? undefined : lastLinkedCommit(handle, v, reg.pages.keys());
      if (linked) summary.lastCommit = { ...linkedCommit(linked.commit), page: linked.page };
      return {
        ok: true,
        vault: summary,
        retrieval,
        diagnostics: [
          ...notes,
          ...olderSystemHandback(v),
          ...legacy(),
          ...diagnostics,
          ...reg.diagnostics,
          ...index.diagnostics,
        ],
      };
    },
  };
  // The generated views follow every write, debounced; closing flushes them.
  return followWrites(service, follower);
}
