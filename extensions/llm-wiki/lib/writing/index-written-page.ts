/**
 * The index update after a committed page write. The page is the record; the
 * index is derived from it, so a failed update (a busy or unusable lock, a
 * full disk, a read-only `meta/`) never undoes the write: it is reported as
 * stale derived state with the command that repairs it. This is the last
 * stage of the write path (write-page-pipeline.ts), run by the operations
 * that are asynchronous: resolve-conflict, verify, recall corrections,
 * trajectories.
 */
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import type { VaultHandle } from "../vault-handles.ts";

/** Whether the index now holds the page, and a warning when it could not be updated. */
export interface WrittenPageIndexing {
  indexed: boolean;
  diagnostics: Diagnostic[];
}

/**
 * Updates `handle`'s index with the page at vault-relative `path` (under the
 * vault's index lock, like every index write). A vault without an index is
 * left without one: building a whole index is `reindex`'s job, not a write's.
 */
export async function indexWrittenPage(
  handle: VaultHandle,
  path: string,
): Promise<WrittenPageIndexing> {
  const stale = (reason: string): WrittenPageIndexing => ({
    indexed: false,
    diagnostics: [
      diagnostic(
        "index_stale",
        "warning",
        `${path} is written, but the search index was not updated (${reason}); recall may miss it until the index is`,
        { path, repair: "llm-wiki reindex" },
      ),
    ],
  });
  try {
    const registry = handle.refresh([path]);
    if (handle.index.status(registry).state === "missing")
      return { indexed: false, diagnostics: [] };
    const report = await handle.index.reindex(registry, {
      scope: "changed",
      components: ["lexical"],
    });
    const failed = report.diagnostics.find((d) => d.severity === "error");
    return failed ? stale(`${failed.code}: ${failed.message}`) : { indexed: true, diagnostics: [] };
  } catch (error) {
    return stale(errorMessage(error));
  }
}

/** `result` after the index stage: `indexed` added, its warning after the write's own diagnostics. */
export async function withIndexing<T extends { diagnostics: Diagnostic[] }>(
  handle: VaultHandle,
  path: string,
  result: T,
): Promise<T & { indexed: boolean }> {
  const indexing = await indexWrittenPage(handle, path);
  return {
    ...result,
    indexed: indexing.indexed,
    diagnostics: [...result.diagnostics, ...indexing.diagnostics],
  };
}
