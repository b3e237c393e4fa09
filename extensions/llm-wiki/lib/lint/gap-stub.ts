/**
 * Where the stub for a knowledge gap would go: the type comes from the
 * target's folder (`concepts/x` → a concept at `wiki/concepts/x.md`), the
 * title from the target as written. A target without a known folder gets no
 * stub: guessing its type would file knowledge in the wrong place.
 */
import { CANONICAL_TYPES } from "../vault/page.ts";
import { folderOfType } from "../vault/page-folders.ts";
import { slugify, slugPath } from "../vault/slug.ts";

const TYPE_OF_FOLDER: ReadonlyMap<string, string> = new Map([
  ...CANONICAL_TYPES.map((type): [string, string] => [folderOfType(type), type]),
  ["sources", "source"],
]);

/** A stub that can be created. */
export interface StubPlan {
  type: string;
  id: string;
  path: string;
  title: string;
}

/** The stub for `target`, or why there can be none. */
export function planGapStub(target: string): StubPlan | { reason: string } {
  const key = slugPath(target);
  const parts = key.split("/");
  const written = target.split("/").filter((s) => s !== "");
  const [folder, slug] = parts;
  if (target.split("/").includes("..")) return { reason: "the target leaves the wiki folder" };
  if (parts.length !== 2 || folder === undefined || slug === undefined) {
    return {
      reason: `the target has no page folder (expected <folder>/<slug>, folder one of ${[...TYPE_OF_FOLDER.keys()].join(", ")})`,
    };
  }
  const type = TYPE_OF_FOLDER.get(folder);
  if (type === undefined) return { reason: `"${folder}" is not a page folder` };
  // ensurePage slugs the title, so the title must slug back to this id.
  const asWritten = (written[written.length - 1] ?? "").normalize("NFKC").trim();
  const humanised = asWritten.includes(" ") ? asWritten : asWritten.replace(/-+/g, " ");
  const capitalised = humanised.charAt(0).toUpperCase() + humanised.slice(1);
  const title = slugify(capitalised) === slug ? capitalised : slug;
  return { type, id: key, path: `wiki/${key}.md`, title };
}

/** Markdown body of a stub: what it is and who links to it. */
export function stubBody(title: string, linkedFromIds: string[]): string {
  const links = linkedFromIds.map((id) => `- [[${id}]]`).join("\n");
  return `# ${title}\n\nStub created by \`llm-wiki lint --fix\`: ${linkedFromIds.length} pages link here but the page did not exist. Replace this text with what the vault knows.\n\n## Linked from\n\n${links}\n`;
}
