/**
 * The skeleton source page a capture creates under `wiki/sources/`: type
 * `source`, status `skeleton`, pointing at its packet, with the first lines
 * of the captured text so it is findable before anyone summarises it.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { ensurePage } from "../writing/ensure-page.ts";
import { SOURCE_FILE, type SourceManifest } from "./packet.ts";

const EXCERPT_LINES = 12;
const EXCERPT_CHARS = 800;
const LINE_CHARS = 200;

/** The first non-empty lines of `markdown`, quoted, with links defused. */
export function excerpt(markdown: string): string {
  const lines: string[] = [];
  let chars = 0;
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.trim() === "") continue;
    const cut = line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line;
    if (lines.length >= EXCERPT_LINES || chars + cut.length > EXCERPT_CHARS) break;
    lines.push(cut);
    chars += cut.length;
  }
  // Links in a quote of someone else's text are not this vault's links: a
  // `[[x]]` or `[a](b.md)` there would show up as a missing page.
  return lines
    .map((line) => `> ${line.replaceAll("[[", "[\\[").replaceAll("](", "]\\(")}`)
    .join("\n");
}

function body(manifest: SourceManifest, markdown: string): string {
  const from =
    manifest.kind === "text"
      ? "pasted text"
      : manifest.kind === "url"
        ? `<${manifest.origin ?? ""}>`
        : `\`${manifest.origin ?? ""}\``;
  const quoted = excerpt(markdown);
  return [
    `# ${manifest.title}`,
    "",
    `Captured ${manifest.captured} from ${from} as \`${manifest.id}\`; the full text is in \`raw/sources/${manifest.id}/${SOURCE_FILE}\`.`,
    "",
    "## First lines",
    "",
    quoted === "" ? "_(empty)_" : quoted,
    "",
    "## Summary",
    "",
    "_Skeleton: read the packet, then replace this with a summary, the key points and links to the pages it supports._",
    "",
  ].join("\n");
}

/** The page created for a packet, or why none was. */
export interface SourcePageResult {
  /** Page id, e.g. `sources/rag-survey`. */
  id?: string;
  diagnostics: Diagnostic[];
}

/**
 * Creates the skeleton page for `manifest`. A page with the same title may
 * exist (the same article captured twice): then the id joins the title, so
 * each packet gets its own page and no page is overwritten.
 */
export function createSourcePage(
  vault: VaultPaths,
  manifest: SourceManifest,
  markdown: string,
  now: Date,
): SourcePageResult {
  const page = {
    type: "source",
    status: "skeleton",
    content: body(manifest, markdown),
    aliases: [manifest.id],
    sources: [`raw/sources/${manifest.id}`],
    extra: {
      source_id: manifest.id,
      raw_path: `raw/sources/${manifest.id}/${SOURCE_FILE}`,
      format: manifest.format,
      captured: manifest.captured,
      ...(manifest.kind === "url" ? { url: manifest.origin } : {}),
      // A document's own author and day: `published` is what dates a source (page.ts, page-dates.ts).
      ...(manifest.document?.author ? { author: manifest.document.author } : {}),
      ...(manifest.document?.created ? { published: manifest.document.created } : {}),
      ...(manifest.document?.pages ? { pages: manifest.document.pages } : {}),
    },
  };
  const first = ensurePage(vault, { ...page, title: manifest.title }, now);
  if (first.created) return { id: first.id, diagnostics: first.diagnostics };
  const second = ensurePage(vault, { ...page, title: `${manifest.title} (${manifest.id})` }, now);
  return second.created
    ? { id: second.id, diagnostics: second.diagnostics }
    : { diagnostics: second.diagnostics };
}
