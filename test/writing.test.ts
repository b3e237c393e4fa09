/**
 * Writing the wiki through the shared service, on real temporary vaults:
 * observations and retros are created and never overwritten, agent events
 * are appended to the log without touching earlier lines, and ingest hands
 * out a captured source's whole text in order, part by part, marking a
 * source ingested only when asked, by changing its status line alone.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { ensurePage } from "../extensions/llm-wiki/lib/writing/ensure-page.ts";
import { MAX_DETAIL_BYTES } from "../extensions/llm-wiki/lib/writing/log-event.ts";
import { PART_CHARS, splitIntoParts } from "../extensions/llm-wiki/lib/writing/split-parts.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import {
  makeTempDir,
  makeTempVault,
  pageText,
  readEvents,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  removeTempDirs();
});

function frontmatterOf(vault: TempVault, rel: string): Record<string, unknown> {
  const parsed = parsePage("x", rel, readFileSync(join(vault.paths.dir, rel)));
  if (!parsed.ok) throw new Error(`${rel} does not parse`);
  return parsed.page.frontmatter;
}

function bodyOf(vault: TempVault, rel: string): string {
  const parsed = parsePage("x", rel, readFileSync(join(vault.paths.dir, rel)));
  if (!parsed.ok) throw new Error(`${rel} does not parse`);
  return parsed.page.body;
}

/**
 * The ids a page dated by a write made just before may have, `<prefix>-<date>-<slug>`:
 * the UTC date today, or yesterday's if the test ran across midnight.
 */
function datedIds(prefix: string, slug: string): string[] {
  const now = Date.now();
  return [now, now - 86_400_000].map(
    (t) => `${prefix}-${new Date(t).toISOString().slice(0, 10)}-${slug}`,
  );
}
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What a write may change: pages, packets, the event log and backups (the
 * registry under meta/ is derived and refreshed by any read).
 */
function durable(vault: TempVault): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const dir of ["wiki", "raw", "meta/backups"]) {
    const abs = join(vault.paths.dir, dir);
    if (!existsSync(abs)) continue;
    for (const [rel, bytes] of snapshotFiles(abs)) out.set(`${dir}/${rel}`, bytes);
  }
  if (existsSync(vault.paths.events))
    out.set("meta/events.jsonl", readFileSync(vault.paths.events));
  return out;
}

/**
 * A captured source written by hand in the shape capture leaves: a packet
 * `raw/sources/<id>/{manifest.json, source.md}` and a skeleton page.
 */
function skeletonSource(
  vault: TempVault,
  id: string,
  title: string,
  text: string,
  options: { slug?: string; rawPath?: string; file?: string; status?: string } = {},
): string {
  const packet = join(vault.paths.raw, "sources", id);
  const file = options.file ?? "source.md";
  mkdirSync(packet, { recursive: true });
  writeFileSync(
    join(packet, "manifest.json"),
    `${JSON.stringify({ id, title, files: { source: file } }, null, 2)}\n`,
  );
  writeFileSync(join(packet, file), text);
  const slug = options.slug ?? title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  vault.writePage(
    `sources/${slug}`,
    pageText(
      {
        type: "source",
        title: JSON.stringify(title),
        status: options.status ?? "skeleton",
        raw_path: options.rawPath ?? `raw/sources/${id}`,
      },
      `# ${title}\n\n## Summary\n\n_Skeleton: summarise me._\n`,
    ),
  );
  return `sources/${slug}`;
}

/** About `chars` characters of numbered paragraphs, each naming itself, separated by blank lines. */
function longText(chars: number): { text: string; paragraphs: string[] } {
  const paragraphs: string[] = [];
  let length = 0;
  for (let n = 1; length < chars; n += 1) {
    const words = Array.from({ length: 70 }, (_, i) => `w${n}x${i}`).join(" ");
    const p = `Paragraph ${n}: ${words}.`;
    paragraphs.push(p);
    length += p.length + 2;
  }
  return { text: `${paragraphs.join("\n\n")}\n`, paragraphs };
}

describe("observe", () => {
  it("creates an observation page under wiki/sources/ and logs observation_recorded", () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const result = service.observe({
      title: "Cache keys include the tenant id",
      content: "Keys are `tenant:entity:version`; see src/cache/keys.ts.",
      tags: ["cache", "multi-tenant"],
      sources: ["SRC-2026-11-30-001"],
      relevance: "high",
    });

    // Written as given; the source, never captured in this vault, is a warning.
    expect(result).toMatchObject({
      ok: true,
      created: true,
      diagnostics: [expect.objectContaining({ code: "source_unknown", severity: "warning" })],
    });
    expect(datedIds("sources/obs", "cache-keys-include-the-tenant-id")).toContain(result.id);
    expect(result.path).toBe(`wiki/${result.id}.md`);
    const fm = frontmatterOf(vault, result.path ?? "");
    expect(fm).toMatchObject({
      type: "observation",
      status: "observation",
      title: "Cache keys include the tenant id",
      tags: ["cache", "multi-tenant"],
      sources: ["SRC-2026-11-30-001"],
      relevance: "high",
    });
    expect(bodyOf(vault, result.path ?? "")).toContain("see src/cache/keys.ts.");
    expect(readEvents(vault.paths).map((e) => [e.kind, e.id])).toEqual([
      ["page_created", result.id],
      ["observation_recorded", result.id],
    ]);
    // The registry accepts it as an evidence page.
    const page = service
      .registry(service.resolveVaults()[0] ?? vault.paths)
      .pages.get(result.id ?? "");
    expect(page).toMatchObject({ type: "observation", role: "evidence", status: "observation" });
  });

  it("never overwrites: the same title with new content is a second page, the first unchanged", () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const first = service.observe({ title: "Flaky login test", content: "Fails under load." });
    const before = readFileSync(join(vault.paths.dir, first.path ?? ""));
    const second = service.observe({ title: "Flaky login test", content: "Root cause: a race." });

    expect(second).toMatchObject({ ok: true, created: true });
    expect(second.id).toBe(`${first.id}-2`);
    expect(readFileSync(join(vault.paths.dir, first.path ?? ""))).toEqual(before);
    expect(bodyOf(vault, second.path ?? "")).toContain("Root cause: a race.");
    const recorded = readEvents(vault.paths).filter((e) => e.kind === "observation_recorded");
    expect(recorded).toHaveLength(2);
  });

  it("reports the identical observation sent again as page_exists and writes nothing", () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const input = { title: "Build needs Node 22", content: "Type stripping needs 22.6+." };
    const first = service.observe(input);
    const files = durable(vault);

    const again = service.observe(input);
    expect(again).toMatchObject({ ok: true, created: false, id: first.id, path: first.path });
    expect(again.diagnostics.map((d) => [d.code, d.severity])).toEqual([["page_exists", "info"]]);
    expect(durable(vault)).toEqual(files);
  });

  it("gives two Chinese titles two pages", () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const a = service.observe({ title: "缓存键包含租户", content: "租户 id 是键的一部分。" });
    const b = service.observe({ title: "缓存键包含用户", content: "用户 id 也是键的一部分。" });

    expect(a.created && b.created).toBe(true);
    expect(a.id).not.toBe(b.id);
    expect(datedIds("sources/obs", "缓存键包含租户")).toContain(a.id);
    expect(bodyOf(vault, a.path ?? "")).toContain("租户 id 是键的一部分。");
    expect(bodyOf(vault, b.path ?? "")).toContain("用户 id 也是键的一部分。");
  });

  it("refuses an empty title or content, naming the field, and writes nothing", () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const files = durable(vault);
    const noTitle = service.observe({ title: "  \n ", content: "text" });
    const noContent = service.observe({ title: "A title", content: "   " });

    expect(noTitle.ok).toBe(false);
    expect(noTitle.diagnostics).toEqual([
      expect.objectContaining({ code: "invalid_input", message: "title: must not be empty" }),
    ]);
    expect(noContent.diagnostics[0]?.message).toBe("content: must not be empty");
    expect(durable(vault)).toEqual(files);
  });

  it("reports a missing vault with the command that creates one", () => {
    const result = serviceFor(makeTempDir(), { discover: true }).observe({
      title: "x",
      content: "y",
    });
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({
      code: "vault_not_found",
      repair: "llm-wiki init",
    });
  });
});

describe("retro", () => {
  it("writes a retro page with its sections in order and logs retro_recorded", () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const result = service.retro({
      title: "Migrating the cache to version vectors",
      context: "Replaced the TTL cache.",
      went_well: ["The property tests caught two ordering bugs."],
      went_badly: ["The benchmark ran on a cold disk."],
      lessons: ["Warm the disk before timing.", "Write the property test first."],
      tags: ["cache"],
    });

    expect(result).toMatchObject({ ok: true, created: true });
    expect(datedIds("sources/retro", "migrating-the-cache-to-version-vectors")).toContain(
      result.id,
    );
    expect(frontmatterOf(vault, result.path ?? "")).toMatchObject({
      type: "retro",
      status: "insight",
      tags: ["cache"],
    });
    const body = bodyOf(vault, result.path ?? "");
    const headings = [...body.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(["Context", "What went well", "What went badly", "Lessons"]);
    expect(body).toContain("- Warm the disk before timing.\n- Write the property test first.");
    expect(readEvents(vault.paths).at(-1)).toMatchObject({
      kind: "retro_recorded",
      id: result.id,
      lessons: 2,
    });
  });

  it("needs at least one lesson and leaves out empty sections", () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const none = service.retro({ title: "Nothing learned", lessons: ["  "] });
    expect(none.ok).toBe(false);
    expect(none.diagnostics[0]?.message).toBe("lessons: needs at least one lesson");

    const short = service.retro({ title: "Short one", lessons: ["Ask first."] });
    const body = bodyOf(vault, short.path ?? "");
    expect([...body.matchAll(/^## (.+)$/gm)].map((m) => m[1])).toEqual(["Lessons"]);
  });
});

describe("logEvent", () => {
  it("appends one line per event and leaves every earlier line byte-identical", () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    service.observe({ title: "Seed", content: "An event before ours." });
    const before = readFileSync(vault.paths.events);

    const first = service.logEvent({
      kind: "query_answered",
      detail: { question: "why version vectors?", pages: ["concepts/cache"] },
    });
    const middle = readFileSync(vault.paths.events);
    const second = service.logEvent({ kind: "decision_made" });
    const after = readFileSync(vault.paths.events);

    expect(first).toMatchObject({ ok: true, kind: "query_answered", path: "meta/events.jsonl" });
    expect(second.ok).toBe(true);
    expect(middle.subarray(0, before.length)).toEqual(before);
    expect(after.subarray(0, middle.length)).toEqual(middle);
    const added = after.subarray(before.length).toString("utf8").split("\n");
    expect(added).toHaveLength(3);
    expect(added[2]).toBe("");
    expect(JSON.parse(added[0] ?? "")).toEqual({
      ts: first.ts,
      // The same moment under @zosmaai/pi-llm-wiki's key: one log for both.
      timestamp: first.ts,
      kind: "query_answered",
      detail: { question: "why version vectors?", pages: ["concepts/cache"] },
      // Who logged it: the account's name here (no git author), through the service's default agent.
      by: expect.any(String),
      agent: "cli",
    });
    expect(JSON.parse(added[1] ?? "")).toMatchObject({ kind: "decision_made", detail: {} });
  });

  it("refuses bad kinds, reserved kinds and bad or oversized detail, writing nothing", () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    service.logEvent({ kind: "first_event" });
    const before = readFileSync(vault.paths.events);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;

    const refused = [
      service.logEvent({ kind: "QueryAnswered" }),
      service.logEvent({ kind: "query-answered" }),
      service.logEvent({ kind: "_query" }),
      service.logEvent({ kind: "" }),
      service.logEvent({ kind: `a${"_b".repeat(40)}` }),
      service.logEvent({ kind: "page_created" }),
      service.logEvent({ kind: "conflict_resolved" }),
      service.logEvent({ kind: "page_verified" }),
      service.logEvent({ kind: "note", detail: { n: Number.NaN } }),
      service.logEvent({ kind: "note", detail: cyclic }),
      service.logEvent({ kind: "note", detail: { when: new Date() } }),
      service.logEvent({
        kind: "note",
        detail: ["not", "an", "object"] as unknown as Record<string, unknown>,
      }),
      service.logEvent({ kind: "note", detail: { text: "x".repeat(MAX_DETAIL_BYTES) } }),
    ];
    expect(refused.map((r) => [r.ok, r.diagnostics[0]?.code])).toEqual([
      [false, "event_kind_invalid"],
      [false, "event_kind_invalid"],
      [false, "event_kind_invalid"],
      [false, "event_kind_invalid"],
      [false, "event_kind_invalid"],
      [false, "event_kind_reserved"],
      [false, "event_kind_reserved"],
      [false, "event_kind_reserved"],
      [false, "event_detail_invalid"],
      [false, "event_detail_invalid"],
      [false, "event_detail_invalid"],
      [false, "event_detail_invalid"],
      [false, "event_detail_too_large"],
    ]);
    expect(readFileSync(vault.paths.events)).toEqual(before);
  });
});

describe("splitting a source into parts", () => {
  it("keeps every character, in order, at most PART_CHARS a part, surrogate pairs whole", () => {
    // 40,001 code units and no whitespace; the odd start puts a cut at 12,000 inside a pair.
    const emoji = `a${"🦜".repeat(20_000)}`;
    const prose = `${"word ".repeat(6_000)}\n`; // one 30,000-character line
    const text = `Intro.\n\n${emoji}\n\n${prose}\nEnd.`;
    const parts = splitIntoParts(text);

    expect(parts.map((p) => p.text).join("")).toBe(text);
    expect(parts.every((p) => p.text.length <= PART_CHARS && p.text.length > 0)).toBe(true);
    // A long paragraph fills the part it starts in: no part but the last is mostly empty.
    for (const p of parts.slice(0, -1)) expect(p.text.length).toBeGreaterThan(PART_CHARS / 2);
    for (const [i, p] of parts.entries()) {
      expect(p.index).toBe(i + 1);
      expect(p.start).toBe(i === 0 ? 0 : parts[i - 1]?.end);
      expect(text.slice(p.start, p.end)).toBe(p.text);
      // No part starts or ends in the middle of a character.
      expect(p.text).not.toMatch(LONE_SURROGATE);
    }
    // The run of prose is cut after spaces, never inside a word.
    const proseParts = parts.filter((p) => p.text.includes("word") && !p.text.includes("End."));
    for (const p of proseParts.slice(0, -1)) expect(p.text.endsWith(" ")).toBe(true);
  });

  it("returns one empty part for an empty text", () => {
    expect(splitIntoParts("")).toEqual([{ index: 1, start: 0, end: 0, text: "" }]);
  });
});

describe("ingest", () => {
  it("says so when no skeleton source is waiting", () => {
    const vault = makeTempVault();
    const result = serviceFor(vault.root).ingest();
    expect(result).toMatchObject({ ok: true, pending: [] });
    expect(result.part).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(["ingest_nothing_waiting"]);
  });

  it("hands out a 40k-character source in numbered parts that cover it in order, on paragraph boundaries", () => {
    const vault = makeTempVault();
    const { text, paragraphs } = longText(40_000);
    const page = skeletonSource(vault, "SRC-2026-11-30-001", "Version vectors paper", text);
    const pageBefore = readFileSync(vault.pageFile(page));
    const service = serviceFor(vault.root);

    const first = service.ingest();
    expect(first.ok).toBe(true);
    expect(first.source).toMatchObject({
      sourceId: "SRC-2026-11-30-001",
      page,
      status: "skeleton",
      textPath: "raw/sources/SRC-2026-11-30-001/source.md",
    });
    const count = first.part?.count ?? 0;
    // Paragraph boundaries cost at most one extra part over a dense packing.
    expect(count).toBeGreaterThanOrEqual(Math.ceil(text.length / PART_CHARS));
    expect(count).toBeLessThanOrEqual(Math.ceil(text.length / PART_CHARS) + 1);
    expect(first.next).toEqual({ source: "SRC-2026-11-30-001", part: 2 });
    expect(first.schema).toContain("wiki_ensure_page");
    expect(first.schema).toContain("SRC-2026-11-30-001");

    // Follow `next` as an agent would, until the result says to mark the source.
    const texts: string[] = [];
    let step = first;
    for (;;) {
      expect(step.ok).toBe(true);
      expect(step.part?.index).toBe(texts.length + 1);
      expect(step.part?.text.length).toBeLessThanOrEqual(PART_CHARS);
      expect(step.part?.start).toBe(texts.join("").length);
      texts.push(step.part?.text ?? "");
      if (!step.next?.part) break;
      step = service.ingest({ source: step.next.source, part: step.next.part });
    }
    expect(texts).toHaveLength(count);
    expect(step.next).toEqual({ source: "SRC-2026-11-30-001", mark_ingested: true });
    expect(texts.join("")).toBe(text);
    // No paragraph is split between two parts.
    for (const p of paragraphs) expect(texts.filter((t) => t.includes(p))).toHaveLength(1);

    // Reading marks nothing: the page, the packet and the log are as they were.
    expect(readFileSync(vault.pageFile(page))).toEqual(pageBefore);
    expect(readEvents(vault.paths)).toEqual([]);
    expect(service.ingest().source?.page).toBe(page);
  });

  it("asks for a part that does not exist with a clear error", () => {
    const vault = makeTempVault();
    skeletonSource(vault, "SRC-2026-11-30-001", "Short source", "Only one part.\n");
    const result = serviceFor(vault.root).ingest({ source: "SRC-2026-11-30-001", part: 2 });
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({
      code: "ingest_part_out_of_range",
      message: "SRC-2026-11-30-001 has 1 part(s); part 2 does not exist",
    });
  });

  it("takes the oldest skeleton first and lists the others; finds a source by id or page id", () => {
    const vault = makeTempVault();
    skeletonSource(vault, "SRC-2026-11-30-002", "Second capture", "two\n");
    const older = skeletonSource(vault, "SRC-2026-11-30-001", "First capture", "one\n");
    skeletonSource(vault, "SRC-2026-11-29-001", "Already done", "done\n", { status: "ingested" });
    const service = serviceFor(vault.root);

    const result = service.ingest();
    expect(result.source?.page).toBe(older);
    expect(result.part?.text).toBe("one\n");
    expect(result.pending.map((s) => s.sourceId)).toEqual(["SRC-2026-11-30-002"]);
    expect(service.ingest({ source: "sources/second-capture" }).part?.text).toBe("two\n");
    expect(service.ingest({ source: "src-2026-11-30-002" }).source?.page).toBe(
      "sources/second-capture",
    );
    // A source summarised before can still be read again, with a note saying so.
    const again = service.ingest({ source: "SRC-2026-11-29-001" });
    expect(again.part?.text).toBe("done\n");
    expect(again.next).toBeUndefined();
    expect(again.diagnostics.map((d) => d.code)).toEqual(["ingest_not_skeleton"]);
    expect(service.ingest({ source: "SRC-1999-01-01-001" }).diagnostics[0]?.code).toBe(
      "ingest_source_not_found",
    );
  });

  it("reads older packets whose raw_path names extracted.md", () => {
    const vault = makeTempVault();
    skeletonSource(vault, "SRC-2025-01-02-003", "Old capture", "Old text.\n", {
      file: "extracted.md",
      rawPath: "raw/sources/SRC-2025-01-02-003/extracted.md",
    });
    const result = serviceFor(vault.root).ingest();
    expect(result.source?.textPath).toBe("raw/sources/SRC-2025-01-02-003/extracted.md");
    expect(result.part?.text).toBe("Old text.\n");
  });

  it("reads a packet made by the capture operation", async () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const captured = await service.captureSource({
      title: "Backpressure notes",
      text: "# Backpressure notes\n\nSlow consumers get a bounded queue.\n",
    });
    expect(captured.ok).toBe(true);
    const result = service.ingest();
    expect(result.source).toMatchObject({ sourceId: captured.id, page: captured.page });
    expect(result.part?.text).toContain("Slow consumers get a bounded queue.");
  });

  it("marks a source ingested by changing only its status line, after a backup", () => {
    const vault = makeTempVault();
    const page = skeletonSource(vault, "SRC-2026-11-30-001", "Marked source", "Some text.\n");
    const service = serviceFor(vault.root);
    const before = readFileSync(vault.pageFile(page), "utf8");

    const result = service.ingest({ source: "SRC-2026-11-30-001", markIngested: true });
    expect(result).toMatchObject({
      ok: true,
      marked: { page, path: `wiki/${page}.md`, changed: true },
    });
    const after = readFileSync(vault.pageFile(page), "utf8");
    expect(after).toBe(before.replace("status: skeleton\n", "status: ingested\n"));
    expect(after).not.toBe(before);
    const backup = result.marked?.backup ?? "";
    expect(backup).toMatch(/^meta\/backups\/[0-9T-]+Z\/wiki\/sources\/marked-source\.md$/);
    expect(readFileSync(join(vault.paths.dir, backup), "utf8")).toBe(before);
    expect(readEvents(vault.paths).at(-1)).toMatchObject({
      kind: "source_ingested",
      id: "SRC-2026-11-30-001",
      page,
      backup,
    });
    // No longer waiting; marking again changes nothing and takes no second backup.
    expect(service.ingest().diagnostics.map((d) => d.code)).toEqual(["ingest_nothing_waiting"]);
    const files = durable(vault);
    const twice = service.ingest({ source: page, markIngested: true });
    expect(twice.marked?.changed).toBe(false);
    expect(twice.diagnostics.map((d) => d.code)).toEqual(["ingest_already_marked"]);
    expect(durable(vault)).toEqual(files);
  });

  it("refuses to mark a page that is not a skeleton, or without naming the source", () => {
    const vault = makeTempVault();
    const page = skeletonSource(vault, "SRC-2026-11-30-001", "Hand summary", "text\n", {
      status: "draft",
    });
    const service = serviceFor(vault.root);
    const files = durable(vault);

    const draft = service.ingest({ source: page, markIngested: true });
    expect(draft.ok).toBe(false);
    expect(draft.diagnostics[0]?.code).toBe("ingest_not_skeleton");
    const unnamed = service.ingest({ markIngested: true });
    expect(unnamed.diagnostics[0]?.message).toBe("source: mark_ingested needs the source to mark");
    expect(durable(vault)).toEqual(files);
    expect(existsSync(join(vault.paths.meta, "backups"))).toBe(false);
  });
});

describe("ensurePage", () => {
  it("takes a title spaced or cased differently for the page that has it; lint finds no duplicate", async () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const first = service.ensurePage({ type: "concept", title: "Foo Bar" });
    const files = durable(vault);
    const again = service.ensurePage({ type: "concept", title: "foo  BAR" });
    expect(again).toMatchObject({ ok: true, created: false, id: first.id, path: first.path });
    expect(again.diagnostics.map((d) => d.code)).toEqual(["page_exists"]);
    expect(durable(vault)).toEqual(files);
    const findings = (await service.lint()).vaults.flatMap((v) => v.findings);
    expect(findings.filter((f) => f.check === "duplicate")).toEqual([]);
  });

  it("refuses bad input, and a title whose every slug is taken, with a precise WikiError", () => {
    const vault = makeTempVault();
    const codeOf = (run: () => unknown): string | undefined => {
      try {
        run();
      } catch (error) {
        return error instanceof WikiError ? error.diagnostic.code : "not a WikiError";
      }
      return undefined;
    };
    expect(codeOf(() => ensurePage(vault.paths, { type: "recipe", title: "Soup" }))).toBe(
      "page_invalid_input",
    );
    expect(codeOf(() => ensurePage(vault.paths, { type: "concept", title: " " }))).toBe(
      "page_invalid_input",
    );
    for (let n = 1; n <= 50; n += 1) {
      const slug = n === 1 ? "taken" : `taken-${n}`;
      vault.writePage(`concepts/${slug}`, pageText({ type: "concept", title: `Other ${n}` }));
    }
    const files = durable(vault);
    expect(codeOf(() => ensurePage(vault.paths, { type: "concept", title: "Taken" }))).toBe(
      "page_no_free_slug",
    );
    expect(durable(vault)).toEqual(files);
  });
});
