/**
 * Folders whose name says what kind of answer their pages are, in a vault
 * organised by folder rather than by front matter: `decisions/` holds
 * decision records, `postmortems/` incident reviews, `runbooks/` procedures.
 * The parser reads an untyped page's type from them (vault/page.ts) and
 * recall its kind, typed or not (retrieval/page-kind.ts).
 */

/** The kinds of answer a folder's name can say. */
export type FolderKind = "decision" | "incident" | "howto";

const FOLDERS: ReadonlyArray<readonly [FolderKind, readonly string[]]> = [
  ["decision", ["decisions", "adr", "adrs"]],
  ["incident", ["incidents", "postmortems", "post-mortems", "outages"]],
  ["howto", ["runbooks", "playbooks", "howtos", "how-to", "guides", "procedures"]],
];

const BY_FOLDER: ReadonlyMap<string, FolderKind> = new Map(
  FOLDERS.flatMap(([kind, folders]) => folders.map((f): [string, FolderKind] => [f, kind])),
);

/** The kind of answer the first folder of page id `id` says, if any. */
export function folderKind(id: string): FolderKind | undefined {
  const slash = id.indexOf("/");
  return slash < 0 ? undefined : BY_FOLDER.get(id.slice(0, slash).toLowerCase());
}
