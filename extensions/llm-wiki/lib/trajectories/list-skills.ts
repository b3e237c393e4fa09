/**
 * The skill and case pages of the selected vaults, for `/wiki-skills` and
 * `llm-wiki skills list`: what the working memory holds, without a query.
 */
import type { Diagnostic } from "../diagnostics.ts";
import { neutraliseLine } from "../safety/text.ts";
import type { VaultKind, VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";

export interface SkillEntry {
  id: string;
  title: string;
  type: "skill" | "case";
  vault: VaultKind;
  description?: string;
  updated?: string;
}

export interface ListSkillsResult {
  ok: boolean;
  skills: SkillEntry[];
  /** Trajectories not yet distilled, when the caller counted them. */
  undistilled?: number;
  diagnostics: Diagnostic[];
}

/** Skills first, then cases, each by title. */
export function listSkills(vaults: ReadonlyArray<{ paths: VaultPaths; registry: Registry }>) {
  const skills: SkillEntry[] = [];
  for (const { paths, registry } of vaults) {
    for (const page of registry.pages.values()) {
      if (page.type !== "skill" && page.type !== "case") continue;
      const entry: SkillEntry = {
        id: page.id,
        title: page.title,
        type: page.type,
        vault: paths.kind,
      };
      if (page.description) entry.description = page.description;
      const updated = page.updated ?? page.created;
      if (updated) entry.updated = updated;
      skills.push(entry);
    }
  }
  return skills.sort((a, b) =>
    a.type === b.type ? a.title.localeCompare(b.title) : a.type === "skill" ? -1 : 1,
  );
}

/** One line per page: id, title, type (and vault when personal), description. */
export function renderSkillList(result: ListSkillsResult): string {
  if (!result.ok) return "";
  const waiting =
    result.undistilled !== undefined && result.undistilled > 0
      ? `\n${result.undistilled} trajectories wait to be distilled (wiki_distill_skills).`
      : "";
  if (result.skills.length === 0) {
    return `No skill or case pages yet. Record finished tasks with wiki_capture_trajectory and distill them with wiki_distill_skills.${waiting}`;
  }
  const lines = result.skills.map(
    (s) =>
      `- ${neutraliseLine(s.id)}  ${neutraliseLine(s.title)}  [${s.type}${s.vault === "personal" ? ", personal" : ""}]${s.description ? ` — ${neutraliseLine(s.description)}` : ""}`,
  );
  return `${result.skills.length} skill/case page(s):\n${lines.join("\n")}${waiting}`;
}
