import { describe, expect, it } from "vitest";
import { extractLinks, LinkResolver } from "../extensions/llm-wiki/lib/vault/links.ts";

const targets = (pageId: string, body: string): string[] =>
  extractLinks(pageId, body).map((l) => l.target);

describe("extractLinks: wiki links", () => {
  it("reads [[id]], [[id|label]] and [[id#heading]]", () => {
    const links = extractLinks(
      "concepts/rag",
      "See [[concepts/bm25]], [[entities/qmd|the QMD engine]] and [[concepts/rrf#Formula]].",
    );
    expect(links).toEqual([
      { target: "concepts/bm25", kind: "wiki" },
      { target: "entities/qmd", label: "the QMD engine", kind: "wiki" },
      { target: "concepts/rrf", kind: "wiki" },
    ]);
  });

  it("drops a trailing .md and surrounding spaces, and skips empty links", () => {
    expect(targets("a", "[[ concepts/bm25.md ]] [[ ]] [[|label]]")).toEqual(["concepts/bm25"]);
  });

  it("keeps the label of [[id#heading|label]]", () => {
    expect(extractLinks("a", "[[concepts/rrf#k|RRF]]")).toEqual([
      { target: "concepts/rrf", label: "RRF", kind: "wiki" },
    ]);
  });
});

describe("extractLinks: Markdown links", () => {
  it("reads a vault-absolute link to a .md file as the page id", () => {
    expect(extractLinks("concepts/rag", "[BM25](/concepts/bm25.md)")).toEqual([
      { target: "concepts/bm25", label: "BM25", kind: "markdown" },
    ]);
  });

  it("accepts a /wiki/ prefix on an absolute link", () => {
    expect(targets("concepts/rag", "[x](/wiki/entities/qmd.md)")).toEqual(["entities/qmd"]);
  });

  it("resolves relative links against the linking page's folder", () => {
    const body = "[same](bm25.md) [dot](./rrf.md) [up](../entities/qmd.md)";
    expect(targets("concepts/rag", body)).toEqual([
      "concepts/bm25",
      "concepts/rrf",
      "entities/qmd",
    ]);
  });

  it("drops an anchor, a title and URL escapes", () => {
    const body =
      '[a](/concepts/bm25.md#scoring) [b](</concepts/rrf.md>) [c](/concepts/my%20page.md "T")';
    expect(targets("x/y", body)).toEqual(["concepts/bm25", "concepts/rrf", "concepts/my page"]);
  });

  it("ignores links with a URL scheme and links to non-Markdown files", () => {
    const body =
      "[gh](https://example.com/README.md) [f](file:///tmp/a.md) [img](/assets/a.png) [s](/concepts/x.mdx)";
    expect(extractLinks("concepts/rag", body)).toEqual([]);
  });

  it("keeps a link whose percent sign is not a valid escape instead of throwing", () => {
    expect(targets("concepts/rag", "[p](100%.md) [[concepts/bm25]]")).toEqual([
      "concepts/bm25",
      "concepts/100%",
    ]);
  });
});

describe("extractLinks: code is not prose", () => {
  it("ignores links inside fenced code blocks (``` and ~~~)", () => {
    const body = [
      "[[concepts/real]]",
      "```md",
      "[[concepts/in-fence]] [x](/concepts/in-fence2.md)",
      "```",
      "~~~",
      "[[concepts/in-tilde]]",
      "~~~",
      "[[concepts/after]]",
    ].join("\n");
    expect(targets("a", body)).toEqual(["concepts/real", "concepts/after"]);
  });

  it("ignores links inside a fenced block indented under a list item", () => {
    const body =
      "- step one\n\n  ```sh\n  echo [[concepts/in-fence]]\n  ```\n- see [[concepts/real]]\n";
    expect(targets("a", body)).toEqual(["concepts/real"]);
  });

  it("ignores links inside inline code spans", () => {
    expect(targets("a", "write `[[concepts/example]]` to link, like [[concepts/real]]")).toEqual([
      "concepts/real",
    ]);
  });
});

describe("LinkResolver", () => {
  const ids = ["concepts/rag", "concepts/bm25", "entities/qmd", "entities/rag-tool", "sources/qmd"];
  const resolver = new LinkResolver(ids);

  it("resolves an exact id first", () => {
    expect(resolver.resolve("concepts/rag")).toEqual({ status: "resolved", id: "concepts/rag" });
  });

  it("prefers an exact id over a basename shared with another page", () => {
    expect(resolver.resolve("entities/qmd")).toEqual({ status: "resolved", id: "entities/qmd" });
    expect(resolver.resolve("sources/qmd")).toEqual({ status: "resolved", id: "sources/qmd" });
  });

  it("then the slug of the target, so a title-like link finds its page", () => {
    expect(resolver.resolve("Concepts/BM25")).toEqual({ status: "resolved", id: "concepts/bm25" });
    expect(resolver.resolve("entities/RAG Tool")).toEqual({
      status: "resolved",
      id: "entities/rag-tool",
    });
  });

  it("then a unique basename, with or without a folder", () => {
    expect(resolver.resolve("bm25")).toEqual({ status: "resolved", id: "concepts/bm25" });
    expect(resolver.resolve("RAG")).toEqual({ status: "resolved", id: "concepts/rag" });
    expect(resolver.resolve("old-folder/rag-tool")).toEqual({
      status: "resolved",
      id: "entities/rag-tool",
    });
  });

  it("reports a basename shared by several pages as ambiguous, candidates sorted", () => {
    expect(resolver.resolve("qmd")).toEqual({
      status: "ambiguous",
      candidates: ["entities/qmd", "sources/qmd"],
    });
  });

  it("reports a target that names no page as missing", () => {
    expect(resolver.resolve("concepts/nothing")).toEqual({ status: "missing" });
    expect(resolver.resolve("nothing")).toEqual({ status: "missing" });
  });

  it("never resolves a target that climbs out of wiki/", () => {
    expect(resolver.resolve("../concepts/rag")).toEqual({ status: "missing" });
    expect(resolver.resolve("concepts/../../rag")).toEqual({ status: "missing" });
    expect(targets("concepts/rag", "[x](../../outside.md)")).toEqual(["../outside"]);
    expect(resolver.resolve("../outside")).toEqual({ status: "missing" });
  });
});
