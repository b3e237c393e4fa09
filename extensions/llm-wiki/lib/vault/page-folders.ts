/**
 * Where pages of each type live under `wiki/`. Kept apart from the writers:
 * the vault's own documents (the schema, the page templates) name these
 * folders too, and must not import the write path to do so.
 */

const FOLDER_OF_TYPE: Record<string, string> = {
  entity: "entities",
  concept: "concepts",
  synthesis: "syntheses",
  analysis: "analyses",
  requirement: "requirements",
  skill: "skills",
  case: "cases",
};

/** Folder under `wiki/` where pages of `type` are created (evidence goes to `sources`). */
export function folderOfType(type: string): string {
  return FOLDER_OF_TYPE[type] ?? "sources";
}
