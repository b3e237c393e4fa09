/**
 * One user's session, the same in every mode of the real `pi` command: turn
 * working memory on, write a page then recall it (`wiki_ensure_page` →
 * `wiki_recall`), record an observation then recall skills (`wiki_observe`
 * → `wiki_recall_skill`), hand the agent the three tasks of `/wiki-query`,
 * `/wiki-lint` and `/wiki-ingest`, then run every command that answers by
 * itself. The faux model plays the script below; `expectAnswers` checks
 * what every mode owes, from the model's request log and the vault.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { PiCliDirs } from "./pi-cli.ts";
import type { FauxRequest, FauxScriptStep } from "./pi-faux-extension.ts";
import { randomWord } from "./random-text.ts";
import { makeTempDir, makeTempVault } from "./temp-vault.ts";

export interface ScenarioRun {
  dirs: PiCliDirs;
  /** The faux model's script and request log, for Pi's environment. */
  env: Record<string, string>;
}

/** `/wiki-trajectories on`, and what it says. */
export const TRAJECTORIES_ON = {
  prompt: "/wiki-trajectories on",
  text: /llm-wiki working memory on/,
};

/** The tasks and agent commands, each with the faux model's last words for it. */
export const AGENT_PROMPTS: Array<{ prompt: string; done: string }> = [
  { prompt: "remember the topic", done: "noted" },
  { prompt: "observe and look for skills", done: "observed" },
  { prompt: "/wiki-query what do we know about the topic", done: "answered" },
  { prompt: "/wiki-lint", done: "linted" },
  { prompt: "/wiki-ingest", done: "ingested" },
];

/**
 * Each command that answers by itself: what its text starts with, the same
 * text as the terminal UI draws it (a line of a notice, a dialog or screen
 * title), and whether it opens a dialog or screen there (closed with Escape).
 */
export const TEXT_COMMANDS: Array<{
  prompt: string;
  text: RegExp;
  drawn: RegExp;
  dialog?: true;
}> = [
  {
    prompt: "/wiki-digest",
    text: /^llm-wiki:\ndigest \(weekly\) written to \.llm-wiki\/outputs\//,
    drawn: /digest \(weekly\) written to \.llm-wiki\/outputs\//,
  },
  {
    prompt: "/wiki-model",
    text: /^llm-wiki sub-agent model \(wiki_ingest, wiki_distill_skills\):\n/,
    drawn: /llm-wiki sub-agent model: session \(runs on faux\/faux-1\)/,
    dialog: true,
  },
  {
    prompt: "/wiki-skills",
    text: /^llm-wiki:\nNo skill or case pages yet\./,
    drawn: /No skill or case pages yet\./,
  },
  {
    prompt: "/wiki-status",
    text: /^llm-wiki:\nvault +\S/,
    drawn: /^ *vault +.+ \(project\) at /m,
  },
  {
    prompt: "/wiki-record",
    text: /^llm-wiki: Trajectory recorded: \[\[trajectories\//,
    drawn: /Trajectory recorded: \[\[trajectories\//,
  },
  {
    prompt: "/wiki-settings",
    text: /^llm-wiki settings \(setting, from, value\):\n/,
    drawn: /autoRecall/,
    dialog: true,
  },
  {
    prompt: "/wiki-dashboard",
    text: /^llm-wiki dashboard\n/,
    drawn: /llm-wiki dashboard/,
    dialog: true,
  },
  {
    prompt: "/wiki-init",
    text: /^llm-wiki: vault already exists at /,
    drawn: /vault already exists at /,
  },
  {
    prompt: "/wiki-query",
    text: /^usage: \/wiki-query <question>/,
    drawn: /usage: \/wiki-query <question>/,
  },
];

/** Every prompt of the session, in order. */
export const ALL_PROMPTS = [
  TRAJECTORIES_ON.prompt,
  ...AGENT_PROMPTS.map((p) => p.prompt),
  ...TEXT_COMMANDS.map((c) => c.prompt),
];

/** A fresh project with a vault, and the faux model's script (fresh words each run). */
export function prepareScenario(): ScenarioRun {
  const root = makeTempDir("llm-wiki-pi-answers-");
  const dirs = {
    home: join(root, "home"),
    agentDir: join(root, "agent"),
    project: join(root, `project-${randomWord(4, 8)}`),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  makeTempVault({ root: dirs.project });
  const topic = `${randomWord(5, 9)} ${randomWord(5, 9)}`;
  const observation = `${randomWord(5, 9)} ${randomWord(5, 9)}`;
  const done = (i: number): FauxScriptStep => ({ text: AGENT_PROMPTS[i]?.done ?? "" });
  const script: FauxScriptStep[] = [
    // A write, then a recall that must wait for the background index.
    {
      tool: "wiki_ensure_page",
      args: {
        type: "concept",
        title: `The ${topic}`,
        description: `What the ${topic} is`,
        content: `The ${topic} keeps the cache warm between deploys.`,
      },
    },
    { tool: "wiki_recall", args: { query: topic } },
    done(0),
    // A write, then a skill recall.
    {
      tool: "wiki_observe",
      args: { title: `Seen ${observation}`, content: `The ${observation} failed twice today.` },
    },
    { tool: "wiki_recall_skill", args: { query: observation } },
    done(1),
    // The agent commands: the agent does the work.
    { tool: "wiki_recall", args: { query: topic } },
    done(2),
    { tool: "wiki_lint", args: {} },
    done(3),
    { tool: "wiki_ingest", args: {} },
    done(4),
  ];
  const scriptFile = join(root, "script.json");
  writeFileSync(scriptFile, JSON.stringify(script));
  return {
    dirs,
    env: { LLM_WIKI_FAUX_SCRIPT: scriptFile, LLM_WIKI_FAUX_LOG: join(root, "requests.jsonl") },
  };
}

/** Every request the faux model received, in order. */
export function fauxRequests(run: ScenarioRun): FauxRequest[] {
  return readFileSync(run.env.LLM_WIKI_FAUX_LOG ?? "", "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as FauxRequest);
}

/** The text of the first result of `tool` that reached the model. */
function resultSeen(requests: FauxRequest[], tool: string): string | undefined {
  for (const request of requests) {
    const found = request.messages.find((m) => m.role === "toolResult" && m.toolName === tool);
    if (found) return found.text;
  }
  return undefined;
}

/**
 * What every mode owes: each tool's result reached the model (the recall
 * after the write found the page), each agent command's task reached it,
 * no command's text did, and `meta/log.md` lists both writes.
 */
export function expectAgentAnswers(run: ScenarioRun): void {
  const requests = fauxRequests(run);
  const at = JSON.stringify(requests.map((r) => r.messages.at(-1)));
  const created = resultSeen(requests, "wiki_ensure_page") ?? "";
  const pageId = /^created (\S+)/.exec(created)?.[1] ?? "";
  expect(pageId, at).not.toBe("");
  expect(resultSeen(requests, "wiki_recall"), at).toContain(pageId);
  const observed = resultSeen(requests, "wiki_observe") ?? "";
  const observationId = /^recorded observation (\S+)/.exec(observed)?.[1] ?? "";
  expect(observationId, observed).not.toBe("");
  for (const tool of ["wiki_recall_skill", "wiki_lint", "wiki_ingest"]) {
    expect(resultSeen(requests, tool), `${tool}: ${at}`).toBeDefined();
  }
  const asked = requests.flatMap((r) =>
    r.messages.filter((m) => m.role === "user").map((m) => m.text),
  );
  expect(asked.some((t) => t.startsWith("Answer from the project's llm-wiki:"))).toBe(true);
  expect(asked.some((t) => t.startsWith("Check the llm-wiki's health: call wiki_lint"))).toBe(true);
  expect(asked.some((t) => t.includes("call wiki_ingest"))).toBe(true);
  const sent = requests.flatMap((r) => r.messages.map((m) => m.text)).join("\n");
  expect(sent).not.toContain("llm-wiki sub-agent model");
  expect(sent).not.toContain("digest (weekly) written");
  // The views followed the writes before the session ended.
  const log = readFileSync(join(run.dirs.project, ".llm-wiki", "meta", "log.md"), "utf8");
  expect(log).toContain(`**page created** ${pageId}`);
  expect(log).toContain(observationId);
}

/** `shown` (the texts a mode showed the person) holds every command's text. */
export function expectCommandTexts(shown: string[]): void {
  const all = shown.join("\n---\n");
  expect(
    shown.some((t) => TRAJECTORIES_ON.text.test(t)),
    all,
  ).toBe(true);
  for (const command of TEXT_COMMANDS) {
    expect(
      shown.some((t) => command.text.test(t)),
      `${command.prompt}: ${all}`,
    ).toBe(true);
  }
}
