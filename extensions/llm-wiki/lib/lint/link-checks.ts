/**
 * Link checks: links that resolve to no page or to several, and knowledge
 * gaps (one missing page that two or more pages link to).
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { isOlderPacket } from "../trajectories/older-packets.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import { slugPath } from "../vault/slug.ts";
import { planGapStub } from "./gap-stub.ts";
import type { LintFinding } from "./types.ts";

const pathOf = (id: string): string => `wiki/${id}.md`;

/** One missing page with every page that links to it. */
export interface KnowledgeGap {
  /** The slugged target all these links resolve by. */
  key: string;
  /** The target as first written (by the first linking page in id order). */
  target: string;
  /** Ids of the linking pages, sorted. */
  linkedFrom: string[];
}

/**
 * The link problems of `registry`, less missing links to an older system's
 * trajectory packet (`[[trajectories/TRJ-…]]`, which distilling one
 * requires): not dangling, and no gap to stub (a stub would hide the packet).
 */
function problemsOf(registry: Registry, vault: VaultPaths | undefined) {
  if (!vault) return registry.linkProblems;
  return registry.linkProblems.filter(
    (p) => p.status !== "missing" || !isOlderPacket(vault, p.target),
  );
}

/** Missing and ambiguous links, one finding per linking page and target. */
export function linkFindings(registry: Registry, vault?: VaultPaths): LintFinding[] {
  const seen = new Set<string>();
  const out: LintFinding[] = [];
  for (const problem of problemsOf(registry, vault)) {
    const key = `${problem.status}\0${problem.from}\0${problem.target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const path = pathOf(problem.from);
    if (problem.status === "missing") {
      out.push({
        check: "link",
        code: "link_missing",
        severity: "warning",
        message: `${path}: link [[${problem.target}]] names no page`,
        path,
        target: problem.target,
      });
    } else {
      const candidates = problem.candidates ?? [];
      out.push({
        check: "link",
        code: "link_ambiguous",
        severity: "warning",
        message: `${path}: link [[${problem.target}]] could mean ${candidates.join(" or ")}; write the full id`,
        path,
        target: problem.target,
        candidates,
      });
    }
  }
  return out;
}

/** Missing targets linked from two or more distinct pages. */
export function knowledgeGaps(registry: Registry, vault?: VaultPaths): KnowledgeGap[] {
  const byKey = new Map<string, { target: string; from: Set<string> }>();
  for (const problem of problemsOf(registry, vault)) {
    if (problem.status !== "missing") continue;
    const key = slugPath(problem.target);
    if (key === "") continue;
    const entry = byKey.get(key);
    if (entry) entry.from.add(problem.from);
    else byKey.set(key, { target: problem.target, from: new Set([problem.from]) });
  }
  const gaps: KnowledgeGap[] = [];
  for (const [key, { target, from }] of byKey) {
    if (from.size >= 2) gaps.push({ key, target, linkedFrom: [...from].sort() });
  }
  return gaps.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** True when anything (even a broken symlink) occupies the vault-relative `path`. */
export function occupied(vault: VaultPaths, path: string): boolean {
  try {
    // lstat sees what is there, a symbolic link included, whether or not it leads anywhere.
    lstatSync(join(vault.dir, path));
    return true;
  } catch {
    return false;
  }
}

/**
 * One finding per knowledge gap, on the path its stub would have. The repair
 * is `--fix` only when the stub can be created there.
 */
export function gapFindings(vault: VaultPaths, gaps: KnowledgeGap[]): LintFinding[] {
  return gaps.map((gap) => {
    const plan = planGapStub(gap.target);
    const pages = gap.linkedFrom.map(pathOf);
    const base = {
      check: "gap" as const,
      code: "knowledge_gap",
      severity: "info" as const,
      target: gap.target,
      pages,
    };
    if ("reason" in plan) {
      return {
        ...base,
        message: `[[${gap.target}]] is linked from ${pages.length} pages but does not exist (no stub: ${plan.reason})`,
      };
    }
    if (occupied(vault, plan.path)) {
      return {
        ...base,
        message: `${plan.path} is linked from ${pages.length} pages, but the file there is not an accepted page; repair or rename it by hand`,
        path: plan.path,
      };
    }
    return {
      ...base,
      message: `${plan.path} is linked from ${pages.length} pages but does not exist`,
      path: plan.path,
      repair: "llm-wiki lint --fix",
    };
  });
}
