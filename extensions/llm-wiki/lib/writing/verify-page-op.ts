/**
 * `wiki_verify_page` / `llm-wiki verify <page-id>`: the page id checked like
 * every id a caller gives (`cleanPageId`), looked up in the vault's
 * registry, its `verified:` line set (verify-page.ts), then the page
 * re-indexed like any write. Refusals are diagnostics; nothing throws.
 */
import { diagnostic } from "../diagnostics.ts";
import type { VaultHandle } from "../vault-handles.ts";
import { withIndexing } from "./index-written-page.ts";
import { failureDiagnostic } from "./input.ts";
import { cleanPageId } from "./resolve-conflict.ts";
import { type VerifyPageInput, type VerifyPageResult, verifyPage } from "./verify-page.ts";

/** Verifies one page of the vault `handle` stands for. */
export async function verifyPageOperation(
  handle: VaultHandle,
  input: VerifyPageInput,
  now: Date = new Date(),
): Promise<VerifyPageResult & { indexed?: boolean }> {
  let result: VerifyPageResult;
  try {
    const id = cleanPageId(input.page, "page");
    const meta = handle.refresh().pages.get(id);
    if (!meta) {
      return {
        ok: false,
        diagnostics: [
          diagnostic("page_not_found", "error", `no page ${id} in this vault`, {
            repair: `llm-wiki search ${id}`,
          }),
        ],
      };
    }
    result = verifyPage(handle.paths, id, meta.path, input.date, now);
  } catch (error) {
    return { ok: false, diagnostics: [failureDiagnostic(error)] };
  }
  if (!result.changed || result.path === undefined) return result;
  return withIndexing(handle, result.path, result);
}
