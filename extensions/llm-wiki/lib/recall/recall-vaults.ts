/**
 * Stage 2, vaults: which vaults answer (the project, and the personal vault
 * when the policy and settings allow, or when there is no project), each as retrieval sees it — its
 * registry, index status and store — with an explicit recall first indexing
 * pages changed behind the host's back. Also what the model paths may use,
 * decided from file checks before any model call.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { readOnlyDiagnostic } from "../index/index-failure.ts";
import type {
  RetrievalCapabilities,
  RetrievalRequest,
  RetrievalVault,
} from "../retrieval/retrieval-types.ts";
import type { WikiSettings } from "../settings.ts";
import type { RecallWindow } from "../temporal/recall-window.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { VaultHandle, VaultHandles } from "../vault-handles.ts";
import type { RecallPlan } from "./recall-plan.ts";

/**
 * What the model paths may use, from file checks only (no model is loaded).
 * Whether a vault's index has vectors is checked per vault by retrieval.
 */
export function capabilities(handles: VaultHandles): RetrievalCapabilities {
  const a = handles.availability();
  const caps: RetrievalCapabilities = {
    vectors: a.embed.available,
    expansion: a.generate.available && a.rerank.available,
    embedModel: handles.models.embed.uri,
  };
  if (!a.embed.available) {
    caps.vectorsMissing = diagnostic(
      "model_unavailable",
      "info",
      `vector search skipped: embed model unavailable (${a.embed.reason ?? a.embed.uri}); used lexical`,
      {
        ...(a.embed.repair ? { repair: a.embed.repair } : {}),
      },
    );
  }
  if (!caps.expansion) {
    const missing = [a.generate, a.rerank].find((m) => !m.available);
    caps.expansionMissing = diagnostic(
      "model_unavailable",
      "info",
      `expansion and reranking skipped: ${missing?.role} model unavailable (${missing?.reason ?? missing?.uri})`,
      {
        ...(missing?.repair ? { repair: missing.repair } : {}),
      },
    );
  }
  return caps;
}

/**
 * How stale a registry explicit recall accepts. Walking the wiki costs a stat
 * per page (tens of ms at 10k pages), too much for every call; a second is
 * shorter than any agent's write-then-ask round trip. In a vault whose walk
 * takes over SLOW_WALK_MS (vault-handles.ts) a walk is repeated no sooner
 * than twenty times its own time (about 25 s at 100k pages); pages the
 * tools or `llm-wiki watch` write are seen at once either way.
 */
export const EXPLICIT_REGISTRY_MAX_AGE_MS = 1_000;

/**
 * The retrieval view of a vault handle; `maxAgeMs` bounds how old its
 * registry may be. Just after a server started this may be the registry as
 * last saved (see `VaultHandle.answerFromSaved`), read lazily.
 */
export function retrievalVault(handle: VaultHandle, maxAgeMs?: number): RetrievalVault {
  const { registry, status } = handle.recallView(maxAgeMs);
  return {
    kind: handle.paths.kind,
    status,
    pages: registry.pages,
    names: registry.names,
    relations: registry.relations,
    store: () => handle.index.store(),
    ...(handle.index.writable() ? {} : { lexicalOnly: true }),
  };
}

/**
 * `index_read_only` for a vault whose index this process may not write:
 * information while a readable index answers, an error when none can.
 */
function readOnlyNote(vault: RetrievalVault, paths: VaultPaths): Diagnostic {
  const answers = vault.status.state !== "missing" && vault.status.state !== "error";
  const d = readOnlyDiagnostic(paths, answers ? "info" : "error");
  return { ...d, message: `${vault.kind} vault: ${d.message}` };
}

/** The vaults a recall searches, project first; empty when there is none. */
export interface OpenedVaults {
  paths: VaultPaths[];
  handles: Map<"project" | "personal", VaultHandle>;
  views: RetrievalVault[];
  /** Said once per vault (a read-only index). */
  notes: Diagnostic[];
}

/** Opens the vaults `plan` searches; `refreshIndex: false` answers from each index as it is. */
export async function openVaults(
  handles: VaultHandles,
  vaults: { project?: VaultPaths; personal?: VaultPaths },
  plan: RecallPlan,
  settings: WikiSettings,
  refreshIndex: boolean,
): Promise<OpenedVaults> {
  const paths: VaultPaths[] = [];
  if (vaults.project) paths.push(vaults.project);
  // Outside any project the personal vault is the one automatic recall has,
  // as `@zosmaai/pi-llm-wiki` falls back to it; inside one only the policy
  // brings it in (the automatic policy keeps other projects' notes out).
  const personalAnswers = plan.policy.includePersonal || vaults.project === undefined;
  if (personalAnswers && settings.includePersonal && vaults.personal) {
    paths.push(vaults.personal);
  }
  const opened: OpenedVaults = { paths, handles: new Map(), views: [], notes: [] };
  for (const p of paths) {
    const handle = handles.get(p);
    opened.handles.set(p.kind, handle);
    // A pull, checkout or merge since the last recall: its pages first, on any policy.
    if (refreshIndex) await handle.followGit();
    if (plan.automatic) {
      // Every turn: the registry as last refreshed (the Pi host refreshes it
      // when the agent writes a page), never an index write.
      const vault = retrievalVault(handle);
      if (vault.lexicalOnly) opened.notes.push(readOnlyNote(vault, p));
      opened.views.push(vault);
      continue;
    }
    let vault = retrievalVault(handle, EXPLICIT_REGISTRY_MAX_AGE_MS);
    // An index this user may not write answers as it is: no refresh is tried.
    if (vault.lexicalOnly) opened.notes.push(readOnlyNote(vault, p));
    else if (
      refreshIndex &&
      vault.status.state === "stale" &&
      vault.status.pending > 0 &&
      // An index of an older format answers as it is: its rebuild is the next update's, not a recall's.
      !vault.status.diagnostics.some((d) => d.code === "index_outdated")
    ) {
      // Pages changed behind the host's back (an editor, git, another agent's
      // write tool): a recall someone asked for sees them. Incremental, and
      // never waits for a busy lock: the previous index answers meanwhile.
      await handle.index.reindex(handle.registry(), { lockWaitMs: 0 });
      vault = retrievalVault(handle);
    }
    opened.views.push(vault);
  }
  return opened;
}

/** What retrieval is asked: the plan's policy and mode, the window's query, the models it may use. */
export function retrievalRequest(
  handles: VaultHandles,
  opened: OpenedVaults,
  plan: RecallPlan,
  settings: WikiSettings,
  input: { query: string; signal?: AbortSignal; explain?: boolean },
  window: Extract<RecallWindow, { ok: true }>,
): RetrievalRequest {
  // What the vault is about steers reranking (QMD's intent), never the transcript.
  const intent = handles.get(opened.paths[0] as VaultPaths).intent();
  // The personal vault opened alone (no project) answers under any policy.
  const alone = !opened.handles.has("project") && !plan.policy.includePersonal;
  return {
    query: input.query,
    policy: alone ? { ...plan.policy, includePersonal: true } : plan.policy,
    mode: plan.mode,
    capabilities: capabilities(handles),
    ...(intent ? { intent } : {}),
    ...(plan.automatic ? { budgetMs: settings.turnBudgetMs } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.explain ? { explain: true } : {}),
    ...(window.window ? { window: window.window, searchQuery: window.searchQuery } : {}),
  };
}
