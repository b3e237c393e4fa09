/**
 * Notes written by hand, with no front matter, are memory too: a vault of
 * plain Markdown organised by folder (`decisions/`, `runbooks/`,
 * `incidents/`) is read as its folders say, answers the questions of each
 * kind, and lint asks for the missing types without touching the files.
 * Names and words are drawn afresh on each run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderRecallResult } from "../extensions/llm-wiki/lib/render-text.ts";
import { pageKinds } from "../extensions/llm-wiki/lib/retrieval/page-kind.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempVault, pageText, removeTempDirs, snapshotFiles } from "./helpers/temp-vault.ts";

const store = randomWord(6, 9);
const rival = randomWord(6, 9);
const service_ = randomWord(6, 9);
const day = "2026-04-14";
const benchmark = randomWord(7, 10);

let service: WikiService;
let before: Map<string, Buffer>;
let wiki: string;

beforeAll(async () => {
  const vault = makeTempVault({
    pages: {
      [`decisions/${store}-over-${rival}`]: `# Use ${store} over ${rival}\n\nWe went with ${store} because it keeps transactions and joins; ${rival} was rejected after the ${benchmark} load test.\n`,
      [`runbooks/restore-${store}`]: `# Restore ${store} from backup\n\n1. Stop the writers.\n2. Restore last night's ${store} snapshot.\n3. Replay the log.\n`,
      [`incidents/${day}-${service_}-outage`]: `# ${service_} down for 40 minutes on ${day}\n\nThe ${service_} ran out of ${store} connections after a deploy; we raised the pool and added an alert.\n`,
      // Typed pages that say the same words more often.
      [`entities/${store}`]: pageText(
        { type: "entity", title: store },
        `${store} is our main store. ${store} runs on two nodes; ${store} backups are nightly. ${service_} and ${rival} clients talk to ${store}.`,
      ),
      [`analyses/${service_}-latency`]: pageText(
        { type: "analysis", title: `${service_} latency study` },
        `What happened to ${service_} latency over the quarter: ${service_} p95 went from 80 to 120 ms as ${service_} traffic doubled.`,
      ),
      [`entities/${service_}`]: pageText(
        { type: "entity", title: service_ },
        `${service_} serves the API and keeps a pool of ${store} connections. ${service_} deploys daily.`,
      ),
    },
  });
  wiki = vault.paths.wiki;
  before = snapshotFiles(wiki);
  service = serviceFor(vault.root);
  expect((await service.reindex({ scope: "all", components: ["lexical"] })).ok).toBe(true);
});

afterAll(async () => {
  await closeServices();
  removeTempDirs();
});

const first = async (query: string) =>
  (await service.recall({ query, refreshIndex: false })).results[0]?.id;

describe("a vault of hand-written notes, organised by folder", () => {
  it("answers a why with the decision, a how with the runbook, a what happened with the incident", async () => {
    expect(await first(`why did we pick ${store}`)).toBe(`decisions/${store}-over-${rival}`);
    expect(await first(`how do I restore ${store}`)).toBe(`runbooks/restore-${store}`);
    expect(await first(`what happened with ${service_}`)).toBe(
      `incidents/${day}-${service_}-outage`,
    );
  });

  it("answers from a page of an evidence type that reached the floor without calling it weak", async () => {
    const result = await service.recall({ query: `${benchmark} load test`, refreshIndex: false });
    expect(result.results[0]).toMatchObject({
      id: `decisions/${store}-over-${rival}`,
      part: "unpromoted",
    });
    expect(result.results[0]?.weak).toBeUndefined();
    expect(renderRecallResult(result).split("\n")[0]).not.toContain("confidence floor");
  });

  it("takes the kind of answer a page is from a folder named for it, typed or not", () => {
    const kindsIn = (folder: string, text: string) => {
      const id = `${folder}/${randomWord(5, 8)}`;
      const parsed = parsePage(id, `wiki/${id}.md`, new TextEncoder().encode(text));
      if (!parsed.ok) throw new Error(`${id} rejected`);
      return [...pageKinds(parsed.page)];
    };
    const plain = `# ${randomWord(5, 8)}\n\n${randomWord(5, 8)}.\n`;
    const typed = pageText({ type: "analysis", title: randomWord(5, 8) }, "text");
    for (const text of [plain, typed]) {
      expect(kindsIn("incidents", text)).toContain("incident");
      expect(kindsIn("postmortems", text)).toContain("incident");
      expect(kindsIn("decisions", text)).toContain("decision");
      expect(kindsIn("adrs", text)).toContain("decision");
      expect(kindsIn("runbooks", text)).toContain("howto");
      expect(kindsIn(randomWord(5, 8), text)).not.toContain("incident");
    }
  });

  it("is read as its folders say, and lint asks for each type without touching a file", async () => {
    const byType = service.status().vault?.byType ?? {};
    expect(byType).toMatchObject({ decision: 1, skill: 1, analysis: 2, entity: 2 });
    const report = await service.lint({});
    const missing = (report.vaults[0]?.findings ?? []).filter(
      (f) => f.code === "page_missing_type",
    );
    expect(missing.map((f) => [f.path, f.severity]).sort()).toEqual(
      [
        [`wiki/decisions/${store}-over-${rival}.md`, "warning"],
        [`wiki/incidents/${day}-${service_}-outage.md`, "warning"],
        [`wiki/runbooks/restore-${store}.md`, "warning"],
      ].sort(),
    );
    const after = snapshotFiles(wiki);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
  });
});

describe("a title with a qualifier in brackets", () => {
  it("names its page by the words before the brackets too: a question about Redis names the page titled Redis (ElastiCache)", async () => {
    const name = randomWord(6, 9);
    const vault = makeTempVault({
      pages: {
        [`entities/${name}-cluster`]: pageText(
          { type: "entity", title: `${name} (${randomWord(6, 9)})` },
          `Runs ${name} 7 on three nodes.`,
        ),
        // Pages saying the asked words more often, the name once.
        "skills/restore": pageText(
          { type: "skill", title: "Restore the database" },
          `Pick the instance type, then the instance size; the instance type is on the ${name} dashboard.`,
        ),
      },
    });
    const own = serviceFor(vault.root);
    expect((await own.reindex({ scope: "all", components: ["lexical"] })).ok).toBe(true);
    const result = await own.recall({ query: `what instance type is ${name} on` });
    const entity = result.results.find((r) => r.id === `entities/${name}-cluster`);
    expect(entity?.named).toBe(true);
    // Named, it answers an unasked prompt about it as well.
    const auto = await own.recall({ query: `is ${name} healthy`, policy: "automatic" });
    expect(auto.results.map((r) => r.id)).toContain(`entities/${name}-cluster`);
  });
});
