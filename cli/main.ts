/**
 * The command-line host (entry: `llm-wiki.ts`). Parses arguments, calls the shared
 * service, renders the result. Exit codes: 0 success, 1 the operation
 * reported errors, 2 usage.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { saveCliShown } from "../extensions/llm-wiki/lib/feedback/saved-shown.ts";
import { packageVersion } from "../extensions/llm-wiki/lib/package-version.ts";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { reindexDiagnostics } from "../extensions/llm-wiki/lib/reindex-diagnostics.ts";
import {
  renderBootstrap,
  renderDiagnostics,
  renderRecallResult,
  renderReindex,
  renderSearch,
  renderStatus,
  shownDiagnostics,
} from "../extensions/llm-wiki/lib/render-text.ts";
import {
  EXPLICIT_DEFAULT_RESULTS,
  EXPLICIT_MAX_RESULTS,
} from "../extensions/llm-wiki/lib/retrieval-policy.ts";
import { loadCliSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { renderRecent } from "../extensions/llm-wiki/lib/temporal/recent.ts";
import { vaultExists } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { agentFromEnv } from "../extensions/llm-wiki/lib/vault/writer.ts";
import { refreshProblems } from "../extensions/llm-wiki/lib/views/views-follow.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import {
  asksHelp,
  intOption,
  modeOption,
  type OptionSpec,
  type Parsed,
  parseCommand,
  resolveStdinValues,
  selectorOption,
  UsageError,
} from "./args.ts";
import { BENCH_OPTIONS, BENCH_USAGE, benchCommand } from "./bench-command.ts";
import { CAPTURE_OPTIONS, CAPTURE_USAGE, captureCommand } from "./capture-command.ts";
import { DIGEST_OPTIONS, DIGEST_USAGE, digestCommand } from "./digest-command.ts";
import { FEEDBACK_OPTIONS, FEEDBACK_USAGE, feedbackCommand } from "./feedback-command.ts";
import { commandHelp } from "./help.ts";
import { HOOK_USAGE } from "./hook-command.ts";
import { LINT_OPTIONS, LINT_USAGE, lintCommand } from "./lint-command.ts";
import { MIGRATE_OPTIONS, MIGRATE_USAGE, migrateCommand } from "./migrate-command.ts";
import { MODELS_OPTIONS, MODELS_USAGE, modelsCommand } from "./models-command.ts";
import { OKF_HANDLERS, OKF_OPTIONS, OKF_USAGE } from "./okf-command.ts";
import { printErr, printJson, printOut } from "./output.ts";
import { createProgress } from "./progress.ts";
import {
  REBUILD_META_OPTIONS,
  REBUILD_META_USAGE,
  rebuildMetaCommand,
} from "./rebuild-meta-command.ts";
import {
  RESOLVE_CONFLICT_OPTIONS,
  RESOLVE_CONFLICT_USAGE,
  resolveConflictCommand,
} from "./resolve-conflict-command.ts";
import { SETUP_OPTIONS, SETUP_USAGE, setupCommand } from "./setup-command.ts";
import { SKILLS_OPTIONS, SKILLS_USAGE, skillsCommand } from "./skills-command.ts";
import { TRAJECTORY_OPTIONS, TRAJECTORY_USAGE, trajectoryCommand } from "./trajectory-command.ts";
import { VERIFY_OPTIONS, VERIFY_USAGE, verifyCommand } from "./verify-command.ts";
import { WATCH_OPTIONS, WATCH_USAGE, watchCommand } from "./watch-command.ts";
import { WRITING_HANDLERS, WRITING_OPTIONS, WRITING_USAGE } from "./writing-commands.ts";

const USAGE = `usage: llm-wiki <command> [options]

commands:
  init [--name N] [--topic T] [--mode M]   create a vault here (or at --vault)
  status                                   pages, links, index, freshness, 7-day activity, ingest
                                           queue, orphans, embedding coverage
  search <query> [--limit N] [--type T]    exact lookup by id, title, alias or tag
  recall <query> [--mode M] [--max N]      recall pages relevant to a question (explicit policy)
         [--auto]                          the automatic per-turn policy instead
         [--explain]                       why each page came: matched terms, contributions, evidence
         [--since DATE] [--until DATE]     prefer pages dated in this window (YYYY-MM-DD, YYYY-MM, YYYY)
  recent [--since DATE] [--until DATE]     what changed, from the event log (default: the last week)
         [--limit N]                       newest first, at most N (default 20, at most 100)
  reindex [--all] [--vectors] [--force]    bring the search index up to date
          [--which active|project|personal|all]
${LINT_USAGE}${MIGRATE_USAGE}${REBUILD_META_USAGE}${DIGEST_USAGE}${WATCH_USAGE}${HOOK_USAGE}${CAPTURE_USAGE}${WRITING_USAGE}${RESOLVE_CONFLICT_USAGE}${VERIFY_USAGE}${OKF_USAGE}${TRAJECTORY_USAGE}${SKILLS_USAGE}${SETUP_USAGE}${FEEDBACK_USAGE}${MODELS_USAGE}${BENCH_USAGE}
common options:
  --vault DIR   a folder holding .llm-wiki/ (or that folder); default: nearest from here
  --json        one JSON document on stdout

llm-wiki <command> --help (or llm-wiki help <command>) shows one command's options and an example.
`;

const OPTIONS: Record<string, Record<string, OptionSpec>> = {
  init: { name: { type: "string" }, topic: { type: "string" }, mode: { type: "string" } },
  status: { now: { type: "string" } },
  search: { limit: { type: "string" }, type: { type: "string" } },
  recall: {
    mode: { type: "string" },
    max: { type: "string" },
    auto: { type: "boolean" },
    explain: { type: "boolean" },
    since: { type: "string" },
    until: { type: "string" },
    now: { type: "string" },
  },
  recent: {
    since: { type: "string" },
    until: { type: "string" },
    limit: { type: "string" },
    now: { type: "string" },
  },
  reindex: {
    all: { type: "boolean" },
    vectors: { type: "boolean" },
    force: { type: "boolean" },
    which: { type: "string" },
  },
  ...WRITING_OPTIONS,
  lint: LINT_OPTIONS,
  migrate: MIGRATE_OPTIONS,
  "rebuild-meta": REBUILD_META_OPTIONS,
  digest: DIGEST_OPTIONS,
  watch: WATCH_OPTIONS,
  bench: BENCH_OPTIONS,
  capture: CAPTURE_OPTIONS,
  "resolve-conflict": RESOLVE_CONFLICT_OPTIONS,
  verify: VERIFY_OPTIONS,
  ...OKF_OPTIONS,
  trajectory: TRAJECTORY_OPTIONS,
  skills: SKILLS_OPTIONS,
  setup: SETUP_OPTIONS,
  feedback: FEEDBACK_OPTIONS,
  models: MODELS_OPTIONS,
};

interface Outcome {
  ok: boolean;
  result: object;
  text: string;
  diagnostics: Diagnostic[];
  /** Overrides the 0/1 exit code (130: cancelled with Ctrl-C). */
  exitCode?: number;
}

type Handler = (service: WikiService, args: Parsed) => Outcome | Promise<Outcome>;

const HANDLERS: Record<string, Handler> = {
  ...WRITING_HANDLERS,
  lint: lintCommand,
  migrate: migrateCommand,
  "rebuild-meta": rebuildMetaCommand,
  digest: digestCommand,
  watch: watchCommand,
  bench: benchCommand,
  capture: captureCommand,
  "resolve-conflict": resolveConflictCommand,
  verify: verifyCommand,
  ...OKF_HANDLERS,
  trajectory: trajectoryCommand,
  skills: skillsCommand,
  feedback: feedbackCommand,
  models: modelsCommand,
  init(service, { values }) {
    const result = service.bootstrap({
      ...(typeof values.name === "string" ? { name: values.name } : {}),
      ...(typeof values.topic === "string" ? { topic: values.topic } : {}),
      ...(typeof values.mode === "string" ? { mode: values.mode } : {}),
    });
    return {
      ok: result.ok,
      result,
      text: renderBootstrap(result),
      diagnostics: result.diagnostics,
    };
  },
  status(service, { values }) {
    // A person asked: pages stale by code count too (git runs only after HEAD moved).
    const result = service.status({ code: true, ...nowOption(values.now) });
    return { ok: result.ok, result, text: renderStatus(result), diagnostics: result.diagnostics };
  },
  search(service, { positionals, values }) {
    const query = positionals.join(" ");
    if (query.trim() === "") throw new UsageError("search needs a query");
    const result = service.search({
      query,
      // Absent: the service's default.
      ...(values.limit !== undefined ? { limit: intOption(values.limit, "limit", 1) } : {}),
      ...(typeof values.type === "string" ? { type: values.type } : {}),
    });
    return { ok: result.ok, result, text: renderSearch(result), diagnostics: result.diagnostics };
  },
  async recall(service, { positionals, values }) {
    const query = positionals.join(" ");
    if (query.trim() === "") throw new UsageError("recall needs a query");
    const mode = modeOption(values.mode);
    const max = intOption(values.max, "max", EXPLICIT_DEFAULT_RESULTS);
    if (max > EXPLICIT_MAX_RESULTS) {
      throw new UsageError(`--max is at most ${EXPLICIT_MAX_RESULTS}`);
    }
    // A one-shot command cannot count on a background indexer: bring a missing
    // or stale index up to date first (cheap when nothing changed).
    // The index's state only, not `status`'s overview (orphans, freshness,
    // links over every page: most of a cold recall's time at 100k pages).
    const [active] = service.resolveVaults("active");
    const handle = active && vaultExists(active) ? service.handles.get(active) : undefined;
    if (handle) {
      // From the registry as last saved while no page was added, removed or
      // renamed, read by key, instead of walking every page: what a hook
      // injects, always; an asked recall only in a vault too large to walk
      // within a cold answer's budget (the pages it shows are checked, and
      // one edited since makes it walk and answer again).
      try {
        handle.answerFromSaved(
          values.auto ? {} : { minPages: service.settings.recallWalkMaxPages + 1 },
        );
      } catch {
        // The walk answers instead.
      }
    }
    const index = handle?.recallView().status;
    if (index && index.state !== "ready") await service.reindex({ scope: "changed" });
    const ask = () =>
      service.recall({
        query,
        policy: values.auto ? "automatic" : "explicit",
        maxResults: max,
        ...(mode ? { mode } : {}),
        ...(values.explain ? { explain: true } : {}),
        ...(typeof values.since === "string" ? { since: values.since } : {}),
        ...(typeof values.until === "string" ? { until: values.until } : {}),
        ...nowOption(values.now),
      });
    let result = await ask();
    if (!values.auto && handle?.answersFromSaved()) {
      // A page it shows was edited in place since the registry was saved:
      // walk every page, then answer from the pages as they are.
      const shown = result.results.filter((r) => r.vault === handle.paths.kind).map((r) => r.id);
      if (!handle.savedCurrent(shown)) {
        handle.refresh();
        result = await ask();
      }
    }
    rememberShown(service, result);
    return {
      ok: result.ok,
      result,
      text: renderRecallResult(result, { explain: values.explain === true }),
      diagnostics: result.diagnostics,
    };
  },
  recent(service, { values }) {
    const result = service.recent({
      ...(typeof values.since === "string" ? { since: values.since } : {}),
      ...(typeof values.until === "string" ? { until: values.until } : {}),
      ...(values.limit !== undefined ? { limit: intOption(values.limit, "limit", 1) } : {}),
      ...nowOption(values.now),
    });
    return { ok: result.ok, result, text: renderRecent(result), diagnostics: result.diagnostics };
  },
  async reindex(service, { values }) {
    const progress = createProgress(process.stderr);
    const result = await service.reindex({
      scope: values.all ? "all" : "changed",
      components: values.vectors ? ["lexical", "vectors"] : ["lexical"],
      force: values.force === true,
      vault: selectorOption(values.which),
      onProgress: values.json ? undefined : progress.update,
    });
    progress.done();
    return {
      ok: result.ok,
      result,
      text: renderReindex(result),
      diagnostics: reindexDiagnostics(result),
    };
  },
};

/**
 * Saves what this recall showed, for `llm-wiki feedback` (a CLI run has no
 * session to remember it). A vault this user may not write keeps the
 * previous set; the recall's answer stands either way.
 */
function rememberShown(service: WikiService, result: RecallResult): void {
  const [vault] = service.resolveVaults("active");
  if (!vault || !vaultExists(vault)) return;
  try {
    saveCliShown(vault, result, service.handles.models.embed.uri);
  } catch {
    // Only `feedback` misses it: it then refuses the pages as not shown.
  }
}

/**
 * `--now ISO`: the moment relative dates count from (undocumented in the
 * usage: it makes a run reproducible, for tests and benchmarks).
 */
function nowOption(value: string | boolean | undefined): { now?: Date } {
  if (value === undefined) return {};
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new UsageError("--now takes an ISO date or timestamp");
  return { now: new Date(ms) };
}

/** Options whose value `-` means standard input: every text of a writing command, capture's text, a resolution's rationale. */
function acceptsStdin(command: string, option: string): boolean {
  if (command === "capture") return option === "text";
  if (command === "resolve-conflict") return option === "rationale";
  if (command === "feedback") return option === "correction";
  return command in WRITING_HANDLERS && option !== "vault" && option !== "part";
}

function printUsage(): number {
  printOut(USAGE);
  return 0;
}

/** One command's help (exit 0), or the whole usage after an unknown command (exit 2). */
function printHelp(words: readonly string[]): number {
  const help = commandHelp(USAGE, words);
  if (help === undefined) {
    printErr(`llm-wiki: unknown command "${words[0] ?? ""}"\n${USAGE}`);
    return 2;
  }
  printOut(help);
  return 0;
}

/** Runs one command; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  // `<command> [sub-command] --help`: that command's help, whatever else was given.
  const [first, ...rest] = argv;
  if (first !== undefined && !first.startsWith("-") && first !== "help" && asksHelp(rest)) {
    return printHelp([first, ...rest.filter((w) => !w.startsWith("-")).slice(0, 1)]);
  }
  let parsed: Parsed;
  try {
    parsed = parseCommand(argv, OPTIONS);
  } catch (error) {
    // A known command's own help after its usage error; the whole usage otherwise.
    const help = first === undefined ? undefined : commandHelp(USAGE, [first]);
    printErr(`llm-wiki: ${(error as Error).message}\n${help ?? USAGE}`);
    return 2;
  }
  if (parsed.command === "help") {
    return parsed.positionals.length > 0 ? printHelp(parsed.positionals) : printUsage();
  }
  if (parsed.command === "version") {
    printOut(`${packageVersion()}\n`);
    return 0;
  }
  // Edits a client's config files only: no vault, no settings, no service.
  if (parsed.command === "setup") return setupCommand(parsed);
  const handler = HANDLERS[parsed.command];
  if (!handler) {
    printErr(`llm-wiki: unknown command "${parsed.command}"\n`);
    return 2;
  }
  await resolveStdinValues(parsed, acceptsStdin);
  const { settings, diagnostics: settingsDiagnostics } = loadCliSettings();
  const service = createWikiService({
    cwd: process.cwd(),
    settings,
    // An agent running the command line through its shell says so in the environment.
    agent: agentFromEnv(process.env, "cli"),
    ...(typeof parsed.values.vault === "string" ? { vault: parsed.values.vault } : {}),
    // A recall's index is read with the SQLite driver alone, QMD loaded only
    // should a model path or a write run: a lexical answer (a hook's, or an
    // asked one without models) never pays for QMD's modules.
    ...(parsed.command === "recall" ? { lexicalFirst: true } : {}),
    // The views follow the command's writes before it exits (`close`); a failure is only shown.
    views: {
      onRefresh(refresh) {
        const problems = refreshProblems(refresh);
        if (problems.length > 0) printErr(`${renderDiagnostics(problems)}\n`);
      },
    },
  });
  let outcome: Outcome;
  try {
    outcome = await handler(service, parsed);
  } catch (error) {
    if (error instanceof UsageError) {
      printErr(`llm-wiki: ${error.message}\n`);
      return 2;
    }
    printErr(`llm-wiki: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await service.close();
  }
  const diagnostics = [...settingsDiagnostics, ...outcome.diagnostics];
  if (parsed.values.json) {
    printJson({ ...outcome.result, ok: outcome.ok });
  } else {
    if (outcome.text) printOut(`${outcome.text}\n`);
    const shown = shownDiagnostics(outcome.ok, diagnostics);
    if (shown.length > 0) printErr(`${renderDiagnostics(shown)}\n`);
  }
  if (!outcome.ok) {
    const first = outcome.diagnostics.find((d) => d.severity === "error");
    if (parsed.values.json && first) {
      printErr(`llm-wiki: ${first.message}${first.repair ? ` (fix: ${first.repair})` : ""}\n`);
    }
  }
  return outcome.exitCode ?? (outcome.ok ? 0 : 1);
}
