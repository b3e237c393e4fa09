/**
 * `/wiki-model` and the `subagentModel` setting in a real Pi session with
 * Pi's faux provider: a second faux provider stands for another model. The
 * model chosen (through Pi's selection dialog, or `/wiki-model
 * <provider/id>`) is written to the extension's file for the project and is the
 * one the ingest and distill sub-agents call, at once, without /reload,
 * while the session's model answers only the main agent. A chosen model the
 * registry does not know, or without credentials, makes the pass run on the
 * session's model and say so in its result; `/wiki-model` refuses an
 * unknown one with nothing written, and `session` goes back to the
 * session's model. Without a screen the state is a notice listing the
 * models, with nothing raw from a model name reaching the terminal.
 */
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
import { randomInt } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  type AssistantMessage,
  type Context,
  type FauxProviderHandle,
  fauxAssistantMessage,
  fauxProvider,
  fauxToolCall,
  type ToolCall,
} from "@earendil-works/pi-ai";
import { type ExtensionCommandContext, ModelRegistry } from "@earendil-works/pi-coding-agent";
import { beforeEach, describe, expect, it } from "vitest";
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { piProjectSettingsPath } from "../extensions/llm-wiki/lib/pi-settings-files.ts";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { createCommandOutput } from "../extensions/llm-wiki/pi/command-output.ts";
import { createModelCommand } from "../extensions/llm-wiki/pi/model-command.ts";
import { type PiHarness, piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempVault } from "./helpers/temp-vault.ts";

const fixture = piPerTest("llm-wiki-model-");
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/;

beforeEach(() => {
  makeTempVault({ root: fixture.dirs.project });
});

const projectFile = () => piProjectSettingsPath(fixture.dirs.agentDir, fixture.dirs.project);
const globalFile = () => join(fixture.dirs.agentDir, "settings.json");

function writeSettings(path: string, section: Record<string, unknown>): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ "llm-wiki": section }, null, 2)}\n`);
}

function subagentModelIn(path: string): unknown {
  if (!existsSync(path)) return undefined;
  const data = JSON.parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;
  return data["llm-wiki"]?.subagentModel;
}

/** A second faux provider, registered in the session's runtime: another model to choose. */
interface OtherModel {
  faux: FauxProviderHandle;
  ref: string;
  /** Every request it received, in order. */
  requests: Context[];
  script(...steps: Array<string | ToolCall[]>): void;
}

function addOtherModel(harness: PiHarness): OtherModel {
  const provider = `bg-${randomWord(5, 8)}`;
  const id = `${randomWord(4, 6)}-${randomInt(1, 99)}`;
  const faux = fauxProvider({ provider, models: [{ id }, { id: `${id}-other` }] });
  harness.session.modelRuntime.registerNativeProvider(faux.provider);
  const requests: Context[] = [];
  return {
    faux,
    ref: `${provider}/${id}`,
    requests,
    script(...steps) {
      faux.appendResponses(
        steps.map((step) => (context): AssistantMessage => {
          requests.push(context);
          return typeof step === "string"
            ? fauxAssistantMessage(step)
            : fauxAssistantMessage(step, { stopReason: "toolUse" });
        }),
      );
    },
  };
}

/** Captures a source through the service, as `wiki_capture_source` would. */
async function capture(): Promise<string> {
  const service = createWikiService({ cwd: fixture.dirs.project });
  try {
    const result = await service.captureSource({
      title: `${randomWord()} notes`,
      text: `# Notes\n\n${randomWords(30)}\n`,
    });
    expect(result.ok).toBe(true);
    return result.id ?? "";
  } finally {
    await service.close();
  }
}

const write = (title: string): ToolCall =>
  fauxToolCall("wiki_ensure_page", {
    type: "concept",
    title,
    content: `${randomWords(8)}.`,
    description: `About ${title}`,
  });

interface PassOutcome {
  isError: boolean;
  text: string;
  model: unknown;
  diagnostics: Diagnostic[];
}

function lastResult(harness: PiHarness, tool: string): PassOutcome {
  const result = toolResults(harness.session).findLast((r) => r.toolName === tool);
  expect(result).toBeDefined();
  const details = (result?.details ?? {}) as { model?: unknown; diagnostics?: Diagnostic[] };
  return {
    isError: result?.isError === true,
    text: result ? textOf(result) : "",
    model: details.model,
    diagnostics: details.diagnostics ?? [],
  };
}

/** Runs one wiki_ingest whose sub-agent is answered by `sub` (or by the session's faux when absent). */
async function ingestWith(harness: PiHarness, sub: OtherModel | undefined): Promise<PassOutcome> {
  const source = await capture();
  const title = `${randomWord(6, 9)} queue`;
  if (sub) {
    harness.script([fauxToolCall("wiki_ingest", { source })], "ingested");
    sub.script([write(title)], "wrote one page");
  } else {
    harness.script(
      [fauxToolCall("wiki_ingest", { source })],
      [write(title)],
      "wrote one page",
      "ingested",
    );
  }
  await harness.session.prompt("ingest the source");
  return lastResult(harness, "wiki_ingest");
}

describe("/wiki-model", () => {
  it("picks a model in Pi's dialog, writes it to the project's settings, and the ingest sub-agent calls it at once", async () => {
    const dialogs: Array<{ title: string; options: string[] }> = [];
    let other: OtherModel | undefined;
    const harness = await fixture.start({
      ui: {
        select: async (title, options) => {
          dialogs.push({ title, options });
          return options.find((o) => o === other?.ref);
        },
      },
    });
    other = addOtherModel(harness);
    const session = harness.faux.getModel();
    const sessionRef = `${session.provider}/${session.id}`;
    await harness.session.prompt("/wiki-model");
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]?.title).toBe(`llm-wiki sub-agent model: session (runs on ${sessionRef})`);
    expect(dialogs[0]?.options[0]).toBe(`session (the session's model: ${sessionRef})`);
    expect(dialogs[0]?.options).toContain(other.ref);
    expect(dialogs[0]?.options).toContain(`${other.ref}-other`);
    expect(subagentModelIn(projectFile())).toBe(other.ref);
    expect(harness.notices.at(-1)?.message).toMatch(
      new RegExp(
        `^llm-wiki: subagentModel = ${other.ref} written to project settings .*applies now`,
      ),
    );
    expect(harness.requests).toEqual([]);

    const mainBefore = harness.faux.state.callCount;
    const pass = await ingestWith(harness, other);
    expect(pass.isError).toBe(false);
    expect(pass.model).toBe(other.ref);
    expect(pass.text).toContain(`by a sub-agent (${other.ref})`);
    expect(pass.diagnostics).toEqual([]);
    // The chosen model got the sub-agent's turns (the source's part); the session's, only the main agent's.
    expect(other.requests).toHaveLength(2);
    expect(other.requests[0]?.messages.map((m) => textOf(m)).join("\n")).toContain("<source-text");
    expect(harness.faux.state.callCount - mainBefore).toBe(2);
  });

  it("`/wiki-model <provider/id>` sets the distill sub-agent's model; `session` goes back to the session's", async () => {
    writeSettings(globalFile(), { trajectories: true });
    const harness = await fixture.start();
    const other = addOtherModel(harness);
    const service = createWikiService({ cwd: fixture.dirs.project });
    const recorded = await service.captureTrajectory({
      title: `Deploy ${randomWords(2)}`,
      task: `deploy ${randomWord()}`,
      outcome: "success",
      steps: [{ role: "tool", tool: "bash", args: { command: `make ${randomWord()}` } }],
    });
    await service.close();
    expect(recorded.ok).toBe(true);

    await harness.session.prompt(`/wiki-model ${other.ref}`);
    expect(subagentModelIn(projectFile())).toBe(other.ref);
    harness.script([fauxToolCall("wiki_distill_skills", {})], "distilled");
    other.script(
      [
        fauxToolCall("wiki_ensure_page", {
          type: "skill",
          title: `Deploying ${randomWord(6, 9)}`,
          content: "1. Run the target.",
          description: "how to deploy",
        }),
      ],
      "wrote a skill",
    );
    await harness.session.prompt("distill what I recorded");
    const pass = lastResult(harness, "wiki_distill_skills");
    expect(pass.isError).toBe(false);
    expect(pass.model).toBe(other.ref);
    expect(other.requests).toHaveLength(2);
    expect(other.requests[0]?.messages.map((m) => textOf(m)).join("\n")).toContain("<trajectory ");

    // Back to the session's model: written as `session`, so it also wins over a global choice.
    writeSettings(globalFile(), { trajectories: true, subagentModel: other.ref });
    await harness.session.prompt("/wiki-model session");
    expect(subagentModelIn(projectFile())).toBe("session");
    const back = await ingestWith(harness, undefined);
    const session = harness.faux.getModel();
    expect(back.model).toBe(`${session.provider}/${session.id}`);
    expect(back.diagnostics).toEqual([]);
    expect(other.requests).toHaveLength(2);
  });

  it("refuses a model the registry does not know, or a malformed one, and writes nothing", async () => {
    const harness = await fixture.start();
    addOtherModel(harness);
    const unknown = `${randomWord()}/${randomWord()}`;
    await harness.session.prompt(`/wiki-model ${unknown}`);
    expect(harness.notices.at(-1)).toEqual({
      message: `llm-wiki: not written: "${unknown}" is not a model this session's model registry knows; /wiki-model lists the models this session can use`,
      type: "warning",
    });
    await harness.session.prompt(`/wiki-model ${randomWord()}`);
    expect(harness.notices.at(-1)?.message).toMatch(
      /not written: ".*" is not of the form provider\/id/,
    );
    await harness.session.prompt(`/wiki-model a/b c/d`);
    expect(harness.notices.at(-1)?.message).toMatch(/^usage: \/wiki-model/);
    expect(existsSync(projectFile())).toBe(false);
    expect(harness.requests).toEqual([]);
  });

  it("a chosen model the registry does not know: the pass runs on the session's model and says so", async () => {
    const unknown = `${randomWord()}/${randomWord()}`;
    writeSettings(projectFile(), { subagentModel: unknown });
    const harness = await fixture.start();
    const pass = await ingestWith(harness, undefined);
    const session = harness.faux.getModel();
    const sessionRef = `${session.provider}/${session.id}`;
    expect(pass.isError).toBe(false);
    expect(pass.model).toBe(sessionRef);
    expect(pass.diagnostics[0]).toMatchObject({
      code: "subagent_model_unknown",
      severity: "warning",
      message: `the subagentModel setting: "${unknown}" is not a model this session's model registry knows; the sub-agent used the session's model ${sessionRef} instead`,
    });
    expect(pass.text).toContain(`the sub-agent used the session's model ${sessionRef} instead`);
  });

  it("a chosen model without credentials is written with a warning, and the pass falls back, saying so", async () => {
    const harness = await fixture.start();
    const provider = `nokey-${randomWord(4, 6)}`;
    const id = randomWord(4, 8);
    harness.session.modelRuntime.registerProvider(provider, {
      baseUrl: "http://127.0.0.1:9/v1",
      api: "openai-completions",
      models: [
        {
          id,
          name: id,
          reasoning: false,
          input: ["text"],
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          contextWindow: 8_000,
          maxTokens: 1_000,
        },
      ],
    });
    const ref = `${provider}/${id}`;
    await harness.session.prompt(`/wiki-model ${ref}`);
    expect(subagentModelIn(projectFile())).toBe(ref);
    const notice = harness.notices.at(-1);
    expect(notice?.type).toBe("warning");
    expect(notice?.message).toContain(
      `"${ref}" has no credentials: provider "${provider}" is not configured`,
    );

    const pass = await ingestWith(harness, undefined);
    expect(pass.isError).toBe(false);
    const session = harness.faux.getModel();
    expect(pass.model).toBe(`${session.provider}/${session.id}`);
    expect(pass.diagnostics[0]).toMatchObject({
      code: "subagent_model_no_auth",
      severity: "warning",
    });
    expect(pass.text).toContain("the sub-agent used the session's model");
  });

  it("without a screen, the state is a notice listing the models, with nothing raw from a name", async () => {
    const harness = await fixture.start();
    const other = addOtherModel(harness);
    // A hostile id from a provider the user registered: listed, but drawn neutralised.
    const hostile = `${randomWord()}\u001b[2J\u202e${randomWord()}\u0007`;
    const evil = fauxProvider({ provider: `evil-${randomWord(4, 6)}`, models: [{ id: hostile }] });
    harness.session.modelRuntime.registerNativeProvider(evil.provider);
    writeSettings(projectFile(), { subagentModel: other.ref });
    const notices: Array<{ message: string; type: string | undefined }> = [];
    const ctx = {
      cwd: fixture.dirs.project,
      hasUI: false,
      isProjectTrusted: () => true,
      model: harness.faux.getModel(),
      modelRegistry: new ModelRegistry(harness.session.modelRuntime),
      ui: { notify: (message: string, type?: string) => notices.push({ message, type }) },
    } as unknown as ExtensionCommandContext;
    await createModelCommand(createCommandOutput()).handler("", ctx);
    expect(notices).toHaveLength(1);
    const text = notices[0]?.message ?? "";
    expect(notices[0]?.type).toBe("info");
    expect(text).toMatch(/^llm-wiki sub-agent model \(wiki_ingest, wiki_distill_skills\):\n/);
    expect(text).toContain(`chosen   ${other.ref} (project)`);
    expect(text).toContain(`runs on  ${other.ref}`);
    expect(text).toContain(`\n* ${other.ref}\n`);
    expect(text).toContain(`\n  ${other.ref}-other\n`);
    expect(text).toContain(`evil-`);
    for (const line of text.split("\n")) expect(line).not.toMatch(UNSAFE);
  });

  it("a hostile value in the settings file is dropped for the default, never used or shown raw", async () => {
    writeSettings(projectFile(), { subagentModel: `a/${randomWord()}\u001b[31m\u202e` });
    const harness = await fixture.start();
    const pass = await ingestWith(harness, undefined);
    const session = harness.faux.getModel();
    expect(pass.model).toBe(`${session.provider}/${session.id}`);
    const warned = harness.notices.find((n) => n.message.startsWith("llm-wiki settings:"));
    expect(warned?.message).toMatch(
      /invalid value .* for "subagentModel"; using the default "session"/,
    );
    for (const n of harness.notices) {
      for (const line of n.message.split("\n")) expect(line).not.toMatch(UNSAFE);
    }
  });
});
