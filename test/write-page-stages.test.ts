/**
 * The stages of the write path, each alone (writing/write-page-pipeline.ts,
 * vault/events.ts): validate refuses before anything is written, redact
 * takes every secret out without touching the draft, render refuses a text
 * the registry would refuse, place never overwrites and picks the next free
 * slug, record logs `page_created` first and never throws for the log, and
 * the event line and append stages keep the log's contract.
 */
import { randomInt } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { appendLines } from "../extensions/llm-wiki/lib/vault/event-append.ts";
import { eventLines } from "../extensions/llm-wiki/lib/vault/event-line.ts";
import { MAX_PAGE_BYTES } from "../extensions/llm-wiki/lib/vault/page.ts";
import { validateEnsurePage } from "../extensions/llm-wiki/lib/writing/ensure-page-input.ts";
import { MAX_DETAIL_BYTES, validateEvent } from "../extensions/llm-wiki/lib/writing/event-input.ts";
import type { PageDraft } from "../extensions/llm-wiki/lib/writing/page-draft.ts";
import { type PlaceRequest, placePage } from "../extensions/llm-wiki/lib/writing/page-place.ts";
import { pageEvents, recordPage } from "../extensions/llm-wiki/lib/writing/page-record.ts";
import { redactPage } from "../extensions/llm-wiki/lib/writing/page-redact.ts";
import { renderPage } from "../extensions/llm-wiki/lib/writing/page-render.ts";
import { writePage } from "../extensions/llm-wiki/lib/writing/write-page-pipeline.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterAll(removeTempDirs);

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A fresh token of a shape the redactor knows (a GitHub personal token). */
function token(): string {
  let out = "ghp_";
  for (let i = 0; i < 36; i += 1) out += ALNUM[randomInt(0, ALNUM.length)];
  return out;
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof WikiError) return error.diagnostic.code;
    throw error;
  }
  return undefined;
}

function total(counts: Record<string, number> | undefined): number {
  return Object.values(counts ?? {}).reduce((n, k) => n + k, 0);
}

function eventsOf(events: string): Array<Record<string, unknown>> {
  return readFileSync(events, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const now = new Date(Date.UTC(2026, 10, 30, 12));

describe("validate", () => {
  it("ensurePage refuses an unknown type or an empty title", () => {
    expect(codeOf(() => validateEnsurePage({ type: randomWord(), title: "x" }, now))).toBe(
      "page_invalid_input",
    );
    expect(codeOf(() => validateEnsurePage({ type: "concept", title: " \t " }, now))).toBe(
      "page_invalid_input",
    );
    expect(
      codeOf(() => validateEnsurePage({ type: "concept", title: "x", description: "a\nb" }, now)),
    ).toBe("invalid_input");
  });

  it("ensurePage merges pasted front matter, explicit fields winning, and redacts the title", () => {
    const secret = token();
    const tag = randomWord();
    const fields = validateEnsurePage(
      {
        type: " Concept",
        title: `${randomWords(2)} ${secret}`,
        content: `---\nstatus: stable\ntags: [${randomWord()}]\n---\n\n${randomWords(5)}`,
        tags: [tag],
      },
      now,
    );
    expect(fields.type).toBe("concept");
    expect(fields.title).not.toContain(secret);
    expect(total(fields.redacted)).toBe(1);
    expect(fields.data).toMatchObject({ status: "stable", tags: [tag], created: "2026-11-30" });
    expect(fields.diagnostics.map((d) => d.code)).toEqual(["page_frontmatter_merged"]);
  });

  it("an agent's event: a reserved or malformed kind, a detail that is not plain JSON or too big", () => {
    expect(codeOf(() => validateEvent({ kind: "page_created" }))).toBe("event_kind_reserved");
    expect(codeOf(() => validateEvent({ kind: `${randomWord()}-x` }))).toBe("event_kind_invalid");
    expect(codeOf(() => validateEvent({ kind: "note", detail: [] }))).toBe("event_detail_invalid");
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(codeOf(() => validateEvent({ kind: "note", detail: loop }))).toBe(
      "event_detail_invalid",
    );
    const big = { text: "x".repeat(MAX_DETAIL_BYTES) };
    expect(codeOf(() => validateEvent({ kind: "note", detail: big }))).toBe(
      "event_detail_too_large",
    );
    expect(validateEvent({ kind: " query_answered ", detail: { n: 1 } })).toEqual({
      kind: "query_answered",
      detail: { n: 1 },
    });
  });
});

describe("redact", () => {
  it("takes secrets out of keys, list items, keyed values and the body; the draft is untouched", () => {
    const [a, b, c] = [token(), token(), token()];
    const draft = {
      data: { title: randomWords(2), list: [a], [`k ${b}`]: 1 },
      body: `text ${c}`,
      redacted: { earlier: 2 },
    };
    const before = JSON.stringify(draft);
    const page = redactPage(draft);
    expect(JSON.stringify(draft)).toBe(before);
    const out = JSON.stringify(page);
    for (const secret of [a, b, c]) expect(out).not.toContain(secret);
    expect(total(page.counts)).toBe(5);
    expect(page.counts.earlier).toBe(2);
  });
});

describe("render", () => {
  it("ends the body with a newline and writes the front matter over it", () => {
    const title = randomWords(2);
    const body = randomWords(4);
    const page = renderPage({ data: { type: "concept", title }, body, counts: {} }, "concepts/x");
    expect(page.text.endsWith(`${body}\n`)).toBe(true);
    expect(page.text.startsWith("---\n")).toBe(true);
    expect(page.text).toContain(`title: ${title}`);
  });

  it("redacts a value that is a secret only beside its key, counting it", () => {
    const page = renderPage(
      { data: { type: "concept", title: "t" }, body: "password: hunter2hunter2\n", counts: {} },
      "concepts/x",
    );
    expect(page.text).not.toContain("hunter2hunter2");
    expect(total(page.counts)).toBeGreaterThan(0);
  });

  it("refuses a page the registry would refuse, before anything is written", () => {
    const body = `${randomWord(4, 4)} `.repeat(MAX_PAGE_BYTES / 4);
    expect(
      codeOf(() => renderPage({ data: { type: "concept", title: "t" }, body, counts: {} }, "c/x")),
    ).toBe("page_too_large");
  });
});

describe("place", () => {
  function request(over: Partial<PlaceRequest> = {}): PlaceRequest {
    return {
      folder: "concepts",
      base: randomWord(6, 10).toLowerCase(),
      maxAttempts: 3,
      isSame: () => false,
      title: randomWords(2),
      ...over,
    };
  }

  it("writes at the base slug, then the next free one, never over a file", () => {
    const vault = makeTempVault();
    const req = request();
    const first = placePage(vault.paths, req, "first\n");
    expect(first).toEqual({
      id: `concepts/${req.base}`,
      path: `wiki/concepts/${req.base}.md`,
      created: true,
    });
    const second = placePage(vault.paths, req, "second\n");
    expect(second.id).toBe(`concepts/${req.base}-2`);
    expect(vault.readPage(first.id)).toBe("first\n");
    expect(vault.readPage(second.id)).toBe("second\n");
  });

  it("returns the same page unwritten when isSame recognises it", () => {
    const vault = makeTempVault();
    const title = randomWords(2);
    const req = request({ isSame: (existing) => existing.title === title });
    const text = `---\ntype: concept\ntitle: ${title}\n---\n`;
    placePage(vault.paths, req, text);
    const again = placePage(vault.paths, req, `${text}changed\n`);
    expect(again.created).toBe(false);
    expect(vault.readPage(again.id)).toBe(text);
    expect(readdirSync(join(vault.paths.wiki, "concepts"))).toEqual([`${req.base}.md`]);
  });

  it("a link at a slug is not the same page: the next slug is taken, the link's target untouched", () => {
    const vault = makeTempVault();
    const req = request({ isSame: () => true });
    const target = join(vault.root, "outside.md");
    writeFileSync(target, "mine\n");
    mkdirSync(join(vault.paths.wiki, "concepts"), { recursive: true });
    symlinkSync(target, join(vault.paths.wiki, "concepts", `${req.base}.md`));
    const placed = placePage(vault.paths, req, "page\n");
    expect(placed).toMatchObject({ id: `concepts/${req.base}-2`, created: true });
    expect(readFileSync(target, "utf8")).toBe("mine\n");
  });

  it("refuses with page_no_free_slug once every slug tried is another page's", () => {
    const vault = makeTempVault();
    const req = request({ maxAttempts: 2 });
    placePage(vault.paths, req, "a\n");
    placePage(vault.paths, req, "b\n");
    expect(codeOf(() => placePage(vault.paths, req, "c\n"))).toBe("page_no_free_slug");
  });
});

describe("record", () => {
  it("logs page_created first, then the writer's events, each with the id and redactions", () => {
    const id = `sources/${randomWord()}`;
    const events = pageEvents({ id, type: "observation", counts: { github_token: 1 } }, (place) => [
      { kind: "observation_recorded", ...place },
    ]);
    expect(events).toEqual([
      { kind: "page_created", id, type: "observation", redactions: { github_token: 1 } },
      { kind: "observation_recorded", id, redactions: { github_token: 1 } },
    ]);
    expect(pageEvents({ id, type: "concept", counts: {} }, undefined)).toEqual([
      { kind: "page_created", id, type: "concept" },
    ]);
  });

  it("appends the events as stamped lines in one go", () => {
    const vault = makeTempVault();
    const id = `concepts/${randomWord()}`;
    const recorded = recordPage(vault.paths, { id, type: "concept", counts: {} }, undefined, now);
    expect(recorded).toEqual({ diagnostics: [] });
    expect(eventsOf(vault.paths.events)).toEqual([
      {
        ts: now.toISOString(),
        kind: "page_created",
        id,
        type: "concept",
        timestamp: now.toISOString(),
      },
    ]);
  });

  it("a log that cannot be appended to is a warning, never a throw", () => {
    const vault = makeTempVault();
    mkdirSync(vault.paths.events, { recursive: true });
    const recorded = recordPage(
      vault.paths,
      { id: "concepts/x", type: "concept", counts: { github_token: 2 } },
      undefined,
      now,
    );
    expect(recorded.redactions).toEqual({ github_token: 2 });
    expect(recorded.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ["event_not_recorded", "warning"],
    ]);
  });
});

describe("the pipeline", () => {
  function draft(title: string, body: string, events?: PageDraft["events"]): PageDraft {
    return {
      folder: "sources",
      base: title.toLowerCase().replace(/\s+/g, "-"),
      data: { type: "observation", title },
      body,
      maxAttempts: 5,
      isSame: (existing) => existing.title === title && existing.body.trim() === body.trim(),
      ...(events ? { events } : {}),
    };
  }

  it("the same page again writes and logs nothing; different text goes to the next slug", () => {
    const vault = makeTempVault();
    const title = randomWords(2);
    const body = randomWords(6);
    const recorded = (place: { id: string }) => [{ kind: "observation_recorded", id: place.id }];
    const first = writePage(vault.paths, draft(title, body, recorded), now);
    const again = writePage(vault.paths, draft(title, body, recorded), now);
    const other = writePage(vault.paths, draft(title, randomWords(6), recorded), now);
    expect([first.created, again.created, other.created]).toEqual([true, false, true]);
    expect(again).toEqual({ id: first.id, path: first.path, created: false, diagnostics: [] });
    expect(other.id).toBe(`${first.id}-2`);
    expect(eventsOf(vault.paths.events).map((e) => [e.kind, e.id])).toEqual([
      ["page_created", first.id],
      ["observation_recorded", first.id],
      ["page_created", other.id],
      ["observation_recorded", other.id],
    ]);
  });

  it("a refused render writes nothing at all", () => {
    const vault = makeTempVault();
    const body = `${randomWord(4, 4)} `.repeat(MAX_PAGE_BYTES / 4);
    expect(codeOf(() => writePage(vault.paths, draft(randomWords(2), body), now))).toBe(
      "page_too_large",
    );
    expect(existsSync(join(vault.paths.wiki, "sources"))).toBe(false);
    expect(existsSync(vault.paths.events)).toBe(false);
  });
});

describe("event line and append", () => {
  it("stamps, redacts and counts each line", () => {
    const secret = token();
    const lines = eventLines(
      [
        { kind: "note", detail: { text: secret } },
        { kind: "other", redactions: { earlier: 1 } },
      ],
      now,
    );
    expect(lines.text).not.toContain(secret);
    const [one, two] = lines.text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(one).toMatchObject({
      ts: now.toISOString(),
      kind: "note",
      timestamp: now.toISOString(),
    });
    expect(total(one?.redactions as Record<string, number>)).toBe(1);
    expect(two?.redactions).toEqual({ earlier: 1 });
    expect(total(lines.redactions)).toBe(2);
  });

  it("starts on a fresh line after a torn last line, leaving the torn bytes as they were", () => {
    const vault = makeTempVault();
    mkdirSync(vault.paths.meta, { recursive: true });
    const torn = `{"ts":"${now.toISOString()}","kind":"${randomWord()}"`;
    writeFileSync(vault.paths.events, torn);
    appendLines(vault.paths, '{"kind":"next"}\n');
    appendLines(vault.paths, '{"kind":"last"}\n');
    expect(readFileSync(vault.paths.events, "utf8")).toBe(
      `${torn}\n{"kind":"next"}\n{"kind":"last"}\n`,
    );
  });

  it("refuses a log that is a link", () => {
    const vault = makeTempVault();
    mkdirSync(vault.paths.meta, { recursive: true });
    const target = join(vault.root, "elsewhere.jsonl");
    writeFileSync(target, "");
    symlinkSync(target, vault.paths.events);
    expect(codeOf(() => appendLines(vault.paths, '{"kind":"x"}\n'))).toBe("write_through_link");
    expect(readFileSync(target, "utf8")).toBe("");
  });
});
