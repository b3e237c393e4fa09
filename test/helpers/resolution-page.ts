/**
 * A resolution record as `resolveConflict` writes it, for tests that place
 * one by hand: its id is the hash of the decision in the given vault, and it
 * belongs at `analyses/<id>`. A record built any other way is ignored by
 * recall and reported by lint (`resolution_id_mismatch`).
 */
import type { ResolutionRelation } from "../../extensions/llm-wiki/lib/vault/relations.ts";
import {
  decisionVault,
  RESOLUTION_FOLDER,
  resolutionId,
} from "../../extensions/llm-wiki/lib/vault/resolutions.ts";

export interface ResolutionSpec {
  /** The vault's kind (default project) and config `vault_id` (none: as `makeTempVault` writes it). */
  kind?: "project" | "personal";
  vaultId?: string;
  selected: string;
  other: string;
  relation: ResolutionRelation;
  scope?: string;
  /** The resolution id this one replaces. */
  replaces?: string;
  /** ISO timestamp (default 2026-07-01T00:00:00Z). */
  decidedAt?: string;
}

/**
 * The record's id, its page id, its `resolution:` front matter fields, and
 * the same as one YAML flow mapping.
 */
export function resolutionRecord(spec: ResolutionSpec): {
  id: string;
  page: string;
  fields: Record<string, string | null>;
  yaml: string;
} {
  const id = resolutionId({
    vault: decisionVault(spec.kind ?? "project", spec.vaultId),
    selected: spec.selected,
    other: spec.other,
    relation: spec.relation,
    ...(spec.scope !== undefined ? { scope: spec.scope } : {}),
    ...(spec.replaces !== undefined ? { replaces: spec.replaces } : {}),
  });
  const fields: Record<string, string | null> = {
    id,
    selected: spec.selected,
    other: spec.other,
    relation: spec.relation,
    scope: spec.scope ?? null,
    decided_by: "user",
    decided_at: spec.decidedAt ?? "2026-07-01T00:00:00Z",
    replaces: spec.replaces ?? null,
  };
  const yaml = Object.entries(fields)
    .map(([k, v]) => `${k}: ${v === null ? "null" : JSON.stringify(v)}`)
    .join(", ");
  return { id, page: `${RESOLUTION_FOLDER}/${id}`, fields, yaml: `{${yaml}}` };
}
