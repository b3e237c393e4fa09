/**
 * A hook's lexical index, made ready before it answers. A fresh clone has no
 * index (`meta/` is gitignored), and a hook that recalls from no index
 * prints nothing at all: the user cannot tell memory from none. So the first
 * hook on a vault with no (or a stale) lexical index builds it when the work
 * fits well inside the hook's timeout, and otherwise starts the build in a
 * detached process (`llm-wiki reindex`, holding the vault's index lock like
 * every writer, so two hooks never build twice) and says so — never silence.
 * A small build another process holds the lock for is waited for.
 *
 * The bound: the plugin and `llm-wiki setup` give a hook 10 s, of which
 * start-up and the answer take a few. Measured from the bundle on a loaded
 * 2-core machine: the 35-page example builds in about 2 s, 1,535 generated
 * pages in about 10 s. Up to `INLINE_MAX_PAGES` pages the hook builds within
 * `INLINE_BUDGET_MS`; past the budget it stops and hands the build over.
 */
import { spawn } from "node:child_process";
import { errorMessage } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { indexLayout } from "../extensions/llm-wiki/lib/index/layout.ts";
import { lockHeld } from "../extensions/llm-wiki/lib/index/lock.ts";
import type { VaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";

/** Most pages to (re)index inside a hook; more go to the background. */
export const INLINE_MAX_PAGES = 300;
/** Longest a hook builds before it hands the rest to the background. */
export const INLINE_BUDGET_MS = 4000;
/** How long a hook waits for another process's index lock before saying the index is being built. */
const LOCK_WAIT_MS = 250;

/** What the hook tells the user about its index, when there is something to tell. */
export interface HookIndexNotice {
  /** One line, for stderr and (session start) the model's context. */
  line: string;
}

/**
 * Makes the ambient vault's lexical index ready for this hook, or starts its
 * build in the background; returns the line to tell the user when the hook
 * answers without a ready index. Never throws.
 */
export async function readyHookIndex(
  service: WikiService,
  vault: VaultPaths,
  cwd: string,
): Promise<HookIndexNotice | undefined> {
  let work: number;
  try {
    const handle = service.handles.get(vault);
    // Answering from the saved registry means the index holds exactly its pages.
    if (handle.answersFromSaved()) return undefined;
    const { registry, status } = handle.recallView();
    if (status.state === "ready") return undefined;
    if (!handle.index.writable()) {
      return {
        line: `the search index of ${vault.root} is not built and this process may not write it; run \`llm-wiki reindex\` as the vault's owner`,
      };
    }
    work = status.state === "stale" ? status.pending : registry.pages.size;
  } catch (error) {
    return { line: `cannot read the search index's state: ${errorMessage(error)}` };
  }
  const busy = {
    line: `the search index of ${vault.root} is being built by another process; recall answers once it is done`,
  };
  // Another writer holds the lock (another hook, or the MCP server the client
  // started beside this hook building a fresh clone's index): one build, not
  // two. A large build is left to it; a small one ends within the budget, so
  // the hook waits for it (then has nothing left to do) instead of answering
  // the session's first context from no index.
  const held = lockHeld(indexLayout(vault).lock);
  if (held && work > INLINE_MAX_PAGES) return busy;
  if (work <= INLINE_MAX_PAGES) {
    try {
      const result = await service.reindex({
        scope: "changed",
        components: ["lexical"],
        vault: vault.kind,
        lockWaitMs: held ? INLINE_BUDGET_MS : LOCK_WAIT_MS,
        signal: AbortSignal.timeout(INLINE_BUDGET_MS),
      });
      if (result.ok) return undefined;
      if (result.diagnostics.some((d) => d.code === "index_busy")) return busy;
      // A read-only index would refuse in the background too; anything else
      // (past the budget, a failure) is the background build's to retry.
      const refusal = result.diagnostics.find((d) => d.code === "index_read_only");
      if (refusal) {
        return {
          line: `the search index of ${vault.root} could not be built: ${refusal.code}: ${refusal.message}`,
        };
      }
    } catch {
      // Past the budget, or failed: the background build takes over.
    }
  }
  return startBackgroundBuild(vault, cwd, work);
}

/** Starts `llm-wiki reindex` for the vault in a detached process that outlives the hook. */
function startBackgroundBuild(vault: VaultPaths, cwd: string, work: number): HookIndexNotice {
  const entry = process.argv[1];
  if (entry === undefined) {
    return { line: `the search index of ${vault.root} is not built; run \`llm-wiki reindex\`` };
  }
  try {
    const child = spawn(
      process.execPath,
      [...process.execArgv, entry, "reindex", "--which", vault.kind],
      { cwd, detached: true, stdio: "ignore", env: process.env },
    );
    child.on("error", () => undefined);
    child.unref();
  } catch (error) {
    return {
      line: `the search index of ${vault.root} is not built and its build did not start (${errorMessage(error)}); run \`llm-wiki reindex\``,
    };
  }
  return {
    line: `the search index of ${vault.root} (${work} page(s) to index) is being built in the background; recall answers once it is done`,
  };
}
