/**
 * Session priming: at the start of a session, recall what the session is
 * about before anyone asks — the vault's topic, the project's name, the
 * current branch, recent commit subjects and the files changed in the work
 * tree — under the priming policy (at most three notes and 1,500 characters,
 * the automatic evidence gate, fresher pages preferred). Nothing qualifies:
 * nothing. Every host delivers the same result (Pi's first turn, the MCP
 * tool and prompt, `llm-wiki hook session-start`).
 */
import { basename } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { emptyRecall, type RecallResult, recallOperation } from "../recall-operation.ts";
import type { WikiSettings } from "../settings.ts";
import { readVaultConfig } from "../vault/config.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { VaultHandles } from "../vault-handles.ts";
import { type GitContext, type GitContextOptions, readGitContext } from "./git-context.ts";
import { type PrimingContext, primingContext, primingQuery } from "./priming-query.ts";

export interface PrimeInput {
  /** The work tree git is asked about (default: the service's working folder). */
  cwd?: string;
  /** False: topic and project name only, no git call. */
  git?: boolean;
  gitOptions?: GitContextOptions;
  signal?: AbortSignal;
}

/** A git context read ahead of time (at session start), for the work tree it was read in. */
export interface GitPrefetch {
  cwd: string;
  context: Promise<GitContext>;
}

/** Recall's result for the priming query, plus what the query was made of. */
export interface PrimeResult extends RecallResult {
  /** The session context the query was built from. */
  context: PrimingContext;
  /** Milliseconds priming waited for git (0 without git, or when read ahead at session start and done). */
  gitMs: number;
}

/** A priming result that recalled nothing (and says why in `diagnostics`). */
function nothing(
  context: PrimingContext,
  query: string,
  diagnostics: Diagnostic[],
  gitMs = 0,
): PrimeResult {
  return {
    ...emptyRecall({ query, policy: "priming", requestedMode: "lexical" }, diagnostics),
    context,
    gitMs,
  };
}

/** Runs session priming over the project vault. */
export async function primeOperation(
  handles: VaultHandles,
  project: VaultPaths | undefined,
  settings: WikiSettings,
  cwd: string,
  input: PrimeInput,
  prefetched?: GitPrefetch,
): Promise<PrimeResult> {
  const empty: PrimingContext = { subjects: [], files: [] };
  if (!settings.sessionPriming) {
    return nothing(empty, "", [
      diagnostic("priming_off", "info", "session priming is off (setting sessionPriming)"),
    ]);
  }
  // No project vault: nothing to prime from, and no reason to ask git.
  if (project === undefined) return nothing(empty, "", []);
  const started = performance.now();
  const { config } = readVaultConfig(project);
  const tree = input.cwd ?? cwd;
  const ahead = prefetched?.cwd === tree && input.gitOptions === undefined;
  const git =
    input.git === false
      ? undefined
      : await (ahead && prefetched ? prefetched.context : readGitContext(tree, input.gitOptions));
  const gitMs = git === undefined ? 0 : Math.round(performance.now() - started);
  const context = primingContext(
    {
      ...(config.topic ? { topic: config.topic } : {}),
      project: config.name ?? basename(project.root),
    },
    git,
  );
  const query = primingQuery(context);
  if (query === "") return nothing(context, query, [], gitMs);
  const result = await recallOperation(
    handles,
    { project },
    settings,
    {
      query,
      policy: "priming",
      // A bag of session words, not a question: no expansion or rerank, and no model cost on the first turn.
      mode: "lexical",
      ...(input.signal ? { signal: input.signal } : {}),
    },
    () => [],
  );
  return { ...result, context, gitMs };
}
