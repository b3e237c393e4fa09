/**
 * Stage 1, plan: what one recall will do, decided from its input and the
 * settings before any vault is touched — the policy (how many pages, which
 * floor, whether the personal vault answers), whether it is unasked
 * (automatic or priming), the mode, a type filter and the clock.
 */
import {
  AUTOMATIC_POLICY,
  EXPLICIT_DEFAULT_RESULTS,
  explicitPolicy,
  PRIMING_MAX_NOTES,
  PRIMING_POLICY,
  type RecallPolicy,
} from "../retrieval-policy.ts";
import type { RetrievalMode, WikiSettings } from "../settings.ts";
import type { RecallInput, RecallPolicyName, RecallResult } from "./recall-types.ts";

/** Candidates per vault and in the fused list when recall is limited to some page types. */
const TYPED_POOL = 50;

export interface RecallPlan {
  policyName: RecallPolicyName;
  /** The policy retrieval runs: a recall limited to some types draws from a wider pool. */
  policy: RecallPolicy;
  /** Pages the answer keeps after a type filter. */
  wanted: number;
  /** Bundles assembly may open. */
  maxBundles: number;
  /** Unasked (automatic or priming): quiet, never an index write, within the turn budget. */
  automatic: boolean;
  priming: boolean;
  mode: RetrievalMode;
  typeFilter?: ReadonlySet<string>;
  /** Pages (`vault:id`) already in the model's context: never shown again. */
  exclude?: ReadonlySet<string>;
  /** The moment "yesterday" and "last week" count from. */
  now: Date;
  /** What every answer of this recall repeats. */
  base: Pick<RecallResult, "query" | "policy" | "requestedMode">;
}

/** Plans a recall; pure (no file, no clock unless `input.now` is missing). */
export function planRecall(input: RecallInput, settings: WikiSettings): RecallPlan {
  const policyName = input.policy ?? "explicit";
  const priming = policyName === "priming";
  const typeFilter = input.types && input.types.length > 0 ? new Set(input.types) : undefined;
  const chosen =
    policyName === "automatic"
      ? AUTOMATIC_POLICY
      : priming
        ? PRIMING_POLICY
        : explicitPolicy(input.maxResults ?? EXPLICIT_DEFAULT_RESULTS);
  const wanted = chosen.maxResults;
  const mode = input.mode ?? settings.retrievalMode;
  return {
    policyName,
    policy: typeFilter ? { ...chosen, maxPerVault: TYPED_POOL, maxResults: TYPED_POOL } : chosen,
    wanted,
    maxBundles: priming ? PRIMING_MAX_NOTES : wanted,
    // Priming is automatic recall with its own policy.
    automatic: policyName !== "explicit",
    priming,
    mode,
    ...(typeFilter ? { typeFilter } : {}),
    ...(input.exclude ? { exclude: input.exclude } : {}),
    now: input.now ?? new Date(),
    base: { query: input.query, policy: policyName, requestedMode: mode },
  };
}
