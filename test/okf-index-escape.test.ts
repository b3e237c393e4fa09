/**
 * The `index.md` files an OKF export generates (okf/okf-bundle-index.ts)
 * show page titles, descriptions and folder names as text, never as markup:
 * no HTML tag or entity of a page reaches a Markdown renderer that passes
 * HTML through (`<script>`, `<img onerror>`), and no link, image, emphasis
 * or code span forms from a page's words. Hostile strings are drawn afresh
 * each run; the seed is in every failure message.
 */
import { describe, expect, it } from "vitest";
import { bundleIndexes } from "../extensions/llm-wiki/lib/okf/okf-bundle-index.ts";
import { mulberry32 } from "../scripts/test-models/mulberry32.ts";

const SEED = Math.floor(Math.random() * 2 ** 31);
const at = `seed ${SEED}`;
const random = mulberry32(SEED);
const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
const word = () =>
  Array.from({ length: int(3, 8) }, () => String.fromCharCode(int(0x61, 0x7a))).join("");

/** One piece of markup a page might smuggle into an index. */
function markup(): string {
  return pick([
    () => `<script>alert(${int(0, 99)})</script>`,
    () => `<img src=x onerror=alert(${int(0, 99)})>`,
    () => `<a href="javascript:alert(1)">${word()}</a>`,
    () => `&lt;script&gt;${word()}&lt;/script&gt;`,
    () => `&#60;img src=x onerror=${word()}&#62;`,
    () => `[${word()}](javascript:alert(${int(0, 9)}))`,
    () => `![${word()}](https://${word()}.example/x.png)`,
    () => `](${word()}.md) [${word()}`,
    () => `\`${word()}\``,
    () => `*${word()}* _${word()}_ ~~${word()}~~`,
    () => `<${word()}@${word()}.example>`,
    () => `\\[${word()}\\]`,
    () => `| ${word()} |`,
  ])();
}

const hostile = () => `${word()} ${markup()} ${word()} ${markup()}`;

/** Markdown's inline punctuation and HTML's specials, which must never appear unescaped. */
const UNESCAPED = /(?<!\\)(?:\\\\)*[[\]()`*_!|~<>]/;

describe("OKF index files", () => {
  it("show titles, descriptions and folder names as text: HTML escaped, no Markdown of their own", () => {
    for (let round = 0; round < 20; round++) {
      const folder = `${word()}(${word()})`;
      const concepts = Array.from({ length: int(2, 5) }, (_, i) => ({
        rel: `${folder}/${word()}-${i}).md`,
        title: hostile(),
        ...(random() < 0.8 ? { description: hostile() } : {}),
      }));
      const indexes = bundleIndexes(hostile(), concepts);
      for (const [path, text] of indexes) {
        const lines = text.split("\n");
        // No raw tag or character reference from a page, anywhere.
        expect(text, `${path} (${at})`).not.toMatch(/<[a-z/!]/i);
        expect(text, `${path} (${at})`).not.toMatch(/&(?!amp;|lt;|gt;|quot;)#?\w+;/);
        for (const line of lines) {
          const heading = /^# (.*)$/.exec(line);
          if (heading) {
            expect(heading[1], `${JSON.stringify(line)} (${at})`).not.toMatch(UNESCAPED);
            continue;
          }
          if (!line.startsWith("- ")) continue;
          // Our own link, and nothing else that Markdown would read as markup.
          const item = /^- \[(.*?)(?<!\\)\]\(([^()\s<>]+)\)(?: — (.*))?$/.exec(line);
          expect(item, `${JSON.stringify(line)} (${at})`).not.toBeNull();
          const [, label, target, description] = item as RegExpExecArray;
          expect(label, `${JSON.stringify(line)} (${at})`).not.toMatch(UNESCAPED);
          expect(description ?? "", `${JSON.stringify(line)} (${at})`).not.toMatch(UNESCAPED);
          expect(target, at).not.toMatch(/^[a-z]+:/i);
        }
      }
      // Every concept is listed, under its folder's index, pointing at its file.
      const own = indexes.get(`${folder}/index.md`) ?? "";
      for (const c of concepts) {
        const file = encodeURIComponent(c.rel.split("/").pop() ?? "")
          .replace(/\(/g, "%28")
          .replace(/\)/g, "%29");
        expect(own, at).toContain(`](${file})`);
      }
    }
  });

  it("keeps a plain title readable and a title's HTML visible as text", () => {
    const title = `Orders <script>alert(1)</script> & "more"`;
    const index = bundleIndexes("Root", [{ rel: "datasets/orders.md", title }]).get(
      "datasets/index.md",
    );
    expect(index).toContain(
      "- [Orders &lt;script&gt;alert\\(1\\)&lt;/script&gt; &amp; &quot;more&quot;](orders.md)",
    );
    expect(bundleIndexes("Root", [{ rel: "a/b.md", title: "Plain title" }]).get("a/index.md")).toBe(
      "# a\n\n## Concepts\n\n- [Plain title](b.md)\n",
    );
  });
});
