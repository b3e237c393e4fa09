/**
 * What the agent writes is memory: a draft that declares it supersedes a
 * stable page (written with `llm-wiki page --relation supersedes:…` or
 * `wiki_ensure_page`, so a draft) does not retire it, and is not lost
 * either. The next recall about the rule shows the stable page as the card
 * and the draft beside it as a proposed replacement, through the CLI (text
 * and JSON, asked and automatic), the MCP server and Pi alike; a question
 * only the draft answers gets the draft; lint asks a person to decide, and
 * its repair settles it. A stable, human-reviewed successor still retires
 * the old rule. All on a copy of the example vault, every host a real one.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { RecallItem, RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCli } from "./helpers/cli.ts";
import { isolatedHosts } from "./helpers/isolated-hosts.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { startPi, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord } from "./helpers/random-text.ts";
import { copyExampleVault, makeTempDir } from "./helpers/temp-vault.ts";

/** The example vault's current retry rule (stable): outbox flushes back off, capped at 30 s. */
const RULE = "concepts/offline-first";
const DRAFT = "concepts/outbox-retry-backoff";
const TITLE = "Outbox retry backoff";
const QUESTION = "what is the retry backoff for outbox flushes";
const PROPOSED_HEADING = `#### proposed replacement (draft, not yet reviewed): ${TITLE}`;

const { clients, sessions } = isolatedHosts("llm-wiki-draft-supersession-home-");

/** A copy of the example vault (no index yet) and a home of its own for the CLI. */
function vault(): { root: string; env: Record<string, string> } {
  const root = copyExampleVault(join(makeTempDir("llm-wiki-draft-supersession-"), "acme-notes"));
  const home = makeTempDir("llm-wiki-draft-supersession-cli-home-");
  return { root, env: { HOME: home, WIKI_HOME: home, XDG_CACHE_HOME: join(home, ".cache") } };
}

/** The draft's text: the new rule, with a word of this run only a question about it can match. */
const draftContent = (marker: string) =>
  `Failed outbox flushes back off exponentially with full jitter, capped at 60 s instead of the 30 s in [[${RULE}]]; the ${marker} header always wins.\n`;

function cli(root: string, env: Record<string, string>, args: string[]) {
  const run = runCli([...args, "--vault", root], { cwd: root, env });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

/** `llm-wiki page … --relation supersedes:RULE` as a person or an agent runs it. */
function writeDraftWithCli(root: string, env: Record<string, string>, marker: string): void {
  const written = JSON.parse(
    cli(root, env, [
      "page",
      "--json",
      "--type",
      "concept",
      "--title",
      TITLE,
      "--content",
      draftContent(marker),
      "--relation",
      `supersedes:${RULE}`,
    ]),
  ) as Record<string, unknown>;
  expect(written).toMatchObject({ ok: true, created: true, id: DRAFT });
}

function recallJson(
  root: string,
  env: Record<string, string>,
  query: string,
  auto = false,
): RecallResult {
  return JSON.parse(
    cli(root, env, ["recall", query, "--json", ...(auto ? ["--auto"] : [])]),
  ) as RecallResult;
}

const byId = (results: readonly RecallItem[], id: string) => results.find((r) => r.id === id);

/** The stable rule is the card, the draft right after it in its bundle as a proposed replacement. */
function expectProposedBeside(result: RecallResult): void {
  const ids = result.results.map((r) => r.id);
  const rule = byId(result.results, RULE);
  const draft = byId(result.results, DRAFT);
  expect(rule, ids.join(" ")).toMatchObject({ part: "card", freshness: "current" });
  expect(rule?.successor).toBeUndefined();
  expect(rule?.declaredBy).toBeUndefined();
  expect(draft, ids.join(" ")).toMatchObject({
    part: "proposed",
    bundle: rule?.bundle,
    status: "draft",
    freshness: "current",
    relation: { type: "supersedes", direction: "in", pending: true },
    proposes: [RULE],
  });
  expect(ids.indexOf(DRAFT)).toBe(ids.indexOf(RULE) + 1);
  // Both pages are in the block a model receives, the rule still current.
  expect(result.renderedPages).toEqual(
    expect.arrayContaining([`project:${RULE}`, `project:${DRAFT}`]),
  );
  expect(result.rendered).toContain(PROPOSED_HEADING);
  expect(result.rendered).toContain(`id: ${DRAFT}`);
  expect(result.rendered).toContain("would supersede the card once a person accepts it");
  expect(result.rendered).not.toContain("HISTORICAL");
}

/** A question only the draft answers: the draft is the card, labelled as a proposal. */
function expectDraftAnswers(result: RecallResult): void {
  expect(result.results.map((r) => [r.id, r.part])).toEqual([[DRAFT, "card"]]);
  expect(result.results[0]).toMatchObject({ status: "draft", proposes: [RULE] });
  expect(result.rendered).toContain(`${TITLE} (concept, draft, proposed replacement for ${RULE}`);
}

/** Which page is where, as every host must answer alike. */
const shape = (result: RecallResult) =>
  result.results.map((r) => [r.id, r.bundle, r.part, r.freshness, r.proposes ?? null]);

describe("a draft that supersedes a stable page (CLI)", () => {
  it("is shown beside the stable card as a proposed replacement, asked and automatic, text and JSON", () => {
    const { root, env } = vault();
    const marker = randomWord(8, 12);
    cli(root, env, ["reindex"]);
    writeDraftWithCli(root, env, marker);

    for (const auto of [false, true]) {
      expectProposedBeside(recallJson(root, env, QUESTION, auto));
      const text = cli(root, env, ["recall", QUESTION, ...(auto ? ["--auto"] : [])]);
      expect(text).toMatch(
        new RegExp(
          `\\n {2}\\d+\\. ${DRAFT} {2}${TITLE} {2}\\[concept\\] proposed \\(would supersede the card once a person accepts it\\)`,
        ),
      );
      expect(text).toContain(PROPOSED_HEADING);
      // Only the draft knows this: it answers, as its own card.
      expectDraftAnswers(recallJson(root, env, `which ${marker} header wins`, auto));
    }
  });

  it("is a lint finding asking a person to decide, and its repair settles it", () => {
    const { root, env } = vault();
    writeDraftWithCli(root, env, randomWord(8, 12));
    const lint = () =>
      (
        JSON.parse(cli(root, env, ["lint", "--json"])) as {
          vaults: Array<{ findings: Array<Record<string, string>> }>;
        }
      ).vaults[0]?.findings.filter((f) => f.code === "supersedes_unreviewed") ?? [];
    const [finding, ...more] = lint();
    expect(more).toEqual([]);
    expect(finding).toMatchObject({
      severity: "warning",
      path: `wiki/${DRAFT}.md`,
      target: RULE,
    });
    expect(finding?.message).toContain("A person decides");
    const accept = `llm-wiki resolve-conflict --selected ${DRAFT} --other ${RULE} --relation supersedes`;
    const keep = `llm-wiki resolve-conflict --selected ${RULE} --other ${DRAFT} --relation supersedes`;
    expect(finding?.repair).toContain(accept);
    expect(finding?.repair).toContain(keep);

    // The person accepts the draft: the rule retires, nothing is proposed any more.
    cli(root, env, accept.split(" ").slice(1));
    expect(lint()).toEqual([]);
    const accepted = recallJson(root, env, QUESTION);
    expect(byId(accepted.results, DRAFT)?.part).toBe("card");
    expect(byId(accepted.results, RULE)).toMatchObject({
      freshness: "historical",
      successor: DRAFT,
    });
    expect(accepted.results.some((r) => r.part === "proposed")).toBe(false);
  });

  it("a stable, human-reviewed successor retires the rule, with no proposal and no lint finding", () => {
    const { root, env } = vault();
    const successor = "concepts/outbox-retry-backoff-reviewed";
    writeFileSync(
      join(root, ".llm-wiki", "wiki", `${successor}.md`),
      [
        "---",
        "type: concept",
        `title: "${TITLE}, reviewed"`,
        "status: stable",
        "updated: 2026-04-02",
        'verified: [{by: "human:maintainer", at: 2026-04-02}]',
        `relations: [{target: ${RULE}, type: supersedes}]`,
        "---",
        draftContent(randomWord(8, 12)),
      ].join("\n"),
    );
    cli(root, env, ["reindex"]);
    for (const auto of [false, true]) {
      const result = recallJson(root, env, QUESTION, auto);
      expect(byId(result.results, successor)?.part).toBe("card");
      const rule = byId(result.results, RULE);
      if (rule || !auto) {
        expect(rule).toMatchObject({ freshness: "historical", successor });
        expect(rule?.declaredBy?.page).toBe(successor);
      }
      expect(result.results.some((r) => r.part === "proposed" || r.proposes)).toBe(false);
    }
    const lint = JSON.parse(cli(root, env, ["lint", "--json"])) as {
      vaults: Array<{ findings: Array<{ code: string }> }>;
    };
    expect(lint.vaults[0]?.findings.map((f) => f.code)).not.toContain("supersedes_unreviewed");
  });
});

describe("a draft that supersedes a stable page (MCP and Pi)", () => {
  it("the MCP server's wiki_recall answers as the CLI does", async () => {
    const { root, env } = vault();
    const marker = randomWord(8, 12);
    cli(root, env, ["reindex"]);
    writeDraftWithCli(root, env, marker);
    const viaCli = recallJson(root, env, QUESTION);

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", root],
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-draft-supersession", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    const recall = async (query: string) =>
      metaResult<RecallResult>(
        (await client.callTool({ name: "wiki_recall", arguments: { query } })) as CallToolResult,
      );
    const viaMcp = await recall(QUESTION);
    expectProposedBeside(viaMcp);
    expect(shape(viaMcp)).toEqual(shape(viaCli));
    expectDraftAnswers(await recall(`which ${marker} header wins`));
  });

  it("in Pi, the draft the agent wrote with wiki_ensure_page is beside the rule on the next turn", async () => {
    const { root } = vault();
    const marker = randomWord(8, 12);
    const indexing = createWikiService({ cwd: root });
    try {
      expect((await indexing.reindex({ scope: "all" })).ok).toBe(true);
    } finally {
      await indexing.close();
    }
    // Automatic recall alone: session priming has its own specs.
    const scratch = makeTempDir("llm-wiki-draft-supersession-pi-");
    const agentDir = join(scratch, "agent");
    mkdirSync(agentDir);
    writeFileSync(
      join(agentDir, "settings.json"),
      `${JSON.stringify({ "llm-wiki": { sessionPriming: false } })}\n`,
    );
    const pi = await startPi({ root: scratch, agentDir, project: root });
    sessions.push(pi);

    // Turn 1: the agent writes the new rule (a draft) that supersedes the old one.
    pi.script(
      [
        fauxToolCall("wiki_ensure_page", {
          type: "concept",
          title: TITLE,
          content: draftContent(marker),
          relations: [{ type: "supersedes", target: RULE }],
        }),
      ],
      "Noted.",
    );
    await pi.session.prompt("remember the new outbox retry rule");
    expect(toolResults(pi.session)[0]?.details).toMatchObject({ ok: true, id: DRAFT });

    // Turn 2: a question about retries. Automatic recall, then the agent asks itself.
    pi.script([fauxToolCall("wiki_recall", { query: QUESTION })], "Both are shown.");
    await pi.session.prompt(QUESTION);
    // The model's first request of this turn: the prompt, then what recall injected.
    const turn = pi.requests[2] ?? [];
    const prompt = turn.findLastIndex((m) => m.role === "user" && textOf(m) === QUESTION);
    expect(prompt).toBeGreaterThanOrEqual(0);
    const injected = turn
      .slice(prompt + 1)
      .map(textOf)
      .find((t) => t.startsWith("<wiki-recall"));
    expect(injected).toContain(PROPOSED_HEADING);
    expect(injected).toContain(`id: ${RULE}`);
    expect(injected?.indexOf(`id: ${RULE}`)).toBeLessThan(injected?.indexOf(`id: ${DRAFT}`) ?? 0);
    const asked = toolResults(pi.session).at(-1)?.details as unknown as RecallResult;
    expectProposedBeside(asked);
  });
});
