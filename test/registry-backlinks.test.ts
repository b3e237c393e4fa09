/**
 * `meta/backlinks.json` is read by `@zosmaai/pi-llm-wiki`: its text stays
 * byte for byte what `JSON.stringify` of the sorted backlinks object gives,
 * though each list is serialised once and reused while it is the same list.
 * Random ids (array-index-like, quoted, non-ASCII, `__proto__`), fresh seed
 * each run, printed on failure.
 */
import { describe, expect, it } from "vitest";
import { backlinksText } from "../extensions/llm-wiki/lib/vault/registry-backlinks.ts";
import { CorpusRandom } from "./helpers/corpus-random.ts";

const ODD_IDS = ["0", "2", "10", "01", "4294967294", "4294967295", "-1", "1.5", "__proto__"];

/** The text as it was always made: the reference the shortcut must equal. */
function reference(backlinks: ReadonlyMap<string, readonly string[]>): string {
  const sorted = [...backlinks.keys()].sort().map((id) => [id, backlinks.get(id)]);
  return `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`;
}

function randomId(r: CorpusRandom): string {
  const roll = r.int(6);
  if (roll === 0) return r.pick(ODD_IDS);
  if (roll === 1) return `notes/${r.chars('ab"\\é日\u0001 /', r.between(1, 6))}`;
  if (roll === 2) return String(r.int(50));
  return `${r.pick(["concepts", "sources"])}/${r.chars("abcxyz-", r.between(1, 8))}`;
}

describe("meta/backlinks.json text", () => {
  it("is JSON.stringify's text for random backlinks, before and after lists are replaced", () => {
    const seed = Number(process.env.BACKLINKS_SEED) || Math.floor(Math.random() * 2 ** 31);
    const note = `seed ${seed} (BACKLINKS_SEED=${seed} replays this run)`;
    const r = new CorpusRandom(seed);
    const backlinks = new Map<string, string[]>();
    expect(backlinksText(backlinks), note).toBe(reference(backlinks));
    for (let i = 0; i < 60; i += 1) {
      const list = Array.from({ length: r.between(0, 4) }, () => randomId(r)).sort();
      backlinks.set(randomId(r), list);
    }
    expect(backlinksText(backlinks), note).toBe(reference(backlinks));
    // The link graph replaces a changed list: the text follows the new one.
    for (let i = 0; i < 20; i += 1) {
      const ids = [...backlinks.keys()];
      const id = r.pick(ids);
      if (r.int(3) === 0) backlinks.delete(id);
      else backlinks.set(id, [...(backlinks.get(id) ?? []), randomId(r)].sort());
      expect(backlinksText(backlinks), note).toBe(reference(backlinks));
    }
  });
});
