/**
 * Vault layouts of `@zosmaai/pi-llm-wiki` that discovery does not open, found
 * so they are reported instead of passing for "no vault" (or for an empty
 * one):
 *
 * - `dot_wiki`: its old layout, a `.wiki/config.json` sentinel with the
 *   vault's `wiki/`, `raw/`, `meta/`… directly in the root, and no
 *   `.llm-wiki/` yet. Discovery looks for `.llm-wiki/` only, so it sees
 *   nothing there (or falls through to the personal vault).
 * - `doubled`: a vault written one level too deep, `<root>/.llm-wiki/.llm-wiki/`
 *   (an old bug of its personal-vault path). Discovery opens the outer
 *   folder, which holds no pages of its own.
 *
 * Each comes with a diagnostic naming the repair, `llm-wiki migrate`.
 */
import { lstatSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import {
  type DiscoveryEnv,
  findProjectVault,
  personalRoot,
  rootFromArg,
  VAULT_DIR,
} from "./paths.ts";

/** The old layout's sentinel folder. */
export const LEGACY_DIR = ".wiki";

export type LegacyLayoutKind = "dot_wiki" | "doubled";

/** A vault in a layout of the old package, and the folder it belongs in. */
export interface LegacyLayout {
  kind: LegacyLayoutKind;
  /** The folder that holds (or, after the migration, will hold) `.llm-wiki/`. */
  root: string;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The legacy layout whose root is `root`, if any. */
export function legacyLayoutAt(root: string): LegacyLayout | undefined {
  const dir = join(root, VAULT_DIR);
  const inner = join(dir, VAULT_DIR);
  if (isDir(inner) && (isFile(join(inner, "config.json")) || isDir(join(inner, "wiki")))) {
    return { kind: "doubled", root };
  }
  // Migrated already (or both kept): `.llm-wiki/` is the vault, `.wiki/` a leftover.
  if (exists(dir)) return undefined;
  const sentinel = join(root, LEGACY_DIR, "config.json");
  if (isFile(sentinel) && (isDir(join(root, "wiki")) || isDir(join(root, "raw")))) {
    return { kind: "dot_wiki", root };
  }
  return undefined;
}

/**
 * Legacy layouts a host at `cwd` would otherwise not see: in `cwd` and its
 * parents up to the project vault discovery opens (beyond it that vault
 * wins anyway), and at the personal vault's root. Nearest first.
 */
export function findLegacyLayouts(cwd: string, env: DiscoveryEnv = process.env): LegacyLayout[] {
  const found: LegacyLayout[] = [];
  const project = findProjectVault(cwd, env);
  let dir = resolve(cwd);
  for (;;) {
    const layout = legacyLayoutAt(dir);
    if (layout) found.push(layout);
    if (project && dir === project.root) break;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const personal = legacyLayoutAt(personalRoot(env));
  if (personal && !found.some((l) => l.root === personal.root)) found.push(personal);
  return found;
}

/** `path` as one shell word (single-quoted unless it is plain). */
export function shellWord(path: string): string {
  return /^[A-Za-z0-9_/.,:@%+=-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}

/** What was found, and the command that moves it into the layout discovery opens. */
export function legacyLayoutDiagnostic(layout: LegacyLayout): Diagnostic {
  const repair = `llm-wiki migrate --vault ${shellWord(layout.root)} --dry-run lists the moves; without --dry-run it makes them`;
  return layout.kind === "dot_wiki"
    ? diagnostic(
        "vault_legacy_layout",
        "warning",
        `${layout.root}: a vault in pi-llm-wiki's old layout (${LEGACY_DIR}/config.json, its pages in wiki/ beside it); llm-wiki opens only ${VAULT_DIR}/, so it is not used`,
        { path: layout.root, repair },
      )
    : diagnostic(
        "vault_doubled_layout",
        "warning",
        `${layout.root}: a vault one level too deep (${VAULT_DIR}/${VAULT_DIR}/); llm-wiki opens ${join(layout.root, VAULT_DIR)}, which does not hold its pages`,
        { path: layout.root, repair },
      );
}

/**
 * The diagnostics of every legacy layout a host would otherwise miss: at
 * the `--vault` root when one is given, else around `cwd` (see `findLegacyLayouts`).
 */
export function legacyLayoutDiagnostics(
  cwd: string,
  env: DiscoveryEnv = process.env,
  explicitVault?: string,
): Diagnostic[] {
  const layouts =
    explicitVault === undefined
      ? findLegacyLayouts(cwd, env)
      : [legacyLayoutAt(rootFromArg(explicitVault))].filter(
          (l): l is LegacyLayout => l !== undefined,
        );
  return layouts.map(legacyLayoutDiagnostic);
}
