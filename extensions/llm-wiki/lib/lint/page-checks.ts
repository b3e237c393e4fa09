/**
 * Checks that need only the registry: malformed pages, orphans, and titles
 * or aliases two pages share.
 */
import { MERGE_CONFLICT_CODE } from "../vault/merge-conflicts.ts";
import { nameKey } from "../vault/name-key.ts";
import type { Registry } from "../vault/registry.ts";
import { RELATION_PARSE_CODES } from "./relation-checks.ts";
import type { LintFinding } from "./types.ts";

/**
 * Last id segments that mark a vault's entry page (`index`, `syntheses/overview`
 * …). Such a page is where reading starts, so nothing has to link to it.
 */
const ENTRY_PAGE_NAMES: ReadonlySet<string> = new Set(["index", "overview", "home", "readme"]);

/**
 * Every registry diagnostic (unparseable, untyped, unreadable or escaping
 * pages, soft page warnings) but the relation ones, which the relation
 * check reports; a page git left unmerged is the merge check's.
 */
export function malformedFindings(registry: Registry): LintFinding[] {
  return registry.diagnostics
    .filter((d) => !RELATION_PARSE_CODES.has(d.code))
    .map((d) => ({ ...d, check: d.code === MERGE_CONFLICT_CODE ? "merge" : "malformed" }));
}

/** True when `id` names the vault's entry page. */
function isEntryPage(id: string): boolean {
  return ENTRY_PAGE_NAMES.has((id.split("/").pop() ?? id).toLowerCase());
}

/**
 * Orphans: canonical pages no other page links to. Evidence pages are exempt
 * (they are reached through the pages that cite them, or by search), and so
 * is the entry page. A link counts from any accepted page, canonical or
 * evidence; links inside a malformed page are not read, so they do not count.
 */
export function orphanFindings(registry: Registry): LintFinding[] {
  const out: LintFinding[] = [];
  for (const page of registry.pages.values()) {
    if (page.role !== "canonical" || isEntryPage(page.id)) continue;
    if ((registry.backlinks.get(page.id) ?? []).length > 0) continue;
    out.push({
      check: "orphan",
      code: "page_orphan",
      severity: "info",
      message: `${page.path}: no other page links to this ${page.type}`,
      path: page.path,
    });
  }
  return out;
}

interface NameUse {
  path: string;
  kind: "title" | "alias";
  text: string;
}

/**
 * Duplicates: one name (title or alias, compared by `nameKey`) used by two or
 * more pages. One finding per name, on the first page in id order, naming the
 * others. All titles → `duplicate_title`; any alias involved → `duplicate_alias`.
 * A page repeating its own title as an alias is not a duplicate.
 */
export function duplicateFindings(registry: Registry): LintFinding[] {
  const byKey = new Map<string, NameUse[]>();
  for (const page of registry.pages.values()) {
    const own = new Set<string>();
    const names: Array<[NameUse["kind"], string]> = [
      ["title", page.title],
      ...page.aliases.map((a): [NameUse["kind"], string] => ["alias", a]),
    ];
    for (const [kind, text] of names) {
      const key = nameKey(text);
      if (key === "" || own.has(key)) continue;
      own.add(key);
      const list = byKey.get(key);
      const use = { path: page.path, kind, text };
      if (list) list.push(use);
      else byKey.set(key, [use]);
    }
  }
  const out: LintFinding[] = [];
  for (const uses of byKey.values()) {
    if (uses.length < 2) continue;
    const [first, ...rest] = uses;
    if (!first) continue;
    const aliased = uses.some((u) => u.kind === "alias");
    const described = uses.map((u) => `${u.path} (${u.kind})`).join(", ");
    out.push({
      check: "duplicate",
      code: aliased ? "duplicate_alias" : "duplicate_title",
      severity: "warning",
      message: `"${first.text}" names ${uses.length} pages: ${described}`,
      path: first.path,
      pages: rest.map((u) => u.path),
    });
  }
  return out;
}
