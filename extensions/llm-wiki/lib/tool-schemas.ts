/**
 * Input schemas and descriptions of the operations every host exposes, shared
 * by the Pi tools and the MCP tools so both validate and document the same
 * parameters. Hosts validate with TypeBox's `Value` and call the service.
 */
import { type Static, Type } from "typebox";

const Selector = Type.Union(
  [Type.Literal("active"), Type.Literal("project"), Type.Literal("personal"), Type.Literal("all")],
  { description: "Which vault: active (project, else personal), project, personal or all" },
);

const Mode = Type.Union(
  [
    Type.Literal("lexical"),
    Type.Literal("hybrid"),
    Type.Literal("adaptive"),
    Type.Literal("quality"),
  ],
  { description: "Retrieval mode; default from settings (adaptive)" },
);

export const RecallParams = Type.Object(
  {
    query: Type.String({
      description: "What to recall, in words or identifiers",
      maxLength: 20_000,
    }),
    max_results: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10, description: "Default 5, at most 10" }),
    ),
    mode: Type.Optional(Mode),
  },
  { additionalProperties: false },
);

export const SearchParams = Type.Object(
  {
    query: Type.String({
      description: "A page id, title, alias or tag",
      minLength: 1,
      maxLength: 2_000,
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    vault: Type.Optional(Selector),
  },
  { additionalProperties: false },
);

export const StatusParams = Type.Object(
  { vault: Type.Optional(Selector) },
  { additionalProperties: false },
);

export const ReindexParams = Type.Object(
  {
    scope: Type.Optional(
      Type.Union([Type.Literal("changed"), Type.Literal("all")], {
        description: "changed (default) or all (full rebuild)",
      }),
    ),
    components: Type.Optional(
      Type.Array(Type.Union([Type.Literal("lexical"), Type.Literal("vectors")]), {
        description: "Default [lexical]",
      }),
    ),
    force: Type.Optional(Type.Boolean({ description: "Rebuild even if nothing changed" })),
    vault: Type.Optional(Selector),
  },
  { additionalProperties: false },
);

export const BootstrapParams = Type.Object(
  {
    topic: Type.Optional(Type.String({ description: "What this vault is about" })),
    name: Type.Optional(Type.String()),
    mode: Type.Optional(
      Type.String({ description: "project (default), personal, research or team" }),
    ),
  },
  { additionalProperties: false },
);

export const EnsurePageParams = Type.Object(
  {
    type: Type.String({
      description:
        "entity, concept, synthesis, analysis, requirement, skill, case, or an evidence type (source, observation, …)",
    }),
    title: Type.String({ minLength: 1, maxLength: 300 }),
    content: Type.Optional(
      Type.String({ description: "Markdown body; frontmatter at its top is merged" }),
    ),
    description: Type.Optional(Type.String()),
    tags: Type.Optional(Type.Array(Type.String())),
    aliases: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

export type RecallParamsT = Static<typeof RecallParams>;
export type SearchParamsT = Static<typeof SearchParams>;
export type StatusParamsT = Static<typeof StatusParams>;
export type ReindexParamsT = Static<typeof ReindexParams>;
export type BootstrapParamsT = Static<typeof BootstrapParams>;
export type EnsurePageParamsT = Static<typeof EnsurePageParams>;

/** Tool names and descriptions, identical in Pi and MCP. */
export const TOOL_DESCRIPTIONS = {
  wiki_recall:
    "Recall pages from the project's llm-wiki (and the personal vault) relevant to a question or task. Returns ranked pages with excerpts; an empty answer means nothing reliable is stored.",
  wiki_search:
    "Exact lookup of llm-wiki pages by id, title, alias or tag. Instant; use wiki_recall for questions.",
  wiki_status:
    "Vault status: pages by type and role, link health, index state, retrieval mode and models.",
  wiki_reindex:
    "Bring the llm-wiki search index up to date (changed pages, or a full rebuild; optionally vectors).",
  wiki_reindex_embeddings:
    "Deprecated: use wiki_reindex with components [vectors]. Delegates to wiki_reindex.",
  wiki_bootstrap: "Create an llm-wiki vault in the current project (idempotent; never overwrites).",
  wiki_ensure_page: "Create a wiki page unless one with the same title exists; never overwrites.",
} as const;

export type ToolName = keyof typeof TOOL_DESCRIPTIONS;

/** First line of every `wiki_reindex_embeddings` answer, in every host. */
export const DEPRECATED_EMBEDDINGS =
  'wiki_reindex_embeddings is deprecated; use wiki_reindex with components ["lexical", "vectors"].';
