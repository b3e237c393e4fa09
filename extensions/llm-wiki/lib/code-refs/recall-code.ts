/**
 * Recall's use of the per-commit code state: a page whose named code moved
 * on is preferred a little less (a bounded factor, like the multipliers of
 * retrieval-policy.ts) and shown with a visible reason; every item shows the
 * last commit that named it. Reads only the cache (code-state.ts): no git
 * process while HEAD is unchanged.
 */
import type { VaultHandle } from "../vault-handles.ts";
import { type CodeStateOptions, codeStates, type PageCodeState } from "./code-state.ts";
import type { CommitRef } from "./git-history.ts";
import { commitDay, describeStaleRef } from "./stale-refs.ts";

/**
 * A page stale by code keeps 94 % of its score: with the bounded multiplier
 * (0.90–1.10) a stale page falls behind a current one that scored within
 * about 6 % of it, never further — the warning does the rest, and a page
 * the query names keeps its place (the user asked for it).
 */
export const CODE_STALE_FACTOR = 0.94;

/** A linked commit as recall and status show it. */
export interface LinkedCommit {
  sha: string;
  /** First 7 hex digits. */
  short: string;
  subject: string;
  /** Committer day, `YYYY-MM-DD`. */
  date: string;
}

/** What recall adds to an item from the code state. */
export interface CodeNote {
  /** Set when the page is stale by code: the first path or symbol and what happened to it. */
  staleReason?: string;
  lastCommit?: LinkedCommit;
}

/** The commit as shown. */
export function linkedCommit(c: CommitRef): LinkedCommit {
  return { sha: c.sha, short: c.sha.slice(0, 7), subject: c.subject, date: commitDay(c.time) };
}

/** One line: `1a2b3c4 "subject" (2026-03-02)`. */
export function commitLine(c: LinkedCommit): string {
  return `${c.short} "${c.subject.slice(0, 100)}" (${c.date})`;
}

function noteOf(state: PageCodeState | undefined): CodeNote {
  const note: CodeNote = {};
  const first = state?.stale[0];
  if (first) {
    const more = (state?.stale.length ?? 0) - 1;
    note.staleReason = `${describeStaleRef(first)}${more > 0 ? ` (and ${more} more)` : ""}`;
  }
  if (state?.lastCommit) note.lastCommit = linkedCommit(state.lastCommit);
  return note;
}

/** The code notes of `items` (by `vault\0id`), one cache lookup per vault. */
export function codeNotes(
  byKind: ReadonlyMap<string, VaultHandle>,
  items: ReadonlyArray<{ vault: string; id: string }>,
  options: CodeStateOptions = {},
): Map<string, CodeNote> {
  const out = new Map<string, CodeNote>();
  const byVault = new Map<string, Set<string>>();
  for (const it of items) {
    let ids = byVault.get(it.vault);
    if (!ids) {
      ids = new Set();
      byVault.set(it.vault, ids);
    }
    ids.add(it.id);
  }
  for (const [kind, ids] of byVault) {
    const handle = byKind.get(kind);
    if (!handle) continue;
    const view = handle.view();
    const pages = [...ids].flatMap((id) => {
      const meta = view.pages.get(id);
      if (!meta) return [];
      const hash = view.hashes.get(id);
      return [hash === undefined ? { id, path: meta.path } : { id, path: meta.path, hash }];
    });
    try {
      for (const [id, state] of codeStates(handle, handle.paths, pages, options))
        out.set(`${kind}\u0000${id}`, noteOf(state));
    } catch {
      // Code state is a hint: recall answers without it rather than fail.
    }
  }
  return out;
}

/**
 * `hits` with pages stale by code preferred less (`CODE_STALE_FACTOR`), in
 * the order of their scores; a named page is never moved. The same array
 * when nothing is stale.
 */
export function preferCurrentCode<
  H extends { vault: string; id: string; score: number; named: boolean },
>(hits: readonly H[], notes: ReadonlyMap<string, CodeNote>): H[] {
  let changed = false;
  const scored = hits.map((h, i) => {
    const stale = notes.get(`${h.vault}\u0000${h.id}`)?.staleReason !== undefined;
    if (!stale || h.named) return { h, i };
    changed = true;
    return { h: { ...h, score: h.score * CODE_STALE_FACTOR }, i };
  });
  if (!changed) return [...hits];
  // Named pages stay in front, as retrieval put them; the rest by score, ties by rank.
  scored.sort(
    (a, b) => Number(b.h.named) - Number(a.h.named) || b.h.score - a.h.score || a.i - b.i,
  );
  return scored.map((s) => s.h);
}

/**
 * Adds the code notes to recall's items and the renderer's hits (parallel
 * arrays): the reason and a `stale` freshness (a historical page stays
 * historical) and the last linked commit.
 */
export function annotateCode(
  items: Array<{
    vault: string;
    id: string;
    freshness: "current" | "stale" | "historical";
    staleReason?: string;
    lastCommit?: LinkedCommit;
  }>,
  hits: Array<{
    freshness?: "current" | "stale" | "historical";
    staleReason?: string;
    lastCommit?: string;
  }>,
  notes: ReadonlyMap<string, CodeNote>,
): void {
  items.forEach((item, i) => {
    const note = notes.get(`${item.vault}\u0000${item.id}`);
    const hit = hits[i];
    if (!note) return;
    if (note.staleReason !== undefined) {
      item.staleReason = note.staleReason;
      if (item.freshness === "current") item.freshness = "stale";
      if (hit) {
        hit.staleReason = note.staleReason;
        if (hit.freshness === undefined || hit.freshness === "current") hit.freshness = "stale";
      }
    }
    if (note.lastCommit) {
      item.lastCommit = note.lastCommit;
      if (hit) hit.lastCommit = commitLine(note.lastCommit);
    }
  });
}
