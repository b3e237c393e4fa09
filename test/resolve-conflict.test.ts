/**
 * `resolveConflict` in the service, on real temporary vaults: one immutable
 * resolution page per decision under `wiki/analyses/`, the claim pages left
 * byte for byte as they were, the same decision again a no-op, a changed
 * choice only by naming the active resolution in `replaces`, and every
 * refusal a diagnostic with nothing written. Page ids, titles and hostile
 * inputs are generated afresh on each run.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decisionVaultOf } from "../extensions/llm-wiki/lib/vault/config.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { activeResolutions, pairKey } from "../extensions/llm-wiki/lib/vault/resolutions.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import type { ResolveConflictResult } from "../extensions/llm-wiki/lib/writing/record-resolution.ts";
import type { ResolveConflictInput } from "../extensions/llm-wiki/lib/writing/resolve-conflict.ts";
import { closeServices, indexStatus, serviceFor } from "./helpers/index-services.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { corpusSeedNote, secretCorpus } from "./helpers/secret-corpus.ts";
import { leaksUnder } from "./helpers/secret-scan.ts";
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

interface Claims {
  vault: TempVault;
  service: WikiService;
  a: { id: string; title: string };
  b: { id: string; title: string };
}

/** A project vault with two conflicting claims of random names (and a third page). */
function claims(): Claims {
  const a = { id: `concepts/${randomWord()}-a`, title: `${randomWords(2)} A` };
  const b = { id: `concepts/${randomWord()}-b`, title: `${randomWords(2)} B` };
  const vault = makeTempVault({
    config: { name: "claims", vault_id: `vault-${randomWord()}` },
    pages: {
      [a.id]: pageText({ type: "concept", title: a.title }, `# ${a.title}\n\nTTL is 5 minutes.\n`),
      [b.id]: pageText({ type: "concept", title: b.title }, `# ${b.title}\n\nTTL is 1 hour.\n`),
      "concepts/third": pageText({ type: "concept", title: "Third" }, "# Third\n"),
    },
  });
  return { vault, service: serviceFor(vault.root), a, b };
}

function input(c: Claims, extra: Partial<ResolveConflictInput> = {}): ResolveConflictInput {
  return {
    vault: "project",
    selected_page_id: c.a.id,
    other_page_id: c.b.id,
    relation: "supersedes",
    ...extra,
  };
}

/** The claim pages' bytes, to prove they are never touched. */
function claimBytes(c: Claims): Buffer[] {
  return [c.vault.pageFile(c.a.id), c.vault.pageFile(c.b.id)].map((f) => readFileSync(f));
}

function analyses(c: Claims): string[] {
  const dir = join(c.vault.paths.wiki, "analyses");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function refused(result: ResolveConflictResult, code: string): void {
  expect(result.ok, JSON.stringify(result)).toBe(false);
  expect(result.diagnostics).toHaveLength(1);
  expect(result.diagnostics[0]).toMatchObject({ code, severity: "error" });
  expect(result.created).toBeUndefined();
}

describe("resolveConflict", () => {
  it("writes one resolution page that parses back to the same record and links both claims", async () => {
    const c = claims();
    const before = claimBytes(c);
    const rationale = `Measured ${randomWords(3)} in production.`;
    const result = await c.service.resolveConflict(input(c, { rationale }));

    expect(result).toMatchObject({ ok: true, created: true, vault: "project", diagnostics: [] });
    expect(result.id).toMatch(/^analyses\/conflict-resolution-[0-9a-f]{16}$/);
    expect(result.path).toBe(`wiki/${result.id}.md`);
    expect(result.resolution).toMatchObject({
      id: result.id?.slice("analyses/".length),
      selected: c.a.id,
      other: c.b.id,
      relation: "supersedes",
      decidedBy: "user",
    });
    expect(result.resolution?.scope).toBeUndefined();
    expect(result.resolution?.replaces).toBeUndefined();
    expect(claimBytes(c)).toEqual(before);

    const id = result.id as string;
    const bytes = readFileSync(join(c.vault.paths.dir, result.path as string));
    const parsed = parsePage(id, result.path as string, bytes);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.page.resolution).toEqual(result.resolution);
    expect(parsed.page).toMatchObject({ type: "analysis", role: "canonical", status: "stable" });
    expect(parsed.page.frontmatter).toMatchObject({
      category: "conflict-resolution",
      resolution: { scope: null, replaces: null, decided_by: "user" },
    });
    const [, aSlug] = c.a.id.split("/");
    const [, bSlug] = c.b.id.split("/");
    expect(parsed.page.body).toContain(`[${c.a.title}](../concepts/${aSlug}.md)`);
    expect(parsed.page.body).toContain(`[${c.b.title}](../concepts/${bSlug}.md)`);
    expect(parsed.page.body).toContain(rationale);

    // Ordinary links the registry resolves: both claims now have a backlink.
    const [vault] = c.service.resolveVaults("project");
    if (!vault) throw new Error("no vault");
    const reg = c.service.registry(vault);
    expect(reg.links.get(id)).toEqual(expect.arrayContaining([c.a.id, c.b.id]));
    expect(reg.linkProblems.filter((p) => p.from === id)).toEqual([]);
    expect(
      activeResolutions(reg.pages.values(), decisionVaultOf(vault)).get(pairKey(c.a.id, c.b.id))
        ?.page,
    ).toBe(id);

    const kinds = readEvents(c.vault.paths).map((e) => e.kind);
    // The choice is also the strongest recall feedback: conflict_selected for the kept claim.
    expect(kinds).toEqual(["page_created", "conflict_resolved", "recall_feedback"]);
    expect(readEvents(c.vault.paths)[1]).toMatchObject({
      id,
      selected: c.a.id,
      other: c.b.id,
      relation: "supersedes",
    });
    expect(readEvents(c.vault.paths)[2]).toMatchObject({
      action: "conflict_selected",
      page: c.a.id,
      query_hash: null,
      resolution: result.resolution?.id,
    });
  });

  it("is a no-op when the same decision is made again, whatever the rationale or the scope's case", async () => {
    const c = claims();
    const scope = `${randomWords(2)} Clients`;
    const first = await c.service.resolveConflict(
      input(c, { relation: "applies_under", scope, rationale: "first" }),
    );
    expect(first).toMatchObject({ ok: true, created: true });
    const file = join(c.vault.paths.dir, first.path as string);
    const written = readFileSync(file);
    const events = readEvents(c.vault.paths).length;

    const again = await c.service.resolveConflict(
      input(c, {
        relation: "applies_under",
        scope: `  ${scope.toUpperCase().replace(" ", "   ")} `,
        rationale: "said differently",
        selected_page_id: `${c.a.id}.md`,
        other_page_id: `[[${c.b.id}]]`,
      }),
    );
    expect(again).toMatchObject({ ok: true, created: false, id: first.id, path: first.path });
    expect(again.resolution).toEqual(first.resolution);
    expect(again.diagnostics).toMatchObject([{ code: "page_exists", severity: "info" }]);
    expect(readFileSync(file)).toEqual(written);
    expect(analyses(c)).toHaveLength(1);
    expect(readEvents(c.vault.paths)).toHaveLength(events);
  });

  it("refuses a changed choice without replaces, naming the active resolution to replace", async () => {
    const c = claims();
    const first = await c.service.resolveConflict(input(c));
    const active = first.resolution?.id as string;
    const pages = snapshotFiles(c.vault.paths.wiki);

    const flipped = await c.service.resolveConflict(
      input(c, { selected_page_id: c.b.id, other_page_id: c.a.id }),
    );
    refused(flipped, "resolution_exists");
    expect(flipped.diagnostics[0]?.message).toContain(active);
    expect(flipped.diagnostics[0]?.repair).toBe(`--replaces ${active}`);
    expect(snapshotFiles(c.vault.paths.wiki)).toEqual(pages);
  });

  it("follows a replaces chain: each change a new page, the newest active, stale and unknown ids refused", async () => {
    const c = claims();
    const before = claimBytes(c);
    const first = await c.service.resolveConflict(input(c));
    const firstId = first.resolution?.id as string;

    // The page id names the resolution as well as its own id does.
    const second = await c.service.resolveConflict(
      input(c, { relation: "qualifies", replaces: first.id as string }),
    );
    expect(second).toMatchObject({ ok: true, created: true });
    expect(second.resolution).toMatchObject({ relation: "qualifies", replaces: firstId });
    expect(second.id).not.toBe(first.id);
    const vault = c.service.resolveVaults("project")[0];
    if (!vault) throw new Error("no vault");
    const active = () =>
      activeResolutions(c.service.registry(vault).pages.values(), decisionVaultOf(vault)).get(
        pairKey(c.a.id, c.b.id),
      );
    expect(active()?.page).toBe(second.id);
    // Immutable: the first record is still there, unchanged.
    expect(analyses(c)).toHaveLength(2);

    // Repeating the replacement is a no-op; repeating the replaced decision is a change again.
    const repeat = await c.service.resolveConflict(
      input(c, { relation: "qualifies", replaces: firstId }),
    );
    expect(repeat).toMatchObject({ ok: true, created: false, id: second.id });
    const back = await c.service.resolveConflict(input(c));
    refused(back, "resolution_exists");
    expect(back.diagnostics[0]?.repair).toBe(`--replaces ${second.resolution?.id}`);

    const stale = await c.service.resolveConflict(
      input(c, { selected_page_id: c.b.id, other_page_id: c.a.id, replaces: firstId }),
    );
    refused(stale, "resolution_replaces_stale");
    expect(stale.diagnostics[0]?.message).toContain(second.resolution?.id as string);

    const unknown = await c.service.resolveConflict(
      input(c, { replaces: `conflict-resolution-${randomWord(16, 16)}` }),
    );
    refused(unknown, "resolution_replaces_unknown");

    // A resolution of another pair is not this pair's to replace.
    const otherPair = await c.service.resolveConflict(
      input(c, { other_page_id: "concepts/third" }),
    );
    expect(otherPair.created).toBe(true);
    const crossed = await c.service.resolveConflict(
      input(c, { relation: "qualifies", replaces: otherPair.resolution?.id as string }),
    );
    refused(crossed, "resolution_replaces_unknown");

    // Back to the first choice, by replacing the active one: a third record, now active.
    const third = await c.service.resolveConflict(
      input(c, { replaces: second.resolution?.id as string }),
    );
    expect(third).toMatchObject({ ok: true, created: true });
    expect(third.id).not.toBe(first.id);
    expect(active()?.page).toBe(third.id);
    expect(claimBytes(c)).toEqual(before);
  });

  it("refuses identical, missing and out-of-vault pages and misused scopes, writing nothing", async () => {
    const c = claims();
    const personalHome = makeTempDir("llm-wiki-personal-");
    const personal = makeTempVault({ root: personalHome, kind: "personal" });
    const onlyThere = `concepts/${randomWord()}-personal`;
    personal.writePage(onlyThere, pageText({ type: "concept", title: "Personal claim" }, "# P\n"));
    const service = serviceFor(c.vault.root, { home: personalHome, discover: true });
    // Pages and the event log; the registry's cache under meta/ may be refreshed.
    const snapshot = snapshotFiles(c.vault.paths.wiki);
    const cases: Array<[Partial<ResolveConflictInput>, string]> = [
      [{ other_page_id: c.a.id }, "resolution_same_page"],
      [{ other_page_id: `wiki/${c.a.id}.md` }, "resolution_same_page"],
      [{ other_page_id: `concepts/${randomWord()}-missing` }, "resolution_page_missing"],
      [{ other_page_id: onlyThere }, "resolution_cross_vault"],
      [{ selected_page_id: onlyThere }, "resolution_cross_vault"],
      [{ relation: "applies_under" }, "resolution_scope_required"],
      [{ relation: "applies_under", scope: " \t " }, "resolution_scope_required"],
      [{ relation: "supersedes", scope: randomWords(2) }, "resolution_scope_not_allowed"],
      [{ relation: "qualifies", scope: randomWords(2) }, "resolution_scope_not_allowed"],
      [{ relation: "overrides" as never }, "invalid_input"],
    ];
    for (const [extra, code] of cases) {
      const result = await service.resolveConflict(input(c, extra));
      refused(result, code);
    }
    expect(snapshotFiles(c.vault.paths.wiki)).toEqual(snapshot);
    expect(readEvents(c.vault.paths)).toEqual([]);

    // From the personal vault's side, the project's pages are the other vault's.
    const fromPersonal = await service.resolveConflict(
      input(c, { vault: "personal", selected_page_id: onlyThere }),
    );
    refused(fromPersonal, "resolution_cross_vault");
    expect(fromPersonal.diagnostics[0]?.message).toContain("project vault");
  });

  it("refuses hostile page ids and replaces ids (traversal, absolute paths, control bytes, length)", async () => {
    const c = claims();
    const snapshot = snapshotFiles(c.vault.paths.dir);
    const word = randomWord();
    const long = `concepts/${"x".repeat(300 + Math.floor(Math.random() * 5_000))}`;
    const hostile = [
      `../${word}`,
      `concepts/../../${word}`,
      `concepts/./${word}`,
      `/etc/${word}`,
      `C:\\${word}`,
      `concepts\\${word}`,
      `concepts//${word}`,
      `concepts/${word}\u001b[31m`,
      `concepts/${word}\u0000`,
      `concepts/\u202e${word}`,
      `concepts/${word}\nconcepts/x`,
      `concepts/${word}\u{e0041}`,
      "   ",
      long,
    ];
    for (const id of hostile) {
      for (const field of ["selected_page_id", "other_page_id", "replaces"] as const) {
        const result = await c.service.resolveConflict(input(c, { [field]: id }));
        if (field === "replaces" && id.trim() === "") {
          // An empty replaces is no replaces.
          expect(result.ok).toBe(true);
          continue;
        }
        refused(result, "invalid_input");
        expect(result.diagnostics[0]?.message.startsWith(`${field}:`)).toBe(true);
      }
    }
    // Only the one legitimate write (the blank replaces) happened.
    const after = snapshotFiles(c.vault.paths.dir);
    const added = [...after.keys()].filter((k) => !snapshot.has(k));
    expect(added.filter((k) => k.startsWith("wiki/"))).toHaveLength(1);
    for (const [path, bytes] of snapshot) {
      if (path.startsWith("wiki/")) expect(after.get(path), path).toEqual(bytes);
    }
  });

  it("redacts secrets and strips control bytes from the rationale and scope before anything is written", async () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const corpus = secretCorpus(seed);
    const note = corpusSeedNote(seed);
    const c = claims();
    const [token] = corpus;
    if (!token) throw new Error("empty corpus");
    const rationale = [
      `Decided after ${randomWords(2)}.\u001b]8;;http://evil.example\u0007click\u001b]8;;\u0007`,
      `\u202eReversed\u202c and \u0007bell \u0008back`,
      ...corpus.map((s) => s.text),
    ].join("\n");
    const result = await c.service.resolveConflict(
      input(c, {
        relation: "applies_under",
        scope: `deploys with ${token.secret}`,
        rationale,
      }),
    );
    expect(result, note).toMatchObject({ ok: true, created: true });
    expect(Object.values(result.redactions ?? {}).reduce((n, k) => n + k, 0)).toBeGreaterThan(0);
    expect(JSON.stringify(result)).not.toContain(token.secret);
    const text = readFileSync(join(c.vault.paths.dir, result.path as string), "utf8");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them is the point.
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(text).toContain("Reversed and bell back");
    expect(leaksUnder(c.vault.paths.dir, corpus), note).toEqual([]);
  });

  it("indexes the new page, and keeps it when the index cannot be updated (reported as stale)", async () => {
    const c = claims();
    const built = await c.service.reindex({ scope: "all" });
    expect(built.ok).toBe(true);
    const documents = indexStatus(c.service).documents;

    const result = await c.service.resolveConflict(input(c));
    expect(result).toMatchObject({ ok: true, created: true, indexed: true, diagnostics: [] });
    expect(indexStatus(c.service)).toMatchObject({
      state: "ready",
      documents: documents + 1,
      pending: 0,
    });

    // A folder where the index lock belongs: the index cannot be written.
    mkdirSync(join(c.vault.paths.meta, "index.lock"));
    const next = await c.service.resolveConflict(
      input(c, { relation: "qualifies", replaces: result.resolution?.id as string }),
    );
    expect(next).toMatchObject({ ok: true, created: true, indexed: false });
    expect(next.diagnostics).toMatchObject([
      { code: "index_stale", severity: "warning", repair: "llm-wiki reindex", path: next.path },
    ]);
    expect(existsSync(join(c.vault.paths.dir, next.path as string))).toBe(true);
  });

  it("answers vault_not_found for a vault that does not exist", async () => {
    const c = claims();
    const service = serviceFor(c.vault.root, { discover: true });
    const result = await service.resolveConflict(input(c, { vault: "personal" }));
    refused(result, "vault_not_found");
  });
});
