/**
 * Runs a client's plan: each file is read, edited in memory and, unless
 * this is a dry run, written atomically (a temporary file renamed over it).
 * Nothing is read or written through a symbolic link below the scope's
 * folder, or at the file itself. All files are edited in memory first:
 * one that cannot be read leaves every file of the plan untouched.
 */
import { lstatSync, readFileSync, unlinkSync } from "node:fs";
import { type Diagnostic, WikiError } from "../diagnostics.ts";
import { linkOnTheWay, writeFileAtomic, writeThroughLinkError } from "../vault/fs-safe.ts";
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

/** Applies (or with `dryRun` only shows) `plan`'s `action`. */
export function applyPlan(
  plan: ClientPlan,
  action: "add" | "remove",
  dryRun: boolean,
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
    next: string | undefined;
    outcome: FileOutcome;
  }> = [];
  try {
    for (const file of plan.files) {
      const link = linkOnTheWay(file.path, file.within);
      if (link !== undefined) throw writeThroughLinkError(file.path, link);
      const current = readCurrent(file.path);
      const next = file.apply(current, action);
      const change = next === current ? "unchanged" : next === undefined ? "removed" : "written";
      const outcome: FileOutcome = {
        path: file.path,
        what: file.what,
        change,
        diff: change === "unchanged" ? "" : lineDiff(current ?? "", next ?? ""),
      };
      edits.push({ path: file.path, within: file.within, next, outcome });
    }
  } catch (error) {
    if (!(error instanceof WikiError)) throw error;
    return { ...result, ok: false, notes: [], diagnostics: [error.diagnostic] };
  }
  for (const edit of edits) {
    result.files.push(edit.outcome);
    if (dryRun || edit.outcome.change === "unchanged") continue;
    if (edit.next === undefined) unlinkSync(edit.path);
    else writeFileAtomic(edit.path, edit.next, edit.within);
  }
  return result;
}
