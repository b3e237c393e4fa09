/**
 * What the ingest sub-agent reads: a system prompt (its rules, then the page
 * schema the service hands out with every part) and, per part, one user
 * message holding that part's text. The schema was written for an agent with
 * edit tools; the rules say where this pass differs, so the two never
 * disagree about what the sub-agent can do.
 */
import { sourceName } from "../lib/render-text.ts";
import type { IngestPart } from "../lib/writing/ingest.ts";
import type { SourceRef } from "../lib/writing/ingest-sources.ts";

/** Names of the sub-agent's tools; the same as the main tools, so the schema's wording applies. */
export const WRITE_TOOL = "wiki_ensure_page";
export const SEARCH_TOOL = "wiki_search";

/** Bounds of one part's run. */
export interface PartLimits {
  /** Model requests per part; a run still calling tools at the last one is stopped. */
  maxTurns: number;
  /** Page-writing calls per part; further calls are refused. */
  maxWrites: number;
}

/** A page the pass created or found taken, as the next parts' prompts list it. */
export interface KnownPage {
  id: string;
  title: string;
}

function sourceLink(source: SourceRef): string {
  return source.page ? `[[${source.page}]]` : "the source page";
}

/** The sub-agent's system prompt: its rules, then the page schema. */
export function subagentSystemPrompt(
  source: SourceRef,
  schema: string,
  limits: PartLimits,
): string {
  const cite = sourceName(source);
  return [
    "You turn one captured source into llm-wiki pages, one part of its text at a time. You run inside the wiki_ingest tool of another agent: nobody reads your replies except as a short note; the pages you write are the result.",
    "",
    "Rules of this pass:",
    `- Tools: ${WRITE_TOOL} creates a page; ${SEARCH_TOOL} looks pages up by id, title, alias or tag. You have no other tool: you cannot edit or delete a page, and you never touch .llm-wiki/raw/ or .llm-wiki/meta/.`,
    `- Cite the source on every page: ${cite} goes into the page's sources (the tool adds it) and the body links ${sourceLink(source)}.`,
    `- Never overwrite: when ${WRITE_TOOL} reports that a page with the title exists, do not retry under a near-identical title; link the existing page from the pages you write instead. To say this source contradicts, supersedes or supports that page, call ${WRITE_TOOL} with its title and only relations: they are added to it, its text kept.`,
    `- Relations: when a page you write contradicts an existing page, give relations [{type: "contradicts", target: "<page-id>"}] (not only a "> Contradiction:" line); supersedes when it replaces an older claim, supports when it is evidence for one, derived_from when drawn from another page.`,
    `- Link, do not duplicate: before writing a page about a subject, look it up with ${SEARCH_TOOL}; link what exists with [[page-id]].`,
    "- Do not invent facts: write only what the text says, in your own words. Where it is unclear, say so on the page or leave it out.",
    `- Stay within ${limits.maxWrites} pages and ${limits.maxTurns} model turns per part. A part that teaches nothing durable needs no page.`,
    `- Where the schema below says to edit a page or to replace the source page's summary, skip it: the calling agent does that. End every part with a reply of at most three sentences: what the part covers and which pages you wrote.`,
    "",
    schema,
  ].join("\n");
}

/** The user message of one part: where it sits, what earlier parts wrote, then its text between tags. */
export function partMessage(source: SourceRef, part: IngestPart, known: KnownPage[]): string {
  const name = sourceName(source);
  const earlier =
    known.length === 0 ? "none yet" : known.map((p) => `[[${p.id}]] "${p.title}"`).join(", ");
  return [
    `Source ${name} "${source.title}"${source.page ? ` (source page [[${source.page}]])` : ""}, part ${part.index} of ${part.count} (characters ${part.total === 0 ? 0 : part.start + 1}–${part.end} of ${part.total}).`,
    `Pages from earlier parts (link them, do not write them again): ${earlier}.`,
    `Write the pages this part supports with ${WRITE_TOOL}, then reply with your short note.`,
    "",
    `<source-text source="${name}" part="${part.index}" of="${part.count}">`,
    part.text,
    "</source-text>",
  ].join("\n");
}
