/**
 * The text of `meta/backlinks.json` (the file `@zosmaai/pi-llm-wiki` reads):
 * byte for byte `JSON.stringify` of the backlinks object, keys sorted,
 * indented by two. At 100k pages it is ~11 MB, rewritten whenever a resolved
 * link moves; each list's text is made once and reused while the list is the
 * same (the link graph replaces a list that changes, never edits it), so a
 * change serialises its own lists, not every page's.
 */

/** A list's member of the object (`  "id": [...]`), with the id it was made for. */
const listText = new WeakMap<readonly string[], { id: string; text: string }>();

/** Property keys an object orders first, ascending by number (array indices). */
function isIndex(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;
}

function memberText(id: string, list: readonly string[]): string {
  const kept = listText.get(list);
  if (kept?.id === id) return kept.text;
  const items =
    list.length === 0
      ? "[]"
      : `[\n${list.map((from) => `    ${JSON.stringify(from)}`).join(",\n")}\n  ]`;
  const text = `  ${JSON.stringify(id)}: ${items}`;
  listText.set(list, { id, text });
  return text;
}

/** `${JSON.stringify(Object.fromEntries(sorted backlinks), null, 2)}\n`, without re-serialising unchanged lists. */
export function backlinksText(backlinks: ReadonlyMap<string, readonly string[]>): string {
  const sorted = [...backlinks.keys()].sort();
  // As an object orders them: array-index keys first, by number, then the rest as inserted.
  const indices = sorted.filter(isIndex).sort((a, b) => Number(a) - Number(b));
  const ids = indices.length > 0 ? [...indices, ...sorted.filter((k) => !isIndex(k))] : sorted;
  if (ids.length === 0) return "{}\n";
  const parts = ids.map((id) => memberText(id, backlinks.get(id) ?? []));
  return `{\n${parts.join(",\n")}\n}\n`;
}
