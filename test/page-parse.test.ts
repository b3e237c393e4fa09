import { describe, expect, it } from "vitest";
import {
  CANONICAL_TYPES,
  EVIDENCE_TYPES,
  hashContent,
  MAX_PAGE_BYTES,
  PAGE_STATUSES,
  type Page,
  type ParseResult,
  pageMeta,
  parsePage,
  roleOf,
} from "../extensions/llm-wiki/lib/vault/page.ts";
import { randomWord } from "./helpers/random-text.ts";

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

function parse(text: string | Uint8Array, id = "concepts/rag"): ParseResult {
  return parsePage(id, `wiki/${id}.md`, typeof text === "string" ? encode(text) : text);
}

function accepted(text: string, id = "concepts/rag"): Page {
  const result = parse(text, id);
  if (!result.ok) throw new Error(`expected an accepted page, got ${JSON.stringify(result)}`);
  return result.page;
}

function rejected(text: string | Uint8Array, id = "concepts/rag") {
  const result = parse(text, id);
  expect(result.ok).toBe(false);
  expect(result.diagnostics).toHaveLength(1);
  const [diag] = result.diagnostics;
  if (!diag) throw new Error("no diagnostic");
  expect(diag.severity).toBe("error");
  expect(diag.path).toBe(`wiki/${id}.md`);
  expect(diag.message).toContain(`wiki/${id}.md`);
  return diag;
}

const FULL = `---
type: concept
title: Retrieval-Augmented Generation
description: Grounding answers in retrieved pages.
summary: Retrieve, then generate.
aliases: [RAG, retrieval augmented generation]
tags:
  - retrieval
  - llm
status: stable
sources:
  - sources/lewis-2020
  - id: sources/blog-post
  - path: raw/sources/SRC-2024-01-02-001
created: 2024-01-02
updated: "2024-03-04"
stale_after: 2025-01-01
recall_triggers: [rag, grounding]
owner: team-search
review:
  cadence: monthly
---
# Retrieval-Augmented Generation

See [[concepts/bm25]].
`;

describe("parsePage: fields", () => {
  it("reads every documented frontmatter field", () => {
    const page = accepted(FULL);
    expect(page).toMatchObject({
      id: "concepts/rag",
      path: "wiki/concepts/rag.md",
      type: "concept",
      role: "canonical",
      title: "Retrieval-Augmented Generation",
      description: "Grounding answers in retrieved pages.",
      summary: "Retrieve, then generate.",
      aliases: ["RAG", "retrieval augmented generation"],
      tags: ["retrieval", "llm"],
      status: "stable",
      sources: ["sources/lewis-2020", "sources/blog-post", "raw/sources/SRC-2024-01-02-001"],
      created: "2024-01-02",
      updated: "2024-03-04",
      staleAfter: "2025-01-01",
      recallTriggers: ["rag", "grounding"],
    });
  });

  it("keeps unknown frontmatter keys, nested ones included", () => {
    const page = accepted(FULL);
    expect(page.frontmatter.owner).toBe("team-search");
    expect(page.frontmatter.review).toEqual({ cadence: "monthly" });
  });

  it("keeps the body after the frontmatter and hashes the exact bytes", () => {
    const page = accepted(FULL);
    expect(page.body).toBe("# Retrieval-Augmented Generation\n\nSee [[concepts/bm25]].\n");
    expect(page.hash).toBe(hashContent(encode(FULL)));
    expect(page.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("accepts a comma-separated string as a list of tags or aliases", () => {
    const page = accepted("---\ntype: concept\ntags: retrieval, llm , search\naliases: RAG\n---\n");
    expect(page.tags).toEqual(["retrieval", "llm", "search"]);
    expect(page.aliases).toEqual(["RAG"]);
  });

  it("reads the type case-insensitively and a missing list as empty", () => {
    const page = accepted("---\ntype: Concept\n---\nbody");
    expect(page.type).toBe("concept");
    expect(page.aliases).toEqual([]);
    expect(page.tags).toEqual([]);
    expect(page.sources).toEqual([]);
    expect(page.recallTriggers).toEqual([]);
    expect(page.status).toBeUndefined();
    expect(page.description).toBeUndefined();
  });

  it("accepts every documented status", () => {
    for (const status of PAGE_STATUSES) {
      expect(accepted(`---\ntype: note\nstatus: ${status}\n---\n`).status).toBe(status);
    }
    expect(PAGE_STATUSES).toEqual([
      "draft",
      "stable",
      "deprecated",
      "skeleton",
      "ingested",
      "insight",
      "observation",
      "stub",
    ]);
  });

  it("accepts an unknown status with a warning and no status", () => {
    const result = parse("---\ntype: concept\nstatus: shiny\n---\n");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.page.status).toBeUndefined();
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: "page_unknown_status",
        severity: "warning",
        path: "wiki/concepts/rag.md",
      }),
    ]);
  });

  it("reads a UTF-8 byte-order mark and CRLF line endings", () => {
    const page = accepted("\uFEFF---\r\ntype: entity\r\ntitle: QMD\r\n---\r\nBody\r\n");
    expect(page.type).toBe("entity");
    expect(page.title).toBe("QMD");
  });

  it("leaves metadata without body or frontmatter in pageMeta", () => {
    const meta = pageMeta(accepted(FULL));
    expect(meta).not.toHaveProperty("body");
    expect(meta).not.toHaveProperty("frontmatter");
    expect(meta).not.toHaveProperty("hash");
    expect(meta.title).toBe("Retrieval-Augmented Generation");
  });
});

describe("parsePage: role", () => {
  it("is canonical for the seven curated types", () => {
    expect([...CANONICAL_TYPES]).toEqual([
      "entity",
      "concept",
      "synthesis",
      "analysis",
      "requirement",
      "skill",
      "case",
    ]);
    for (const type of CANONICAL_TYPES) {
      expect(accepted(`---\ntype: ${type}\n---\n`).role).toBe("canonical");
    }
  });

  it("is evidence for every other accepted type", () => {
    for (const type of EVIDENCE_TYPES) {
      expect(accepted(`---\ntype: ${type}\n---\n`, `sources/${type}`).role).toBe("evidence");
    }
    expect(roleOf("source")).toBe("evidence");
    expect(roleOf("observation")).toBe("evidence");
  });
});

describe("parsePage: title fallback", () => {
  it("uses the frontmatter title first", () => {
    expect(accepted("---\ntype: concept\ntitle: Given\n---\n# Heading\n").title).toBe("Given");
  });

  it("falls back to the first level-one heading", () => {
    const page = accepted("---\ntype: concept\n---\nintro\n## Not this\n# The Heading #\n");
    expect(page.title).toBe("The Heading");
  });

  it("falls back to the file name when there is neither title nor heading", () => {
    expect(accepted("---\ntype: concept\ntitle: '  '\n---\nplain text\n").title).toBe("rag");
  });
});

describe("parsePage: malformed pages", () => {
  it("refuses bad YAML with a one-line reason naming the path", () => {
    const diag = rejected("---\ntype: concept\ntitle: [unclosed\n---\nbody\n");
    expect(diag.code).toBe("frontmatter_parse_error");
    expect(diag.message).toMatch(/not valid YAML/);
    expect(diag.message).not.toContain("\n");
  });

  it("refuses frontmatter that is not a mapping", () => {
    expect(rejected("---\n- a\n- b\n---\nbody\n").code).toBe("frontmatter_parse_error");
  });

  it("refuses a page with no type and no text", () => {
    expect(rejected("---\ntitle: No type\n---\n").code).toBe("page_missing_type");
    expect(rejected("---\ntitle: No type\n---\n  \n\n").code).toBe("page_missing_type");
    expect(rejected("").code).toBe("page_missing_type");
  });

  it("reads a note written by hand, with no front matter or no type, as its folder says, and asks for the type", () => {
    // A word whose plural drops back to it: "…ss" stays ("process"), "…ies" is "…y".
    let word = randomWord(5, 9);
    while (/(s|ie)$/.test(word)) word = randomWord(5, 9);
    const cases: Array<[string, string, string]> = [
      ["concepts", "concept", "canonical"],
      ["entities", "entity", "canonical"],
      ["syntheses", "synthesis", "canonical"],
      ["runbooks", "skill", "canonical"],
      ["postmortems", "analysis", "canonical"],
      ["decisions", "decision", "evidence"],
      ["adr", "decision", "evidence"],
      [`${word}s`, word, "evidence"],
    ];
    for (const [folder, type, role] of cases) {
      const id = `${folder}/${randomWord(4, 8)}`;
      for (const text of [
        `# ${word} heading\n\nSome ${word} text.\n`,
        `---\ntags: [x]\n---\nText.\n`,
      ]) {
        const result = parse(text, id);
        if (!result.ok) throw new Error(`${id} rejected`);
        expect(result.page.type, id).toBe(type);
        expect(result.page.role, id).toBe(role);
        expect(result.diagnostics, id).toEqual([
          expect.objectContaining({
            code: "page_missing_type",
            severity: "warning",
            path: `wiki/${id}.md`,
            repair: `add \`type: ${type}\` to the front matter of wiki/${id}.md`,
          }),
        ]);
      }
    }
    // The title is its first heading; a page at the top of wiki/ is a note.
    expect(accepted(`# ${word} heading\n\nbody\n`, `${word}`)).toMatchObject({
      type: "note",
      title: `${word} heading`,
    });
    // A folder name no type could be is no type: the page is a note.
    expect(accepted("body\n", "a folder: [x]/page").type).toBe("note");
  });

  it("keeps an unknown (OKF) type as written, as evidence, with an info diagnostic naming it", () => {
    const type = `Attested ${randomWord(4, 8)} Computation`;
    const result = parse(`---\ntype: ${type}\nx_vendor: {a: 1}\n---\nbody\n`);
    if (!result.ok) throw new Error("rejected");
    expect(result.page.type).toBe(type);
    expect(result.page.role).toBe("evidence");
    expect(result.page.frontmatter.x_vendor).toEqual({ a: 1 });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: "page_unknown_type",
        severity: "info",
        path: "wiki/concepts/rag.md",
      }),
    ]);
    expect(result.diagnostics[0]?.message).toContain(`"${type}"`);
    // A known type in another case is still that type.
    const known = parse("---\ntype: Concept\n---\n");
    expect(known.ok && known.page.type).toBe("concept");
  });

  it("refuses a type that is not a short single-line name", () => {
    for (const bad of ['"a\\u0007b"', '"<script>x</script>"', `"${"t".repeat(65)}"`, '"-lead"']) {
      expect(rejected(`---\ntype: ${bad}\n---\n`).code).toBe("page_invalid_type");
    }
  });

  it("refuses binary content: a NUL byte or invalid UTF-8", () => {
    const withNul = encode("---\ntype: concept\n---\nabc\u0000def");
    expect(rejected(withNul).code).toBe("page_binary");
    const invalidUtf8 = new Uint8Array([...encode("---\ntype: concept\n---\n"), 0xff, 0xfe, 0x41]);
    expect(rejected(invalidUtf8).code).toBe("page_binary");
  });

  it("refuses a page over the size cap, and accepts one exactly at it", () => {
    const head = "---\ntype: concept\n---\n";
    const atCap = head + "x".repeat(MAX_PAGE_BYTES - head.length);
    expect(encode(atCap).byteLength).toBe(MAX_PAGE_BYTES);
    expect(parse(atCap).ok).toBe(true);
    const diag = rejected(`${atCap}x`);
    expect(diag.code).toBe("page_too_large");
    expect(diag.message).toContain(String(MAX_PAGE_BYTES + 1));
  });

  it("never throws, whatever the bytes", () => {
    const samples = [
      "---\n",
      "---\n---\n",
      "---\n: : :\n---\n",
      "---\ntype: [a, b]\n---\n",
      "\n\n",
    ];
    for (const text of samples) expect(() => parse(text)).not.toThrow();
    expect(parse("---\ntype: [a, b]\n---\n").ok).toBe(false);
  });
});
