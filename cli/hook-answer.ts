/**
 * The service half of `llm-wiki hook …` (hook-command.ts is the other): the
 * session priming block or the prompt's automatic recall block for the
 * vault at the input's `cwd`, "" when nothing qualifies. Loaded only once
 * the input is read and the session's git read has started, so git runs
 * while these modules load.
 */
import type { ReaderPool } from "../extensions/llm-wiki/lib/index/reader-pool.ts";
import type { GitContext } from "../extensions/llm-wiki/lib/priming/git-context.ts";
import { loadCliSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { agentFromEnv } from "../extensions/llm-wiki/lib/vault/writer.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { readyHookIndex } from "./hook-index.ts";
import { type HookInput, HookSkip } from "./hook-input.ts";
import { rememberPrimed, takePrimed } from "./hook-primed.ts";
import { quietReason } from "./hook-quiet.ts";

/** The hooks answered: `session-start` primes, `user-prompt` recalls. */
export type HookKind = "session-start" | "user-prompt";

/** Writes one line to the hook's stderr (control sequences made harmless by the caller). */
type Say = (text: string) => void;

/** The block to add to the model's context for this hook ("" for nothing). */
async function hookBlock(
  service: WikiService,
  kind: HookKind,
  input: HookInput,
  say: Say,
): Promise<string> {
  // Answer from the registry as last saved when nothing was added, removed or
  // renamed since, instead of walking every page: a hook runs in a fresh
  // process on every prompt.
  const vault = service.ambientVault();
  if (vault) {
    try {
      service.handles.get(vault).answerFromSaved();
    } catch {
      // The full refresh answers instead.
    }
  }
  // A resumed session asks nothing of the index.
  const notice =
    vault && input.source !== "resume"
      ? await readyHookIndex(service, vault, input.cwd)
      : undefined;
  if (notice) say(`llm-wiki hook: ${notice.line}\n`);
  if (kind === "session-start") {
    // A resumed session still holds the notes primed when it began (Claude
    // Code's source "resume"); startup, clear and compact start afresh.
    if (input.source === "resume") throw new HookSkip("resumed session: primed when it began");
    const result = await service.prime();
    explain(say, result.diagnostics);
    if (result.rendered === "") quiet(say, quietReason("priming", result));
    if (result.rendered !== "" && vault && input.sessionId !== undefined) {
      // The session's first prompt leaves these out, as Pi's first turn does.
      rememberPrimed(vault, input.sessionId, result.renderedPages);
    }
    // The session's first context says, in one line, why recall may stay quiet for now.
    if (notice)
      return [`llm-wiki: ${notice.line}.`, result.rendered].filter((t) => t !== "").join("\n");
    return result.rendered;
  }
  if (!service.settings.autoRecall)
    throw new HookSkip("automatic recall is off (setting autoRecall)");
  const prompt = input.prompt;
  if (prompt === undefined || prompt.trim() === "") {
    quiet(say, "nothing recalled: the prompt is empty");
    return "";
  }
  const primed =
    vault && input.sessionId !== undefined ? takePrimed(vault, input.sessionId) : undefined;
  const result = await service.recall({
    query: prompt,
    policy: "automatic",
    ...(primed ? { exclude: primed } : {}),
  });
  explain(say, result.diagnostics);
  if (result.rendered === "") quiet(say, quietReason("recall", result));
  return result.rendered;
}

/** The one line saying why the hook prints no block: never silence. */
function quiet(say: Say, line: string): void {
  say(`llm-wiki hook: ${line.replace(/\s+/g, " ")}\n`);
}

/** Warnings and errors of the operation, one line each on stderr (never on stdout). */
function explain(
  say: Say,
  diagnostics: ReadonlyArray<{ severity: string; code: string; message: string }>,
) {
  for (const d of diagnostics) {
    if (d.severity === "info") continue;
    say(`llm-wiki hook: ${d.code}: ${d.message.replace(/\s+/g, " ")}\n`);
  }
}

/**
 * The block for one hook ("" for nothing); throws `HookSkip` with the reason
 * when it answers nothing on purpose. `git`: the session's git context, read
 * ahead by the caller (session start). `say` writes a line to the hook's
 * stderr, made terminal-safe. `readers`: the warm process's kept index
 * stores (a hook's own process has none).
 */
export async function answerHook(
  kind: HookKind,
  input: HookInput,
  say: Say,
  git?: Promise<GitContext>,
  readers?: ReaderPool,
): Promise<string> {
  let service: WikiService | undefined;
  try {
    const { settings } = loadCliSettings();
    // One recall per process: QMD loads only if a model path runs.
    service = createWikiService({
      cwd: input.cwd,
      settings,
      lexicalFirst: true,
      ...(readers ? { readers } : {}),
      agent: agentFromEnv(process.env, "hook"),
    });
    // Outside any project the personal vault answers, as in Pi.
    if (service.ambientVault() === undefined) {
      throw new HookSkip(`no .llm-wiki vault at ${input.cwd} or any parent, and no personal vault`);
    }
    // The read already running is priming's (nothing when priming is off).
    if (git) service.prefetchPriming({ cwd: input.cwd, context: git });
    return await hookBlock(service, kind, input, say);
  } finally {
    try {
      await service?.close();
    } catch {
      // Closing a store that failed to open has nothing left to tell.
    }
  }
}
