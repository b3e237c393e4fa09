/**
 * `llm-wiki migrate`: moves a legacy layout (legacy-layout.ts) into the one
 * discovery opens. The moves are planned first and all refused when one
 * cannot be made safely, so a migration either runs whole or not at all:
 *
 * - nothing is overwritten: a folder that exists on both sides is merged
 *   entry by entry, and any other entry that exists on both sides stops the
 *   plan (files are moved by hard link and unlink, which fails rather than
 *   replace a file that appeared meanwhile);
 * - no symbolic link is followed or moved: a link among the planned entries,
 *   or in place of a folder to merge into, stops the plan (the links inside
 *   a folder moved whole travel with it unchanged, as links);
 * - nothing crosses a file system (a rename there would copy);
 * - a move that fails midway is undone, in reverse order.
 *
 * A dry run plans and lists the moves and changes nothing.
 */
import {
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  type Stats,
  unlinkSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { neutraliseLine } from "../safety/text.ts";
import {
  findLegacyLayouts,
  LEGACY_DIR,
  type LegacyLayout,
  type LegacyLayoutKind,
  legacyLayoutAt,
  shellWord,
} from "./legacy-layout.ts";
import { type DiscoveryEnv, rootFromArg, VAULT_DIR } from "./paths.ts";

/** One planned move, both sides relative to the layout's root (`/`-separated). */
export interface LayoutMove {
  from: string;
  to: string;
  kind: "file" | "dir";
}

export interface MigrateInput {
  cwd: string;
  env?: DiscoveryEnv;
  /** `--vault`: the root to migrate; default the nearest legacy layout around `cwd`. */
  vault?: string;
  dryRun?: boolean;
}

export interface MigrateResult {
  ok: boolean;
  dryRun: boolean;
  root?: string;
  layout?: LegacyLayoutKind;
  /** The moves made (or, in a dry run, to be made), in order. */
  moves: LayoutMove[];
  /** Entries of the old layout that stay where they are (not part of a vault). */
  left: string[];
  diagnostics: Diagnostic[];
}

/** What the old package kept where, in its `.wiki/` layout: source → destination under `.llm-wiki/`. */
const DOT_WIKI_ENTRIES: ReadonlyArray<readonly [string, string]> = [
  [`${LEGACY_DIR}/config.json`, "config.json"],
  [`${LEGACY_DIR}/templates`, "templates"],
  ["wiki", "wiki"],
  ["raw", "raw"],
  ["meta", "meta"],
  ["outputs", "outputs"],
  [".discoveries", ".discoveries"],
  ["WIKI_SCHEMA.md", "WIKI_SCHEMA.md"],
];

function lstat(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

interface Plan {
  moves: LayoutMove[];
  left: string[];
  problems: Diagnostic[];
}

const shown = (rel: string) => `"${neutraliseLine(rel)}"`;

/** Plans moving `from` to `to` (relative to `root`), merging folders present on both sides. */
function planEntry(root: string, from: string, to: string, device: number, plan: Plan): void {
  const source = lstat(join(root, from));
  if (!source) return;
  if (source.isSymbolicLink()) {
    plan.problems.push(
      diagnostic(
        "migrate_symlink",
        "error",
        `${shown(from)} is a symbolic link; it is neither followed nor moved (move it by hand)`,
      ),
    );
    return;
  }
  if (!source.isFile() && !source.isDirectory()) {
    plan.problems.push(
      diagnostic("migrate_not_movable", "error", `${shown(from)} is neither a file nor a folder`),
    );
    return;
  }
  if (source.dev !== device) {
    plan.problems.push(
      diagnostic(
        "migrate_cross_device",
        "error",
        `${shown(from)} is on another file system than the vault; moving it would copy it (move it by hand)`,
      ),
    );
    return;
  }
  const target = lstat(join(root, to));
  if (!target) {
    plan.moves.push({ from, to, kind: source.isDirectory() ? "dir" : "file" });
    return;
  }
  if (source.isDirectory() && target.isDirectory() && !target.isSymbolicLink()) {
    for (const name of readdirSync(join(root, from)).sort()) {
      planEntry(root, `${from}/${name}`, `${to}/${name}`, device, plan);
    }
    return;
  }
  plan.problems.push(
    diagnostic(
      "migrate_conflict",
      "error",
      `${shown(to)} exists already${target.isSymbolicLink() ? " as a symbolic link" : ""}; it is never overwritten (move ${shown(from)} or it by hand)`,
    ),
  );
}

/** The moves that turn `layout` into a `.llm-wiki/` vault, and why any cannot be made. */
export function planMigration(layout: LegacyLayout): Plan {
  const plan: Plan = { moves: [], left: [], problems: [] };
  const { root } = layout;
  const rootStat = lstat(root);
  if (!rootStat) return plan;
  if (layout.kind === "dot_wiki") {
    const legacy = lstat(join(root, LEGACY_DIR));
    if (legacy?.isSymbolicLink()) {
      plan.problems.push(
        diagnostic(
          "migrate_symlink",
          "error",
          `${shown(LEGACY_DIR)} is a symbolic link; not followed`,
        ),
      );
      return plan;
    }
    for (const [from, to] of DOT_WIKI_ENTRIES) {
      planEntry(root, from, `${VAULT_DIR}/${to}`, rootStat.dev, plan);
    }
    const moved = new Set(["config.json", "templates"]);
    plan.left = readdirSync(join(root, LEGACY_DIR))
      .filter((name) => !moved.has(name))
      .sort()
      .map((name) => `${LEGACY_DIR}/${name}`);
    return plan;
  }
  const inner = `${VAULT_DIR}/${VAULT_DIR}`;
  for (const rel of [VAULT_DIR, inner]) {
    if (lstat(join(root, rel))?.isSymbolicLink()) {
      plan.problems.push(
        diagnostic("migrate_symlink", "error", `${shown(rel)} is a symbolic link; not followed`),
      );
      return plan;
    }
  }
  const names = readdirSync(join(root, inner)).sort();
  if (names.includes(VAULT_DIR)) {
    // Three deep: flattening one level would move the inner folder into itself.
    plan.problems.push(
      diagnostic(
        "migrate_not_movable",
        "error",
        `${shown(inner)} holds another ${VAULT_DIR}/; flatten it by hand`,
      ),
    );
    return plan;
  }
  for (const name of names) {
    planEntry(root, `${inner}/${name}`, `${VAULT_DIR}/${name}`, rootStat.dev, plan);
  }
  return plan;
}

/** Moves one entry without replacing anything: a file by hard link then unlink, a folder by rename. */
function moveEntry(root: string, from: string, to: string, kind: LayoutMove["kind"]): void {
  const src = join(root, from);
  const dest = join(root, to);
  if (kind === "file") {
    try {
      // link(2) fails with EEXIST instead of replacing a file that appeared since the plan.
      linkSync(src, dest);
      unlinkSync(src);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A file system without hard links: rename, after checking (the plan did too).
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw error;
    }
  }
  if (lstat(dest)) throw new Error(`${to} appeared since the plan; nothing is overwritten`);
  renameSync(src, dest);
}

/** Removes the folders of `rel` that the moves emptied, deepest first; stops at one still holding anything. */
function removeEmptied(root: string, rel: string): void {
  const abs = join(root, rel);
  const stat = lstat(abs);
  if (!stat?.isDirectory()) return;
  for (const name of readdirSync(abs)) removeEmptied(root, `${rel}/${name}`);
  try {
    rmdirSync(abs);
  } catch {
    // Not empty: something the plan did not move (nothing should be), left as it is.
  }
}

/** Runs the moves of `plan`; on a failure undoes those made and returns why. */
function applyPlan(layout: LegacyLayout, plan: Plan): Diagnostic | undefined {
  const { root } = layout;
  const created: string[] = [];
  const done: LayoutMove[] = [];
  try {
    if (layout.kind === "dot_wiki") {
      mkdirSync(join(root, VAULT_DIR));
      created.push(VAULT_DIR);
    }
    for (const move of plan.moves) {
      const parent = dirname(move.to);
      for (const dir of ancestors(parent)) {
        if (lstat(join(root, dir))) continue;
        mkdirSync(join(root, dir));
        created.push(dir);
      }
      moveEntry(root, move.from, move.to, move.kind);
      done.push(move);
    }
  } catch (error) {
    const undo: string[] = [];
    for (const move of done.reverse()) {
      try {
        moveEntry(root, move.to, move.from, move.kind);
      } catch (back) {
        undo.push(`${neutraliseLine(move.to)}: ${errorMessage(back)}`);
      }
    }
    for (const dir of created.reverse()) {
      try {
        rmdirSync(join(root, dir));
      } catch {
        // Holding something: kept, the diagnostic names what was not undone.
      }
    }
    return diagnostic(
      "migrate_failed",
      "error",
      `a move failed (${errorMessage(error)}); ${undo.length === 0 ? "every move made was undone" : `not undone: ${undo.join("; ")}`}`,
      { path: root },
    );
  }
  if (layout.kind === "doubled") removeEmptied(root, `${VAULT_DIR}/${VAULT_DIR}`);
  return undefined;
}

/** `a/b/c` → `a`, `a/b`, `a/b/c`. */
function ancestors(rel: string): string[] {
  const parts = rel.split("/");
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** Finds the legacy layout to migrate (the `--vault` root, else the nearest), plans and, unless a dry run, moves it. */
export function migrateLayout(input: MigrateInput): MigrateResult {
  const dryRun = input.dryRun === true;
  const env = input.env ?? process.env;
  const found =
    input.vault !== undefined
      ? [legacyLayoutAt(rootFromArg(input.vault))].filter((l): l is LegacyLayout => l !== undefined)
      : findLegacyLayouts(input.cwd, env);
  const [layout, ...others] = found;
  if (!layout) {
    return {
      ok: true,
      dryRun,
      moves: [],
      left: [],
      diagnostics: [
        diagnostic(
          "migrate_nothing",
          "info",
          input.vault !== undefined
            ? `no legacy layout at ${rootFromArg(input.vault)}; nothing to migrate`
            : "no legacy layout here, in a parent folder or at the personal vault; nothing to migrate",
        ),
      ],
    };
  }
  const plan = planMigration(layout);
  const base = {
    dryRun,
    root: layout.root,
    layout: layout.kind,
    moves: plan.moves,
    left: plan.left,
  };
  const also = others.map((l) =>
    diagnostic("migrate_other_layout", "info", `another legacy layout at ${l.root}`, {
      repair: `llm-wiki migrate --vault ${shellWord(l.root)}`,
    }),
  );
  if (plan.problems.length > 0) {
    return { ...base, ok: false, diagnostics: [...plan.problems, ...also] };
  }
  if (dryRun) return { ...base, ok: true, diagnostics: also };
  const failed = applyPlan(layout, plan);
  return failed
    ? { ...base, ok: false, diagnostics: [failed, ...also] }
    : { ...base, ok: true, diagnostics: also };
}

/** The result as text: what moves (or moved) where, and what stays. */
export function renderMigrate(result: MigrateResult): string {
  if (!result.root || !result.layout) return "";
  const what =
    result.layout === "dot_wiki"
      ? `pi-llm-wiki's old layout (${LEGACY_DIR}/)`
      : `a doubled ${VAULT_DIR}/${VAULT_DIR}/`;
  const verb = result.dryRun || !result.ok ? "would move" : "moved";
  const lines = [
    `${neutraliseLine(result.root)}: ${what}, ${verb} ${result.moves.length} entr${result.moves.length === 1 ? "y" : "ies"} into ${VAULT_DIR}/`,
    ...result.moves.map((m) => `  ${neutraliseLine(m.from)} → ${neutraliseLine(m.to)}`),
  ];
  if (result.left.length > 0) {
    lines.push("left in place:", ...result.left.map((l) => `  ${neutraliseLine(l)}`));
  }
  if (result.dryRun && result.ok)
    lines.push("dry run: nothing was changed; run without --dry-run to move them");
  // A failed move says itself what was undone; a refused plan moved nothing.
  if (!result.ok && !result.diagnostics.some((d) => d.code === "migrate_failed")) {
    lines.push("nothing was moved");
  }
  return lines.join("\n");
}
