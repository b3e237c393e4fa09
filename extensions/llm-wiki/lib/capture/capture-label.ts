/**
 * Stage label: the words that name a source in its manifest, page and
 * event — its title (the caller's, else the document's own, the file name,
 * the URL or the first line) and its origin — each redacted, since a URL's
 * query may carry a token (`?access_token=…`) and a title may be pasted.
 */
import { redactSecrets } from "../safety/redact.ts";
import { neutraliseLine } from "../safety/text.ts";
import { sumCounts } from "../vault/redaction.ts";
import type { CapturedDocument, SourceLabels, SourceRead } from "./capture-types.ts";
import type { SourceKind } from "./packet.ts";

const MAX_TITLE_CHARS = 200;
/** The title of pasted text that gives none. */
const UNTITLED = "Pasted text";

/** One line of plain text, cut to the title length. */
function titleFrom(text: string): string {
  const line = neutraliseLine(text);
  return line.length > MAX_TITLE_CHARS ? `${line.slice(0, MAX_TITLE_CHARS - 1)}…` : line;
}

/** The file name, the URL or the first line of the text. */
function defaultTitle(kind: SourceKind, origin: string | null, text: string): string {
  if (kind === "file") return origin?.split(/[\\/]/).pop() ?? "";
  if (kind === "url") return origin ?? "";
  const first = text.split(/\r?\n/).find((line) => line.trim() !== "");
  return first ? first.replace(/^\s*#+\s*/, "") : "";
}

/** Names the source; `asked` is the caller's title (already checked to be one line). */
export function labelSource(
  asked: string | undefined,
  read: SourceRead,
  document: CapturedDocument,
): SourceLabels {
  const origin = read.origin === null ? undefined : redactSecrets(read.origin);
  const finalUrl = read.finalUrl === undefined ? undefined : redactSecrets(read.finalUrl);
  const wanted = asked?.trim();
  const titled = redactSecrets(
    titleFrom(
      wanted !== undefined && wanted !== ""
        ? wanted
        : (document.extraction.title ??
            defaultTitle(read.kind, origin?.text ?? null, document.originalText)),
    ),
  );
  return {
    title: titled.text === "" ? UNTITLED : titled.text,
    origin: origin?.text ?? null,
    ...(finalUrl ? { finalUrl: finalUrl.text } : {}),
    counts: sumCounts(origin?.counts ?? {}, finalUrl?.counts ?? {}, titled.counts),
  };
}
