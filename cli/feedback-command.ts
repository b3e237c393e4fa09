/**
 * `llm-wiki feedback <page-id> --judgment relevant|irrelevant|corrected
 * [--correction TEXT|-] [--vault-kind project|personal]`: an explicit
 * judgment of a page the last `llm-wiki recall` showed (within the hour),
 * the same operation as `wiki_recall_feedback`. Any other page is refused
 * (`feedback_not_shown`, exit 1).
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { JUDGMENTS, type Judgment } from "../extensions/llm-wiki/lib/feedback/feedback-event.ts";
import type {
  JudgeResult,
  VaultKind,
} from "../extensions/llm-wiki/lib/feedback/feedback-session.ts";
import {
  CLI_SHOWN_MAX_AGE_MS,
  type LoadedShown,
  loadCliShown,
} from "../extensions/llm-wiki/lib/feedback/saved-shown.ts";
import { renderRecallFeedback } from "../extensions/llm-wiki/lib/render-text.ts";
import { vaultExists } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { noVaultDiagnostic, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type OptionSpec, type Parsed, UsageError } from "./args.ts";

/** Options of `feedback` beyond the common ones. */
export const FEEDBACK_OPTIONS: Record<string, OptionSpec> = {
  judgment: { type: "string" },
  correction: { type: "string" },
  "vault-kind": { type: "string" },
};

/** Usage lines for the CLI's help text. */
export const FEEDBACK_USAGE = `  feedback <page-id> --judgment J          judge a page the last recall showed (within the hour):
           [--correction TEXT|-]           relevant, irrelevant, or corrected with the correction
           [--vault-kind project|personal] (saved as an observation page linking the page)
`;

const VAULT_KINDS: readonly VaultKind[] = ["project", "personal"];

function judgmentOf(value: string | boolean | undefined): Judgment {
  if (value === undefined) throw new UsageError(`feedback needs --judgment ${JUDGMENTS.join("|")}`);
  const found = JUDGMENTS.find((j) => j === value);
  if (!found) throw new UsageError(`--judgment takes one of ${JUDGMENTS.join(", ")}`);
  return found;
}

function vaultKindOf(value: string | boolean | undefined): VaultKind | undefined {
  if (value === undefined) return undefined;
  const found = VAULT_KINDS.find((k) => k === value);
  if (!found) throw new UsageError(`--vault-kind takes one of ${VAULT_KINDS.join(", ")}`);
  return found;
}

/** The refusal of a page the last recall did not show, saying how to get one that can be judged. */
function explained(diagnostics: Diagnostic[], loaded: LoadedShown): Diagnostic[] {
  const why =
    loaded.missing === "expired"
      ? `the last recall is older than ${CLI_SHOWN_MAX_AGE_MS / 60_000} minutes`
      : loaded.missing === "none"
        ? "no recall was run here yet"
        : `the last recall showed ${loaded.shown.map((s) => s.page).join(", ") || "no pages"}`;
  return diagnostics.map((d) =>
    d.code === "feedback_not_shown"
      ? {
          ...d,
          message: `${d.message}: ${why}`,
          repair: "llm-wiki recall <question>, then llm-wiki feedback on a page it showed",
        }
      : d,
  );
}

/** Runs `feedback`. */
export async function feedbackCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): Promise<{
  ok: boolean;
  result: JudgeResult & { indexed?: boolean };
  text: string;
  diagnostics: Diagnostic[];
}> {
  if (positionals.length !== 1) throw new UsageError("feedback takes one page id");
  const judgment = judgmentOf(values.judgment);
  const vault = vaultKindOf(values["vault-kind"]);
  const correction = values.correction;
  if (correction !== undefined && typeof correction !== "string")
    throw new UsageError("--correction needs the text (or - for standard input)");
  const [active] = service.resolveVaults("active");
  if (!active || !vaultExists(active)) {
    const diagnostics = [
      noVaultDiagnostic(typeof values.vault === "string" ? values.vault : undefined),
    ];
    return { ok: false, result: { ok: false, diagnostics }, text: "", diagnostics };
  }
  const loaded = loadCliShown(active);
  const session = service.feedbackSession();
  session.restoreShown(loaded.shown);
  const judged = await service.recallFeedback(session, {
    page: positionals[0] ?? "",
    judgment,
    ...(correction !== undefined ? { correction } : {}),
    ...(vault ? { vault } : {}),
  });
  const result = { ...judged, diagnostics: explained(judged.diagnostics, loaded) };
  return {
    ok: result.ok,
    result,
    text: renderRecallFeedback(result),
    diagnostics: result.diagnostics,
  };
}
