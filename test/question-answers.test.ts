/**
 * The questions people ask their memory reach the page that answers them,
 * without models: "why did we choose X" finds the decision record about X,
 * not the entity page named X nor a page holding the rare word "choose";
 * "who owns X" finds the entity; a recorded session about X never pushes
 * the decision out; explicit recall never answers "nothing" when pages
 * match (its best candidates come back marked weak) while automatic recall
 * stays silent. Through the CLI, the MCP server and a Pi session alike, on
 * a vault whose names are drawn afresh on every run.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecallResult } from "../extensions/llm-wiki/lib/recall-operation.ts";
import { pageKinds } from "../extensions/llm-wiki/lib/retrieval/page-kind.ts";
import { readQuestion } from "../extensions/llm-wiki/lib/retrieval/question-intent.ts";
import type { PageMeta } from "../extensions/llm-wiki/lib/vault/page.ts";
import { runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { piPerTest, textOf } from "./helpers/pi-session.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const cap = (w: string) => w[0]?.toUpperCase() + w.slice(1);

/** A vault of a team's notes about a subject drawn at random. */
function writeVault(root: string, subject: string, other: string, gate: string) {
  const page = (id: string, text: string) => {
    const file = join(root, ".llm-wiki", "wiki", `${id}.md`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  mkdirSync(join(root, ".llm-wiki"), { recursive: true });
  writeFileSync(
    join(root, ".llm-wiki", "config.json"),
    JSON.stringify({ name: "team", topic: "a build service", mode: "project" }),
  );
  const ids = {
    entity: `entities/${subject}-cluster`,
    decision: `syntheses/adr-007-${subject}-over-${other}`,
    checklist: "skills/release-steps",
    session: "trajectories/TRJ-2026-03-02-001",
    gateway: `entities/${gate}-gateway`,
    gatewayDecision: `syntheses/adr-009-read-only-${gate}-gateway`,
    backpressure: "concepts/backpressure",
    retention: `requirements/${subject}-event-retention`,
    review: `sources/meeting-2026-01-27-${other}-review`,
  };
  page(
    ids.entity,
    `---\ntype: entity\ntitle: "${cap(subject)} cluster"\naliases: [${subject}]\ndescription: "The ${subject} cluster that carries the build events."\nstatus: stable\ncreated: 2026-01-10\n---\n\n# ${cap(subject)} cluster\n\nOwner: platform team. Three brokers run ${subject} 3.7; ${subject} topics hold seven days of events.\nConsumers read ${subject} through the shared client library; lag above 10k pages the on-call.\n`,
  );
  page(
    ids.decision,
    `---\ntype: synthesis\ntitle: "ADR-007: ${cap(subject)} over ${cap(other)} for build events"\ntags: [adr]\nstatus: stable\ncreated: 2026-02-01\nsources: ["[[${ids.review}]]"]\n---\n\n# ADR-007: ${cap(subject)} over ${cap(other)} for build events\n\nWe went with ${subject}: replay of the last week of events, ordering per build and consumer groups.\n${cap(other)} kept messages only until acknowledged, so a new consumer could not replay history.\n`,
  );
  page(
    ids.checklist,
    `---\ntype: skill\ntitle: "Release steps"\nstatus: stable\ncreated: 2026-01-20\n---\n\n# Release steps\n\n1. Choose the version number.\n2. Tag and build.\n3. Drain the ${subject} consumers before restarting each worker.\n4. Drop the stale build caches.\n`,
  );
  page(
    ids.session,
    `---\ntype: trajectory\ntitle: "Set up a ${subject} consumer for the notifier"\ndescription: "Wire the notifier to ${subject}."\ntags: [trajectory, ${subject}]\noutcome: failure\nstep_count: 3\ntool_call_count: 1\ncreated: 2026-03-02\n---\n\n# Set up a ${subject} consumer for the notifier\n\n1. User: why did we choose ${subject} for the notifier events, and wire it up\n2. **\`bash\`** \`{"command":"make ${subject}-consumer"}\` → error: \`no rule to make target\`\n`,
  );
  page(
    ids.gateway,
    `---\ntype: entity\ntitle: "${cap(gate)} gateway"\ndescription: "The gateway in front of the build caches."\nstatus: stable\ncreated: 2026-01-12\n---\n\n# ${cap(gate)} gateway\n\nThe ${gate} gateway takes writes from the build workers and reads from everyone.\nDevelopers reach the ${gate} gateway through the internal proxy; writes need the worker role.\n\n| setting | value |\n|---|---|\n| \`${gate}.max_inflight\` | 64 |\n`,
  );
  page(
    ids.gatewayDecision,
    `---\ntype: synthesis\ntitle: "ADR-009: read-only ${cap(gate)} gateway for laptops"\ntags: [adr]\nstatus: stable\ncreated: 2026-02-10\n---\n\n# ADR-009: read-only ${cap(gate)} gateway for laptops\n\nOnly the build workers write; a laptop that wrote once poisoned the shared state for a day.\n`,
  );
  page(
    ids.backpressure,
    `---\ntype: concept\ntitle: "Backpressure"\nstatus: stable\ncreated: 2026-01-15\n---\n\n# Backpressure\n\nWhen the workers fall behind, writes queue at the gateway: \`${gate}.max_inflight\` caps how many are in flight, and the rest wait.\nRaising \`${gate}.max_inflight\` moves the queue into the workers; lowering \`${gate}.max_inflight\` moves it to the callers.\n`,
  );
  page(
    ids.retention,
    `---\ntype: requirement\ntitle: "Build event retention"\nstatus: stable\ncreated: 2026-02-20\n---\n\n# Build event retention\n\nBuild events are kept for fourteen days since February; seven days was too short to replay a release.\n`,
  );
  page(
    ids.review,
    `---\ntype: source\ntitle: "Meeting notes: ${other} review, 2026-01-27"\nstatus: stable\ncreated: 2026-01-27\n---\n\n# Meeting notes: ${other} review\n\nThe ${other} queue lost a day of build events when a consumer fell behind.\nOptions: tune ${other} retention, or move the build events to ${subject}. Follow-up: write the ADR.\n`,
  );
  const bodyWords: string[] = [];
  for (let i = 0; i < 8; i += 1) {
    const word = randomWord(6, 10);
    const written = randomWord(6, 10);
    bodyWords.push(written);
    page(
      `concepts/${word}`,
      `---\ntype: concept\ntitle: "${cap(word)}"\nstatus: stable\ncreated: 2026-01-0${(i % 9) + 1}\n---\n\n# ${cap(word)}\n\nThe ${word} stage reads its input from ${subject} and writes ${written} files.\n`,
    );
  }
  return { ...ids, bodyWords };
}

let root: string;
let subject: string;
let other: string;
let gate: string;
let ids: ReturnType<typeof writeVault>;
const env = childEnv({ NO_COLOR: "1" });

beforeAll(() => {
  root = makeTempDir("llm-wiki-questions-");
  subject = randomWord(6, 9);
  other = randomWord(6, 9);
  gate = randomWord(6, 9);
  ids = writeVault(root, subject, other, gate);
  // Drawn afresh each run: named so that a failing run can be replayed by hand.
  process.stderr.write(`[question-answers] subject ${subject}, other ${other}, gate ${gate}\n`);
  const built = runCli(["reindex", "--vault", root], { env });
  expect(built.status, built.stderr).toBe(0);
});
afterAll(() => removeTempDirs());

const recall = (question: string, ...flags: string[]): RecallResult => {
  const run = runCli(["recall", ...flags, question, "--json", "--vault", root], { env });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as RecallResult;
};
const cards = (r: RecallResult) => r.results.filter((x) => x.part === "card").map((x) => x.id);

describe("reading a question: its intent and its subject", () => {
  it("takes the words of intent out of the subject and names the kind of page asked for", () => {
    const x = randomWord(5, 9);
    const y = randomWord(5, 9);
    const cases: Array<[string, string | undefined]> = [
      [`why did we choose ${x}`, "decision"],
      [`what did we decide about ${x}`, "decision"],
      // Verbs of a changed decision say the intent, not the subject.
      [`why did we drop ${x}`, "decision"],
      [`why did we switch to ${x}`, "decision"],
      [`why did we move away from ${x}`, "decision"],
      [`why did we replace ${x}`, "decision"],
      [`why ${x} and not ${y}`, "decision"],
      [`who owns ${x}`, "owner"],
      [`how do I rotate the ${x} keys`, "howto"],
      [`what happened with the ${x} outage`, "incident"],
      [`how did we fix ${x} last time`, "repeat"],
      [`give me the big picture of ${x}`, "overview"],
      [`how long can someone keep ${x} offline`, "requirement"],
      [`what did we find when we profiled ${x}`, "finding"],
      // Where something goes: the closing verb asks, it names nothing ("go" is a language).
      [`where do the ${x} logs go`, "location"],
      [`where does ${x} end up`, "location"],
      // A setting's value is on the page of the component that owns it.
      [`what is ${x}.max_inflight set to`, "setting"],
      [`what's the default value of ${x} retries`, "setting"],
      [`how many partitions does ${x} have`, "setting"],
      [`how many pro ${x} subscribers do we have`, "setting"],
      // A component's figure is on its page; a rule about it is a requirement.
      [`how long does the ${x} wait for an answer`, "setting"],
      [`how often does the ${x} recompute limits`, "setting"],
      [`how long do we keep ${x} logs`, "requirement"],
      [`how fast do ${x} records have to reach partners`, "requirement"],
      [`how much does the ${x} fleet cost`, "requirement"],
      // Whether a rule or a choice holds today: the current requirement or decision.
      [`do we still keep ${x} logs for 90 days`, "current"],
      [`are ${x} tides still computed on the server`, "current"],
      [`which ${x} phones do we still support`, "current"],
      // Whether a rule allows it, then how: "can I …" opening the question.
      [`can I log the ${x} phone number for debugging`, "permission"],
      [`can we make a ${x} field nullable`, "permission"],
      [`how can I make a ${x} field nullable`, "howto"],
      // Whether something really works asks for what was measured.
      [`do ${x} reminders actually reduce no-shows`, "finding"],
      // What bit the team is an incident.
      [`that thing where ${x} bit us`, "incident"],
      [`what was wrong with the ${x} in october`, "incident"],
      [`recent ${x} problems`, "incident"],
      [`who's responsible for the ${x}`, "owner"],
      [`who is in charge of ${x}`, "owner"],
      // Any other "why" asks for a rationale or what went wrong.
      [`why does ${x} crash on start`, "why"],
      // Ordinary prompts ask for no kind of page.
      [`write a ${x} query that groups by month`, undefined],
      [`the ${x} tooltip gets cut off at the edge of the screen`, undefined],
      [`the ${x} check is still yellow after the build finished`, undefined],
    ];
    for (const [question, intent] of cases) {
      const read = readQuestion(question);
      expect(read.intent?.name, question).toBe(intent);
      expect(read.subject, question).toContain(x);
      if (intent === undefined) continue;
      for (const w of [
        "choose",
        "decide",
        "drop",
        "switch",
        "move",
        "replace",
        "go",
        "owns",
        "outage",
        "happened",
        "picture",
        "someone",
        "set",
      ])
        expect(read.subject.split(" "), question).not.toContain(w);
    }
    // Read with its time words, the question keeps its intent: the subject has them out.
    const timed = readQuestion(`what came out ${x} review`, `what came out of the Q3 ${x} review`);
    expect(timed.intent?.name).toBe("decision");
    expect(timed.subject.split(" ")).not.toContain("came");
    expect(timed.subject).toContain(x);
    // Nothing but intent: searched as asked.
    expect(readQuestion("what did we decide").subject).toBe("what did we decide");
    // An instruction is told from a question to memory, and from a keyword lookup.
    expect(readQuestion(`write a ${x} query that groups by month`).instruction).toBe(true);
    expect(readQuestion(`move the ${x} producer setup into its own package`).instruction).toBe(
      true,
    );
    expect(readQuestion(`test the ${x} reconnect logic`).instruction).toBe(true);
    expect(readQuestion(`test passes locally but fails in ${x}`).instruction).toBeUndefined();
    expect(readQuestion(`${x} cache ttl`).instruction).toBeUndefined();
    // "go" that names the language stays the subject.
    expect(readQuestion(`where do we pin the go version for ${x}`).subject).toContain("go");
    expect(readQuestion(`why did we choose ${x}`).instruction).toBeUndefined();
  });

  it("tells the kind of a page from its type, title, tags and description", () => {
    const meta = (fields: Partial<PageMeta>): PageMeta => ({
      id: "x/y",
      path: "wiki/x/y.md",
      type: "note",
      role: "canonical",
      title: "Y",
      aliases: [],
      tags: [],
      sources: [],
      recallTriggers: [],
      ...fields,
    });
    expect(pageKinds(meta({ type: "synthesis", title: "ADR-3: Kafka over RabbitMQ" }))).toContain(
      "decision",
    );
    expect(pageKinds(meta({ type: "decision" }))).toContain("decision");
    expect(pageKinds(meta({ type: "analysis", title: "August outage review" }))).toContain(
      "incident",
    );
    expect(pageKinds(meta({ type: "analysis", tags: ["post-mortem"] }))).toContain("incident");
    expect(pageKinds(meta({ type: "skill" }))).toContain("howto");
    expect(pageKinds(meta({ id: "trajectories/TRJ-1", type: "trajectory" }))).toContain("session");
    expect([...pageKinds(meta({ type: "analysis", title: "Latency profile" }))]).toEqual([
      "finding",
    ]);
    expect([...pageKinds(meta({ type: "note", title: "Latency" }))]).toEqual([]);
  });
});

describe("questions of intent reach the page that answers them (CLI)", () => {
  it("why did we choose X: the decision record first, never the page with the rare word", () => {
    for (const q of [
      `why did we choose ${subject}`,
      `what did we decide about ${subject}`,
      // "drop" is a rare word of the checklist; the question is about leaving the other system.
      `why did we drop ${other}`,
    ]) {
      const answer = recall(q);
      expect(cards(answer)[0], q).toBe(ids.decision);
      expect(cards(answer).indexOf(ids.checklist), q).not.toBe(0);
    }
  });

  it("why X and not Y: the decision before the entity page named X", () => {
    const order = cards(recall(`why ${subject} and not ${other}`));
    expect(order[0]).toBe(ids.decision);
  });

  it("why can't we … the X gateway: the decision whose title holds that name, before the page named by it", () => {
    const order = cards(recall(`why can't developers write to the ${gate} gateway`));
    expect(order[0]).toBe(ids.gatewayDecision);
    expect(order).toContain(ids.gateway);
  });

  it("what is X set to: the page of the component that owns the setting, before a concept naming it", () => {
    const order = cards(recall(`what is ${gate}.max_inflight set to`));
    expect(order[0]).toBe(ids.gateway);
    expect(order).toContain(ids.backpressure);
  });

  it("do we still X: the current requirement, before the page named by the question", () => {
    const order = cards(recall(`do we still keep ${subject} events for seven days`));
    expect(order[0]).toBe(ids.retention);
    expect(order).toContain(ids.entity);
  });

  it("what came out of X: the decision derived from the page named X, before that page", () => {
    const order = cards(recall(`what came out of the ${other} review meeting`));
    const listed = recall(`what came out of the ${other} review meeting`).results.map((r) => r.id);
    expect(order[0]).toBe(ids.decision);
    expect(listed).toContain(ids.review);
    // Without asking what followed, the page named is the answer.
    expect(recall(`the ${other} review meeting`).results[0]?.id).toBe(ids.review);
  });

  it("who owns X: the entity page", () => {
    expect(cards(recall(`who owns ${subject}`))[0]).toBe(ids.entity);
  });

  it("automatic recall holds the decision, and the recorded session does not push it out", () => {
    const auto = recall(`why did we choose ${subject}`, "--auto");
    expect(auto.renderedPages).toContain(`project:${ids.decision}`);
    expect(auto.results[0]?.id).not.toBe(ids.session);
    expect(auto.rendered).toContain(ids.decision);
  });

  it("a question about doing the task again brings the session back", () => {
    const answer = recall(`how did we set up the ${subject} consumer for the notifier last time`);
    expect(
      answer.results.map((r) => r.id),
      JSON.stringify(answer.results.map((r) => [r.id, r.part, r.score])),
    ).toContain(ids.session);
  });

  it("explicit recall shows weak candidates rather than nothing; automatic stays silent", () => {
    // One word a page's body holds, among words no page holds: a weak match.
    const q = `${randomWord(7, 9)} ${ids.bodyWords[0]} ${randomWord(7, 9)} ${randomWord(7, 9)}`;
    const explicit = recall(q);
    expect(explicit.results.length).toBeGreaterThan(0);
    expect(explicit.results.every((r) => r.weak === true || r.part !== "card")).toBe(true);
    const text = runCli(["recall", q, "--vault", root], { env });
    expect(text.stdout.split("\n")[0]).toContain("no page reached the confidence floor");
    expect(text.stdout).toContain("weak match");
    expect(text.stdout).toContain("WEAK MATCH");
    expect(recall(q, "--auto").results).toEqual([]);
    // Words on no page: still nothing, and said so.
    const none = recall(`${randomWord(8, 10)} ${randomWord(8, 10)}`);
    expect(none.results).toEqual([]);
  });
});

describe("the same answers through MCP and Pi", () => {
  it("MCP wiki_recall puts the decision first and marks weak candidates", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", root],
      env: isolatedEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const call = async (query: string) => {
        const r = (await client.callTool({
          name: "wiki_recall",
          arguments: { query },
        })) as CallToolResult;
        expect(r.isError).toBeFalsy();
        const first = r.content[0];
        return first?.type === "text" ? first.text : "";
      };
      const text = await call(`why did we choose ${subject}`);
      expect(text.split("\n").find((l) => /^\d+\. /.test(l))).toMatch(
        new RegExp(`^1\\. ${ids.decision} `),
      );
      const weak = await call(`${randomWord(7, 9)} ${ids.bodyWords[1]} ${randomWord(7, 9)}`);
      expect(weak).toContain("weak match");
    } finally {
      await client.close();
    }
  });

  const fixture = piPerTest("llm-wiki-questions-pi-");
  it("Pi's automatic recall carries the decision for 'why did we choose X'", async () => {
    writeVault(fixture.dirs.project, subject, other, gate);
    const pi = await fixture.start();
    pi.script("ok");
    await pi.session.prompt(`why did we choose ${subject}?`);
    await pi.session.waitForIdle();
    const block = (pi.requests[0] ?? ([] as Message[]))
      .filter((m) => m.role === "user" && textOf(m).startsWith("<wiki-recall"))
      .map(textOf)
      .join("\n");
    expect(block).toContain(ids.decision);
    // The decision is the first card the block holds.
    const first = /^id: (\S+)/m.exec(block)?.[1];
    expect(first).toBe(ids.decision);
  });
});
