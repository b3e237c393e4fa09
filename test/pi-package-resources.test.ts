/**
 * The package's Pi extras, loaded the way `pi install <checkout>` loads
 * them (the folder as a package, its `pi` manifest read by Pi's own resource
 * loader): the `llm-wiki` skill and the prompt templates load with no
 * diagnostic, the skill is advertised in a real session's system prompt, a
 * template expands into the user message the faux model receives, and no
 * template is shadowed by an extension command of the same name.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Context,
  fauxAssistantMessage,
  fauxProvider,
  InMemoryCredentialStore,
} from "@earendil-works/pi-ai";
import {
  createAgentSession,
  DefaultResourceLoader,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { textOf } from "./helpers/pi-session.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const PROMPTS = ["wiki-distill", "wiki-recall-skill", "wiki-retro"];

let root = "";
beforeEach(() => {
  root = makeTempDir("llm-wiki-pi-package-");
  for (const d of ["agent", "project", "home"]) mkdirSync(join(root, d), { recursive: true });
  vi.stubEnv("HOME", join(root, "home"));
  vi.stubEnv("WIKI_HOME", join(root, "home"));
  vi.stubEnv("PI_CODING_AGENT_DIR", join(root, "agent"));
  // What `pi install <checkout>` records: the folder as a package.
  writeFileSync(join(root, "agent", "settings.json"), JSON.stringify({ packages: [REPO] }));
});
afterEach(() => {
  vi.unstubAllEnvs();
  removeTempDirs();
});

async function loadPackage() {
  const cwd = join(root, "project");
  const agentDir = join(root, "agent");
  const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted: true });
  const loader = new DefaultResourceLoader({
    cwd,
    agentDir,
    settingsManager,
    noThemes: true,
    noContextFiles: true,
  });
  await loader.reload();
  return { cwd, agentDir, settingsManager, loader };
}

describe("the package's skill and prompt templates in Pi", () => {
  it("load from the package manifest with no diagnostic", async () => {
    const { loader } = await loadPackage();
    const skills = loader.getSkills();
    expect(skills.diagnostics).toEqual([]);
    const skill = skills.skills.find((s) => s.name === "llm-wiki");
    expect(skill?.filePath).toBe(join(REPO, "skills", "llm-wiki", "SKILL.md"));
    expect(skill?.description).toMatch(/recall/);
    const prompts = loader.getPrompts();
    expect(prompts.diagnostics).toEqual([]);
    const ours = prompts.prompts.filter((p) => p.filePath.startsWith(join(REPO, "prompts")));
    expect(ours.map((p) => p.name).sort()).toEqual(PROMPTS);
    for (const p of ours) expect(p.description.length).toBeGreaterThan(10);
  });

  it("advertise the skill in a real session and expand a template into the user's message", async () => {
    const { cwd, agentDir, settingsManager, loader } = await loadPackage();
    const faux = fauxProvider();
    const modelRuntime = await ModelRuntime.create({
      credentials: new InMemoryCredentialStore(),
      modelsPath: null,
      modelsStorePath: join(root, "models-store.json"),
      allowModelNetwork: false,
    });
    modelRuntime.registerNativeProvider(faux.provider);
    const { session } = await createAgentSession({
      cwd,
      agentDir,
      model: faux.getModel(),
      modelRuntime,
      settingsManager,
      resourceLoader: loader,
      sessionManager: SessionManager.inMemory(cwd),
    });
    await session.bindExtensions({ onError: (e) => expect.fail(JSON.stringify(e)) });
    try {
      expect(session.systemPrompt).toContain("llm-wiki");
      expect(session.systemPrompt).toContain(join(REPO, "skills", "llm-wiki", "SKILL.md"));
      // A template an extension command of the same name would shadow is never shipped.
      const commands = session.extensionRunner.getRegisteredCommands().map((c) => c.name);
      for (const name of PROMPTS) expect(commands).not.toContain(name);
      const task = randomWords(4);
      const seen: Context[] = [];
      faux.appendResponses([
        (context) => {
          seen.push(context);
          return fauxAssistantMessage("noted");
        },
      ]);
      await session.prompt(`/wiki-recall-skill ${task}`);
      const user = seen[0]?.messages.find((m) => m.role === "user");
      const text = user ? textOf(user) : "";
      expect(text).toContain(`Have I done this before: ${task}`);
      expect(text).toContain("wiki_recall_skill");
      expect(text).not.toContain("$ARGUMENTS");
    } finally {
      await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
      session.dispose();
    }
  });
});
