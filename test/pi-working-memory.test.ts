/**
 * Working memory in a real Pi session (Pi's agent loop, bash tool and
 * extension loader, driven by Pi's faux model) on a copy of the example
 * vault: off by default (no trajectory tool exists, the commands say how to
 * turn it on); `/wiki-trajectories on` writes the project setting and adds
 * the tools at once; `wiki_capture_trajectory` records the session's own tool
 * calls with secrets redacted and control bytes gone; `/wiki-record` records
 * without a model turn and the next recording starts after it;
 * `wiki_distill_skills` hands out the batch and marks a trajectory only when
 * a page cites it; `wiki_recall_skill` returns only skill and case pages;
 * `/wiki-skills` lists them and `/wiki-skills <task>` recalls them, without
 * a model turn.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { beforeEach, describe, expect, it } from "vitest";
import { piProjectSettingsPath } from "../extensions/llm-wiki/lib/pi-settings-files.ts";
import { parsePage } from "../extensions/llm-wiki/lib/vault/page.ts";
import { type PiHarness, piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { pageText } from "./helpers/temp-vault.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const TOOLS = ["wiki_capture_trajectory", "wiki_distill_skills", "wiki_recall_skill"];

const pi = piPerTest("llm-wiki-working-memory-");

beforeEach(() => {
  cpSync(EXAMPLE, pi.dirs.project, { recursive: true });
});

function globalSettings(values: Record<string, unknown>): void {
  writeFileSync(join(pi.dirs.agentDir, "settings.json"), JSON.stringify({ "llm-wiki": values }));
}

/** Writes a page into the project's vault; returns its id. */
function writePage(folder: string, type: string, title: string, body: string): string {
  const slug = title.toLowerCase().replace(/\s+/g, "-");
  const dir = join(pi.dirs.project, ".llm-wiki", "wiki", folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${slug}.md`), pageText({ type, title, status: "current" }, body));
  return `${folder}/${slug}`;
}

function toolNames(harness: PiHarness): string[] {
  return harness.session.getAllTools().map((t) => t.name);
}

function trajectoryFiles(): string[] {
  const dir = join(pi.dirs.project, ".llm-wiki", "wiki", "trajectories");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function trajectory(file: string) {
  const rel = `wiki/trajectories/${file}`;
  const bytes = readFileSync(join(pi.dirs.project, ".llm-wiki", rel));
  const parsed = parsePage(`trajectories/${file.replace(/\.md$/, "")}`, rel, bytes);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
  return { text: bytes.toString("utf8"), page: parsed.page };
}

function lastResultText(harness: PiHarness): string {
  const results = toolResults(harness.session);
  const last = results[results.length - 1];
  return last ? textOf(last) : "";
}

describe("working memory in Pi", () => {
  it("is off by default: no trajectory tool is registered and the commands say how to turn it on", async () => {
    const harness = await pi.start();
    await harness.session.prompt("/wiki-record");
    await harness.session.prompt("/wiki-skills");
    for (const name of TOOLS) expect(toolNames(harness)).not.toContain(name);
    const offNotices = harness.notices.filter((n) => n.message.includes("/wiki-trajectories on"));
    expect(offNotices).toHaveLength(2);
    expect(trajectoryFiles()).toEqual([]);
  });

  it("/wiki-trajectories on writes the project setting and adds the tools now; off removes them", async () => {
    const settingsFile = piProjectSettingsPath(pi.dirs.agentDir, pi.dirs.project);
    const harness = await pi.start();
    await harness.session.prompt("/wiki-trajectories on");
    const written = JSON.parse(readFileSync(settingsFile, "utf8")) as Record<string, unknown>;
    expect(written["llm-wiki"]).toEqual({ trajectories: true });
    for (const name of TOOLS) expect(harness.session.getActiveToolNames()).toContain(name);
    await harness.session.prompt("/wiki-trajectories off");
    const after = JSON.parse(readFileSync(settingsFile, "utf8")) as Record<string, unknown>;
    expect(after["llm-wiki"]).toEqual({ trajectories: false });
    for (const name of TOOLS) expect(harness.session.getActiveToolNames()).not.toContain(name);
  });

  it("wiki_capture_trajectory records the session's tool calls, redacted and without control bytes", async () => {
    globalSettings({ trajectories: true });
    const harness = await pi.start();
    for (const name of TOOLS) expect(toolNames(harness)).toContain(name);
    const marker = randomWord(8, 10);
    const token = `ghp_${Array.from({ length: 36 }, () => randomWord(1, 1)).join("")}`;
    const title = `Fix ${randomWords(2)}`;
    harness.script(
      fauxToolCall("bash", {
        command: `printf '%s\\033[31m red\\n' ${marker}; echo token ${token}`,
      }),
      fauxToolCall("wiki_capture_trajectory", { title, outcome: "success" }),
      "Recorded.",
    );
    await harness.session.prompt(`fix the ${marker} build please`);
    expect(lastResultText(harness)).toContain("Trajectory recorded");
    const files = trajectoryFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^TRJ-\d{4}-\d{2}-\d{2}-001\.md$/);
    const { text, page } = trajectory(files[0] as string);
    expect(page.type).toBe("trajectory");
    expect(page.role).toBe("evidence");
    expect(page.title).toBe(title);
    expect(page.frontmatter.tool_call_count).toBe(1);
    expect(page.frontmatter.tools).toEqual(["bash"]);
    expect(text).toContain(marker);
    expect(text).toContain(`fix the ${marker} build please`);
    expect(text).not.toContain(token);
    expect(text).not.toContain("\u001b");
    // The capture is how the task was recorded, not a step of it.
    expect(text).not.toContain("wiki_capture_trajectory");
  });

  it("/wiki-record records without a model turn, and the next recording starts after it", async () => {
    globalSettings({ trajectories: true });
    const harness = await pi.start();
    const first = randomWord(8, 10);
    const second = randomWord(8, 10);
    harness.script(fauxToolCall("bash", { command: `echo ${first}` }), "done");
    await harness.session.prompt(`print ${first}`);
    const requestsBefore = harness.requests.length;
    await harness.session.prompt("/wiki-record First task");
    expect(harness.requests.length).toBe(requestsBefore);
    harness.script(fauxToolCall("bash", { command: `echo ${second}` }), "done");
    await harness.session.prompt(`print ${second}`);
    await harness.session.prompt("/wiki-record Second task");
    const files = trajectoryFiles();
    expect(files).toHaveLength(2);
    const one = trajectory(files[0] as string);
    const two = trajectory(files[1] as string);
    expect(one.page.title).toBe("First task");
    expect(one.text).toContain(first);
    expect(two.text).toContain(second);
    expect(two.text).not.toContain(first);
    // Nothing to record: a diagnostic, no page.
    await harness.session.prompt("/wiki-record Nothing");
    expect(trajectoryFiles()).toHaveLength(2);
    expect(harness.notices.some((n) => n.message.includes("no tool call to record"))).toBe(true);
  });

  it("wiki_distill_skills hands out the trajectory and marks it only when a page cites it", async () => {
    globalSettings({ trajectories: true });
    const harness = await pi.start();
    const word = randomWord(9, 11);
    harness.script(fauxToolCall("bash", { command: `echo ${word}` }), "done");
    await harness.session.prompt(`deploy the ${word} service`);
    await harness.session.prompt("/wiki-record Deploy task");
    const [file] = trajectoryFiles();
    const id = `trajectories/${(file as string).replace(/\.md$/, "")}`;
    const skillTitle = `Deploying ${word}`;
    const unrelated = randomWord(6, 8);
    harness.script(
      // The hand-off: with a model, Pi's default is the sub-agent pass (pi-distill-subagent.test.ts).
      fauxToolCall("wiki_distill_skills", { mode: "handoff" }),
      // A page that does not cite the trajectory: refused, nothing marked.
      fauxToolCall("wiki_ensure_page", {
        type: "skill",
        title: `Unrelated ${unrelated}`,
        content: "Steps without a citation.",
      }),
      "wrote one",
    );
    await harness.session.prompt("distill");
    const handed = toolResults(harness.session).find((r) => textOf(r).includes("<trajectory"));
    expect(handed && textOf(handed)).toContain(`<trajectory id="${id}"`);
    expect(handed && textOf(handed)).toContain(word);
    harness.script(
      fauxToolCall("wiki_ensure_page", {
        type: "skill",
        title: skillTitle,
        content: `1. Run the deploy.\n\nDistilled from [[${id}]].`,
      }),
      fauxToolCall("wiki_distill_skills", {
        mark_distilled: id,
        pages: [`skills/unrelated-${unrelated}`],
      }),
      "tried",
    );
    await harness.session.prompt("write the skill");
    expect(lastResultText(harness)).toContain(`skills/unrelated-${unrelated} does not cite ${id}`);
    expect(trajectory(file as string).page.frontmatter.distilled).toBeUndefined();
    const skillId = `skills/deploying-${word}`;
    harness.script(
      fauxToolCall("wiki_distill_skills", { mark_distilled: id, pages: [skillId] }),
      "marked",
    );
    await harness.session.prompt("mark it");
    expect(lastResultText(harness)).toContain(`Marked [[${id}]] distilled`);
    const marked = trajectory(file as string).page.frontmatter;
    expect(marked.distilled_into).toEqual([skillId]);
    expect(typeof marked.distilled === "string" || marked.distilled instanceof Date).toBe(true);
    // Nothing left to distill.
    harness.script(fauxToolCall("wiki_distill_skills", {}), "ok");
    await harness.session.prompt("anything else?");
    expect(lastResultText(harness)).toContain("Every trajectory is distilled");
  });

  it("wiki_recall_skill returns only skill and case pages", async () => {
    globalSettings({ trajectories: true });
    const harness = await pi.start();
    harness.script(
      fauxToolCall("wiki_recall_skill", { query: "release checklist stale sidebar after rename" }),
      "ok",
    );
    await harness.session.prompt("have I done this before?");
    const result = toolResults(harness.session).find((r) => r.toolName === "wiki_recall_skill");
    const details = result?.details as { results: Array<{ id: string; type: string }> };
    expect(details.results.length).toBeGreaterThan(0);
    for (const r of details.results) expect(["skill", "case"]).toContain(r.type);
    const ids = details.results.map((r) => r.id);
    expect(ids).toContain("skills/release-checklist");
    expect(ids).toContain("cases/stale-sidebar-after-rename");
  });

  it("/wiki-skills lists the skill and case pages and /wiki-skills <task> recalls them, with no model request", async () => {
    globalSettings({ trajectories: true });
    const word = randomWord(9, 12);
    const skill = writePage(
      "skills",
      "skill",
      `Rotate ${randomWord(5, 8)} keys`,
      `1. Drain the ${word} queue.\n2. Rotate.\n`,
    );
    const kase = writePage(
      "cases",
      "case",
      `Outage ${randomWord(5, 8)}`,
      `The ${word} queue stalled; draining it first fixed it.\n`,
    );
    // A page of another type that matches the task just as well is no skill.
    const concept = writePage(
      "concepts",
      "concept",
      `Queue ${randomWord(5, 8)}`,
      `What the ${word} queue is.\n`,
    );
    const harness = await pi.start();
    const before = harness.requests.length;

    await harness.session.prompt("/wiki-skills");
    const listed = harness.notices.at(-1)?.message ?? "";
    for (const id of [skill, kase, "skills/release-checklist", "cases/stale-sidebar-after-rename"])
      expect(listed).toContain(id);
    expect(listed).not.toContain(concept);

    await harness.session.prompt(`/wiki-skills drain the ${word} queue`);
    const recalled = harness.notices.at(-1)?.message ?? "";
    expect(recalled).not.toBe(listed);
    expect(recalled).toContain(skill);
    expect(recalled).toContain(kase);
    expect(recalled).not.toContain(concept);
    expect(recalled).not.toContain("skills/release-checklist");

    expect(harness.requests.length).toBe(before);
  });
});
