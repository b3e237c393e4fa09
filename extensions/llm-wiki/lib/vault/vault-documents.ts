/**
 * The documents a new vault starts with besides its config: `WIKI_SCHEMA.md`
 * (the vault's operating manual for people and agents) and one page
 * template per type under `templates/pages/`, where `@zosmaai/pi-llm-wiki`
 * keeps its template folder, so a copy its users made is found (and kept:
 * bootstrap never overwrites one).
 */
import { LINT_CHECKS, type LintCheck } from "../lint/types.ts";
import { CANONICAL_TYPES, PAGE_STATUSES } from "./page.ts";
import { folderOfType } from "./page-folders.ts";
import { RELATION_TYPES, type RelationType } from "./relations.ts";

/** The manual's path, relative to the vault's `.llm-wiki/`. */
export const SCHEMA_FILE = "WIKI_SCHEMA.md";
/** The templates' folder, relative to the vault's `.llm-wiki/`. */
export const TEMPLATES_DIR = "templates/pages";

/** Types a template is written for: the curated ones, and sources. */
export const TEMPLATE_TYPES = [...CANONICAL_TYPES, "source"] as const;
type TemplateType = (typeof TEMPLATE_TYPES)[number];

const PURPOSE: Record<TemplateType, string> = {
  entity: "one person, organisation, tool, product or system",
  concept: "one idea, pattern, technique or term",
  synthesis: "a conclusion that several sources or pages support together",
  analysis: "a comparison, evaluation or answer worth keeping",
  requirement: "one thing the project must do or respect, with its status",
  skill: "a procedure: how to do one thing, step by step",
  case: "one worked example or incident, and what it taught",
  source: "what one captured source says (the packet under raw/ stays as captured)",
};

const SECTIONS: Record<TemplateType, string[]> = {
  entity: ["What it is", "How this project uses it", "Facts worth remembering", "Related"],
  concept: ["In one paragraph", "How it works", "When it applies (and when not)", "Related"],
  synthesis: ["The claim", "Evidence", "Tensions and open questions", "Related"],
  analysis: ["Question", "Answer", "Options compared", "Related"],
  requirement: ["Requirement", "Why", "Acceptance", "Related"],
  skill: ["When to use", "Steps", "Pitfalls", "Related"],
  case: ["Situation", "What happened", "What we learned", "Related"],
  source: ["Summary", "Key points", "Pages written from it"],
};

const RELATION_MEANING: Record<RelationType, string> = {
  supports: "this page is evidence for the target",
  contradicts: "this page disagrees with the target (recall shows both until a user resolves it)",
  qualifies: "this page narrows the target: both stand",
  supersedes: "this page replaces the target, which becomes historical",
  applies_under: "this page holds under `scope` (required), the target otherwise",
  derived_from: "this page was written from the target",
  related_to: "a loose association; never admits a page into recall by itself",
};

const LINT_MEANING: Record<LintCheck, string> = {
  index: "the search index is missing, stale or broken (repair: `llm-wiki reindex`)",
  merge:
    "a page git could not merge (conflict markers): recall shows both versions until a person resolves it and commits",
  malformed: "a page whose front matter cannot be read, or lacks `type` or `title`",
  secret: "a page that holds something shaped like a credential",
  link: "a link to no page, or to more than one",
  relation: "a `relations:` entry that is malformed, unknown, or not linked in the body",
  gap: "a missing page that several pages link to (`--fix` creates a stub, never overwriting)",
  duplicate: "two pages with the same title or alias",
  contradiction: "a `> Contradiction:` marker or `contradicts` relation with no resolution",
  stale: "a page past its `stale_after`, or naming code that changed since its date",
  orphan: "a page nothing links to",
};

/** `WIKI_SCHEMA.md`: layout, ownership, page types, front matter, citing, relations, lint. */
export function wikiSchema(): string {
  const types = TEMPLATE_TYPES.map(
    (t) => `| ${t} | \`wiki/${folderOfType(t)}/\` | ${PURPOSE[t]} |`,
  );
  return [
    "# Wiki schema",
    "",
    "The operating manual of this llm-wiki vault, for the people and agents who write it.",
    "Written once by `llm-wiki init` / `wiki_bootstrap` and then yours: edit it to suit the",
    "vault; the tools never overwrite it.",
    "",
    "## Who owns what",
    "",
    "| Path | Owner | Rule |",
    "|---|---|---|",
    "| `wiki/**` | you and your agents | the knowledge: edit freely, one page per thing |",
    "| `raw/**` | the capture tools | immutable once captured; add sources with `wiki_capture_source` |",
    "| `meta/events.jsonl`, `meta/events/` | the tools | append-only activity record (in git, one file per clone and commit); back it up, nothing can rebuild it |",
    "| `meta/*` (all else) | the tools | derived views and caches; deleting them loses nothing |",
    "| `wiki/index.md`, `wiki/log.md` | the tools, in OKF mode | generated views, never pages |",
    "| `WIKI_SCHEMA.md`, `templates/` | you | this manual and the page templates |",
    "",
    "`meta/index.md` (catalog), `meta/log.md` (activity) and `meta/lint-report.md` are",
    "regenerated by `llm-wiki rebuild-meta` (`wiki_rebuild_meta`). A file named `index.md` or",
    "`log.md` anywhere under `wiki/` is never read as a page.",
    "",
    "## Page types",
    "",
    "| Type | Folder | One page per |",
    "|---|---|---|",
    ...types,
    "",
    "Observations, retros, decisions and notes are evidence pages under `wiki/sources/`,",
    "written by `wiki_observe` and `wiki_retro`. A page's id is its path under `wiki/`",
    "without `.md` (`concepts/retry-budget`). Templates for each type are in",
    `\`${TEMPLATES_DIR}/\`.`,
    "",
    "## Front matter",
    "",
    "```yaml",
    "type: concept            # required: one of the types above",
    "title: Retry budget      # required: one line of visible text",
    "description: One sentence a search result can show",
    "aliases: [retry quota]   # other names a query or link may use",
    "tags: [reliability]",
    "sources: [SRC-2026-01-15-001]   # what the page rests on: source ids or page ids",
    `status: draft            # ${PAGE_STATUSES.join(", ")}`,
    "created: 2026-01-15",
    "updated: 2026-01-20",
    "verified: 2026-01-20     # last checked against the code (wiki_verify_page)",
    "stale_after: 2026-07-01  # lint reports the page as stale after this day",
    "author: Ada Lovelace     # written by the tools: the teammate (git author) and",
    "agent: claude-code       #   the agent that created the page",
    "relations:",
    "  - target: concepts/backoff",
    "    type: qualifies",
    "```",
    "",
    "Title, description, aliases and tags are single lines: no control characters, line",
    "breaks or bidirectional controls. Unknown fields are kept as written.",
    "",
    "## Links and relations",
    "",
    "Link pages by id: `[[concepts/backoff]]` or `[[concepts/backoff|label]]`; a Markdown",
    "link `[label](/concepts/backoff.md)` works too. A link to a page that does not exist",
    "yet marks a knowledge gap.",
    "",
    "A relation in `relations:` counts only when the body also links its target:",
    "",
    ...RELATION_TYPES.map((r) => `- \`${r}\`: ${RELATION_MEANING[r]}`),
    "",
    "## Citing",
    "",
    "Every claim rests on something. Put the source's id (`SRC-YYYY-MM-DD-NNN`) or the page",
    "ids it comes from in `sources:`, and link the source page in the text where the claim",
    "is made (`[[sources/src-2026-01-15-001]]`). When sources disagree, keep both and add",
    "`> Contradiction: … [[other/page]]`; a user's choice is recorded with",
    "`wiki_resolve_conflict`, never by editing the losing page.",
    "",
    "## Lint",
    "",
    "`llm-wiki lint` (`wiki_lint`) reports, in this order:",
    "",
    ...LINT_CHECKS.map((c) => `- ${c}: ${LINT_MEANING[c]}`),
    "",
    "## Secrets",
    "",
    "Every write redacts credentials before they reach a page, a packet or the event log.",
    "Do not paste secrets or private machine paths into pages or event details anyway.",
    "",
  ].join("\n");
}

/** The template for pages of `type`: front matter to fill in and the usual sections. */
export function pageTemplate(type: TemplateType): string {
  const sections = SECTIONS[type].flatMap((s) => [`## ${s}`, "", "", ""]);
  return [
    "---",
    `type: ${type}`,
    "title: ",
    "description: ",
    "aliases: []",
    "tags: []",
    "sources: []",
    "status: draft",
    "created: YYYY-MM-DD",
    "updated: YYYY-MM-DD",
    "relations: []",
    "---",
    "",
    `<!-- A ${type} page: ${PURPOSE[type]}. Link related pages by id, cite sources (see WIKI_SCHEMA.md). -->`,
    "",
    ...sections,
  ]
    .join("\n")
    .replace(/\n+$/, "\n");
}
