/**
 * `ensurePage`: creates the page for a type and a title unless a page with
 * that title (compared by `nameKey`) exists; never overwrites. Its input is
 * checked by ensure-page-input.ts, then the page goes down the shared write
 * path (write-page-pipeline.ts). Typed `relations` and `sources` go into
 * the new page's front matter (with a body link per relation target), or
 * are added to the existing page's (page-relations-merge.ts). Given the
 * vault's pages, the result also warns of links to no page and of a title
 * that nearly repeats another page's (write-notices.ts).
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { isOlderPacket } from "../trajectories/older-packets.ts";
import { recordEvents } from "../vault/events.ts";
import { LinkResolver } from "../vault/links.ts";
import { nameKey } from "../vault/name-key.ts";
import { asSources } from "../vault/page.ts";
import { folderOfType } from "../vault/page-folders.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactionsField, redactValue } from "../vault/redaction.ts";
import { parseRelations, type Relation } from "../vault/relations.ts";
import { slugify } from "../vault/slug.ts";
import { type EnsurePageInput, validateEnsurePage } from "./ensure-page-input.ts";
import {
  checkRelationsInput,
  checkSourcesInput,
  relationEntry,
  relationKey,
} from "./page-relations-input.ts";
import { mergeIntoPage } from "./page-relations-merge.ts";
import { bodyLinker, bodyWithRelationLinks } from "./relation-links.ts";
import { toolRelationsForExisting, toolRelationsForNew } from "./tool-supersession.ts";
import {
  type KnownPages,
  linkNotices,
  nearDuplicateNotices,
  sourceNotices,
} from "./write-notices.ts";
import { writePage } from "./write-page-pipeline.ts";

export type { EnsurePageInput } from "./ensure-page-input.ts";

export interface EnsurePageResult {
  id: string;
  path: string;
  created: boolean;
  /** True when relations or sources were added to the existing page's front matter. */
  updated?: boolean;
  /** The relations given: written (`added`) or already on the page (`present`); absent when none were given. */
  relations?: { added: Relation[]; present: Relation[] };
  /** The sources given, likewise. */
  sources?: { added: string[]; present: string[] };
  /** Relation targets a `[[link]]` line was appended to the body for. */
  linksAdded?: string[];
  /** Secrets redacted before writing, by kind; absent when none. */
  redactions?: RedactionCounts;
  diagnostics: Diagnostic[];
}

const MAX_SLUG_ATTEMPTS = 50;

/**
 * Relation targets as page ids: a target that resolves to one page of
 * `pages` (by slug or a unique basename, as links resolve) becomes that
 * page's id, so the relation counts; any other stays as written.
 */
function canonicalTargets(relations: Relation[], pages: KnownPages | undefined): Relation[] {
  if (!pages) return relations;
  const resolver = new LinkResolver(pages.keys());
  const seen = new Set<string>();
  const out: Relation[] = [];
  for (const r of relations) {
    const resolved = resolver.resolve(r.target);
    const relation = resolved.status === "resolved" ? { ...r, target: resolved.id } : r;
    if (seen.has(relationKey(relation))) continue;
    seen.add(relationKey(relation));
    out.push(relation);
  }
  return out;
}

/**
 * Creates the page for `input`, or adds its relations and sources to the
 * page of that title. `vaultPages` (the vault's, from its registry) enables the
 * link and near-duplicate notices and the resolution of relation targets.
 * Throws `WikiError`: `page_invalid_input` for an unknown type or an empty
 * title, `page_invalid_relation` / `invalid_input` for a bad relation or
 * source, `page_no_free_slug` when every slug tried is taken by another page.
 */
export function ensurePage(
  vault: VaultPaths,
  input: EnsurePageInput,
  now: Date = new Date(),
  vaultPages?: () => KnownPages,
): EnsurePageResult {
  const checked = input.relations !== undefined ? checkRelationsInput(input.relations) : undefined;
  const sources = input.sources !== undefined ? checkSourcesInput(input.sources) : undefined;
  const page = validateEnsurePage({ ...input, ...(sources ? { sources } : {}) }, now);
  // Read only once the input passed: a refused write leaves the vault (and its caches) as it was.
  const pages = vaultPages?.();
  // Redacted as values before they become body links: in a sentence a secret's
  // shape is read more cautiously than as a front-matter value, and the link
  // must name what the front matter holds.
  const given = checked ? redactValue(canonicalTargets(checked, pages), page.redacted) : undefined;
  const folder = folderOfType(page.type);
  // The id the page gets if its first slug is free; only used to resolve its own links.
  const selfId = `${folder}/${slugify(page.title)}`;
  const known = [...(pages?.keys() ?? [])];
  let body = page.body;
  let linksAdded: string[] = [];
  // Should the page be created: a tool's `supersedes` on a page it does not write as a draft is a competing claim.
  const selfPath = `wiki/${selfId}.md`;
  const pastedJudged = toolRelationsForNew(
    selfId,
    selfPath,
    page.data.status,
    parseRelations(page.data.relations, "content").relations,
  );
  const givenJudged = toolRelationsForNew(selfId, selfPath, page.data.status, given ?? []);
  if (pastedJudged.diagnostics.length > 0)
    page.data.relations = pastedJudged.relations.map(relationEntry);
  const newNotes = [...pastedJudged.diagnostics, ...givenJudged.diagnostics];
  if (given && given.length > 0) {
    // Relations pasted in the content's front matter come first, the given ones after them.
    const pasted = pastedJudged.relations;
    const all = [...pasted, ...givenJudged.relations].filter(
      (r, i, list) => list.findIndex((o) => relationKey(o) === relationKey(r)) === i,
    );
    page.data.relations = all.map(relationEntry);
    const targets = all.map((r) => r.target);
    const linked = bodyWithRelationLinks(body, all, bodyLinker(selfId, known, targets));
    body = linked.body;
    linksAdded = linked.added;
  }
  const written = writePage(
    vault,
    {
      folder,
      base: slugify(page.title),
      data: page.data,
      body,
      maxAttempts: MAX_SLUG_ATTEMPTS,
      isSame: (existing) => nameKey(existing.title) === nameKey(page.title),
      redacted: page.redacted,
    },
    now,
  );
  const diagnostics = [...page.diagnostics, ...written.diagnostics];
  // Echoed as written: the page holds them redacted, so the answer does too.
  const shownSources = sources ? redactValue(sources, {}) : undefined;
  const echo = {
    ...(given
      ? { relations: { added: written.created ? givenJudged.relations : [], present: [] } }
      : {}),
    ...(shownSources
      ? { sources: { added: written.created ? shownSources : [], present: [] } }
      : {}),
  };
  if (written.created) {
    diagnostics.push(...newNotes);
    if (pages) {
      diagnostics.push(
        ...linkNotices(written.id, written.path, redactValue(body, {}), given ?? [], pages, (t) =>
          isOlderPacket(vault, t),
        ),
        ...nearDuplicateNotices(written.id, written.path, page.title, pages),
        ...sourceNotices(vault, written.path, redactValue(asSources(page.data.sources), {}), pages),
      );
    }
    return {
      ...written,
      ...echo,
      ...(given ? { linksAdded: redactValue(linksAdded, {}) } : {}),
      diagnostics,
    };
  }
  if ((given?.length ?? 0) === 0 && (sources?.length ?? 0) === 0) {
    diagnostics.push(
      diagnostic(
        "page_exists",
        "info",
        `a page titled "${page.title}" already exists at ${written.path}; left unchanged`,
        { path: written.path },
      ),
    );
    return { ...written, ...echo, diagnostics };
  }
  // This edit bypasses the write pipeline's redact stage: what it adds is redacted here.
  // The relations were redacted on the way in (page.redacted counts them); sources are here.
  const counts: RedactionCounts = { ...page.redacted };
  // A tool's `supersedes` cannot borrow the standing of a reviewed page it is added to.
  const claims = toolRelationsForExisting(vault, written.id, written.path, given ?? []);
  diagnostics.push(...claims.diagnostics);
  const merged = mergeIntoPage(
    vault,
    written.path,
    redactValue(claims.relations, counts),
    redactValue(sources ?? [], counts),
    bodyLinker(
      written.id,
      known,
      claims.relations.map((r) => r.target),
    ),
  );
  diagnostics.push(...merged.diagnostics);
  if (!merged.updated) {
    diagnostics.push(
      diagnostic(
        "page_exists",
        "info",
        `a page titled "${page.title}" already exists at ${written.path}; ${merged.diagnostics.length > 0 ? "nothing added" : "its relations and sources were all present already"}`,
        { path: written.path },
      ),
    );
  }
  if (pages && merged.relations.added.length > 0) {
    diagnostics.push(...linkNotices(written.id, written.path, "", merged.relations.added, pages));
  }
  if (pages && merged.sources.added.length > 0) {
    diagnostics.push(...sourceNotices(vault, written.path, merged.sources.added, pages));
  }
  if (merged.updated) {
    // The log records every change the tools make to a page, not only its creation.
    const logged = recordEvents(
      vault,
      [
        {
          kind: "page_updated",
          id: written.id,
          relations_added: merged.relations.added.length,
          sources_added: merged.sources.added.length,
          ...redactionsField(counts),
        },
      ],
      now,
    );
    diagnostics.push(...logged.diagnostics);
  }
  return {
    ...written,
    ...(merged.updated ? redactionsField(counts) : {}),
    updated: merged.updated,
    ...(given ? { relations: merged.relations } : {}),
    ...(sources ? { sources: merged.sources } : {}),
    ...(given ? { linksAdded: merged.linksAdded } : {}),
    diagnostics,
  };
}
