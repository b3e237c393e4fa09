/**
 * Runs a client's plan: each file is read and edited in memory, then,
 * unless this is a dry run, all are written together, all or nothing
 * (file-transaction.ts): a failure half-way leaves no file changed. Each
 * file keeps its mode and owner (a 0600 file holding another server's token
 * stays 0600); a read-only file is refused, as is an entry of ours by name
 * that setup did not write (unless `force`). Nothing is read or written
 * through a symbolic link below the scope's folder, or at the file itself.
 */
import { lstatSync, readFileSync } from "node:fs";
import { type Diagnostic, diagnostic, WikiError } from "../diagnostics.ts";
import { linkOnTheWay, writeThroughLinkError } from "../vault/fs-safe.ts";
import { commitFiles, TransactionError } from "./file-transaction.ts";
import type { ClientPlan } from "./setup-types.ts";
import { lineDiff } from "./text-diff.ts";

/** What happened to one file. */
export interface FileOutcome {
  path: string;
  what: string;
  /** `unchanged`: already as wanted (a second run); `removed`: the file held only ours. */
  change: "written" | "unchanged" | "removed";
  /** The change as removed (`-`) and added (`+`) lines. */
  diff: string;
}

export interface SetupResult {
  ok: boolean;
  client: string;
  scope: string;
  action: "add" | "remove";
  dryRun: boolean;
  files: FileOutcome[];
  notes: string[];
  diagnostics: Diagnostic[];
}

function readCurrent(path: string): string | undefined {
  try {
    if (!lstatSync(path).isFile()) {
      throw new Error(`${path} is not a regular file`);
    }
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** A file its owner made read-only: setup will not change it behind their back. */
function refuseReadOnly(path: string): void {
  let mode: number;
  try {
    mode = lstatSync(path).mode;
  } catch {
    return;
  }
  if ((mode & 0o200) !== 0) return;
  throw new WikiError(
    diagnostic(
      "setup_config_read_only",
      "error",
      `${path} is read-only (mode ${(mode & 0o7777).toString(8).padStart(4, "0")}); setup does not change a file its owner protected, so nothing was changed`,
      {
        path,
        repair: `make it writable (chmod u+w ${path}) and run setup again, or add the entry by hand`,
      },
    ),
  );
}

/** Applies (or with `dryRun` only shows) `plan`'s `action`; `force` replaces another's entry of our name. */
export function applyPlan(
  plan: ClientPlan,
  action: "add" | "remove",
  dryRun: boolean,
  force = false,
): SetupResult {
  const result: SetupResult = {
    ok: true,
    client: plan.client,
    scope: plan.scope,
    action,
    dryRun,
    files: [],
    notes: action === "add" ? plan.notes : [],
    diagnostics: [],
  };
  const edits: Array<{
    path: string;
    within: string;
    before: string | undefined;
    next: string | undefined;
    outcome: FileOutcome;
  }> = [];
  try {
    for (const file of plan.files) {
      const link = linkOnTheWay(file.path, file.within);
      if (link !== undefined) throw writeThroughLinkError(file.path, link);
      const current = readCurrent(file.path);
      const next = file.apply(current, action, force);
      if (next !== current) refuseReadOnly(file.path);
      const change = next === current ? "unchanged" : next === undefined ? "removed" : "written";
      const outcome: FileOutcome = {
        path: file.path,
        what: file.what,
        change,
        diff: change === "unchanged" ? "" : lineDiff(current ?? "", next ?? ""),
      };
      edits.push({ path: file.path, within: file.within, before: current, next, outcome });
    }
  } catch (error) {
    if (!(error instanceof WikiError)) throw error;
    return { ...result, ok: false, notes: [], diagnostics: [error.diagnostic] };
  }
  for (const edit of edits) result.files.push(edit.outcome);
  if (dryRun) return result;
  const changes = edits
    .filter((e) => e.outcome.change !== "unchanged")
    .map((e) => ({ path: e.path, before: e.before, next: e.next }));
  try {
    // A user's own files may hold tokens: a new one is readable by its owner only.
    commitFiles(changes, plan.scope === "user" ? 0o600 : 0o644);
  } catch (error) {
    if (!(error instanceof TransactionError)) throw error;
    return {
      ...result,
      ok: false,
      files: [],
      notes: [],
      diagnostics: [
        diagnostic(
          "setup_write_failed",
          "error",
          `${error.message}; every file of this set-up was left as it was`,
          {
            path: error.path,
            repair: "make the folder and file writable (or free space), then run setup again",
          },
        ),
      ],
    };
  }
  return result;
}
