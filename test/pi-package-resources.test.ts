/**
 * The package's Pi extras, loaded the way `pi install <checkout>` loads
 * them (the folder as a package, its `pi` manifest read by Pi's own resource
 * loader): the `llm-wiki` skill and the prompt templates load with no
 * diagnostic, the skill is advertised in a real session's system prompt, a
 * template expands into the user message the faux model receives, and no
 * template is shadowed by an extension command of the same name. `/wiki-req`
 * asks for requirement pages in our relations format: the front matter it
 * hands the agent, written through the tools it names, lints clean.
 * `/wiki-run` expands with its URLs and `--schedule`, says there is no web
 * search of ours, and the tools it names (`wiki_digest`, `wiki_watch`)
 * write the digest and print a crontab line that nothing installs.
 * `/wiki-discover` (the older system's command) expands with its topic, says
 * there is no web search of ours, and the calls it asks for (status, lint's
 * gaps, search, capture by URL) answer.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AssistantMessage,
  type Context,
  fauxAssistantMessage,
  fauxProvider,
  fauxToolCall,
  InMemoryCredentialStore,
  type Message,
} from "@earendil-works/pi-ai";
import {
  createAgentSession,
  DefaultResourceLoader,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createWikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { textOf } from "./helpers/pi-session.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const PROMPTS = [
  "wiki-discover",
  "wiki-distill",
  "wiki-recall-skill",
  "wiki-req",
  "wiki-retro",
  "wiki-run",
];

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

/** A real session of the package (extension, skill, templates) with the faux model. */
async function startSession() {
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
  return { cwd, session, faux };
}

/** The text of the first user message of a request (the expanded template). */
function userText(context: Context | undefined): string {
  const user = context?.messages.find((m) => m.role === "user");
  return user ? textOf(user) : "";
}

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
    const { session, faux } = await startSession();
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

  it("/wiki-req expands with the concept and asks for requirement pages derived from a captured source", async () => {
    const { cwd, session, faux } = await startSession();
    makeTempVault({ root: cwd });
    const concept = randomWords(6);
    const reqTitle = `${randomWord()} ${randomWord()} is refused`;
    const seen: Context[] = [];
    /** The relations the template asks for (as JSON in its text), with the source page id the capture returned. */
    const relationsFor = (context: Context): Array<{ type: string; target: string }> => {
      const shown = /relations (\[\{[^\]]*\}\])/.exec(userText(context))?.[1] ?? "[]";
      const result = context.messages.findLast((m: Message) => m.role === "toolResult");
      const page = /\bsources\/[a-z0-9-]+/.exec(result ? textOf(result) : "")?.[0] ?? "";
      expect(page).not.toBe("");
      const relations = JSON.parse(shown.replace("sources/…", page)) as Array<{
        type: string;
        target: string;
      }>;
      expect(relations).toEqual([{ type: "derived_from", target: page }]);
      return relations;
    };
    const record =
      (step: (context: Context) => AssistantMessage) =>
      (context: Context): AssistantMessage => {
        seen.push(context);
        return step(context);
      };
    faux.appendResponses([
      record(() =>
        fauxAssistantMessage(
          [
            fauxToolCall("wiki_capture_source", {
              title: `${randomWord()} concept`,
              text: `# Concept\n\n${concept}\n`,
            }),
          ],
          { stopReason: "toolUse" },
        ),
      ),
      record((context) =>
        fauxAssistantMessage(
          [
            fauxToolCall("wiki_ensure_page", {
              type: "requirement",
              title: reqTitle,
              description: "one behaviour",
              relations: relationsFor(context),
              // No link to the source: the tool adds the one the relation needs.
              content: "## Requirement\nIt is refused.\n## Acceptance\n- [ ] it is refused",
            }),
          ],
          { stopReason: "toolUse" },
        ),
      ),
      record(() => fauxAssistantMessage("written")),
    ]);
    try {
      await session.prompt(`/wiki-req ${concept}`);
      const text = userText(seen[0]);
      expect(text).toContain(`Turn this concept into requirements in the llm-wiki: ${concept}`);
      expect(text).not.toContain("$ARGUMENTS");
      expect(text).toMatch(/^1\. Clarify before writing anything/m);
      expect(text).toContain("call wiki_capture_source with text");
      expect(text).toContain('call wiki_ensure_page once, with type "requirement"');
      expect(text).toContain('relations [{"type": "derived_from", "target": "sources/…"}]');
      expect(text).toContain("Acceptance (a checklist of observable criteria");
      expect(seen).toHaveLength(3);
    } finally {
      await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
      session.dispose();
    }
    // The shape the template asks for is ours: the relation counts, so lint has nothing to say.
    const service = createWikiService({ cwd });
    try {
      const lint = await service.lint();
      const findings = lint.vaults.flatMap((v) => v.findings);
      const relations = findings.filter((f) => f.check === "relation");
      expect(relations).toEqual([]);
      const page = service.search({ query: reqTitle }).hits[0];
      expect(page?.id).toMatch(/^requirements\//);
    } finally {
      await service.close();
    }
  });

  it("/wiki-run expands with its arguments; the digest and the crontab line it asks for come from the tools", async () => {
    const { cwd, session, faux } = await startSession();
    const vault = makeTempVault({ root: cwd });
    const url = `https://${randomWord()}.example.invalid/${randomWord()}`;
    const seen: Context[] = [];
    const step =
      (...calls: Parameters<typeof fauxToolCall>[]) =>
      (context: Context): AssistantMessage => {
        seen.push(context);
        return calls.length === 0
          ? fauxAssistantMessage("done")
          : fauxAssistantMessage(
              calls.map((c) => fauxToolCall(...c)),
              { stopReason: "toolUse" },
            );
      };
    faux.appendResponses([
      step(["wiki_digest", { period: "weekly" }], ["wiki_watch", { interval: "weekly" }]),
      step(),
    ]);
    try {
      await session.prompt(`/wiki-run ${url} --schedule weekly`);
      const text = userText(seen[0]);
      expect(text).toContain(`Arguments: ${url} --schedule weekly.`);
      expect(text).not.toMatch(/\$\{?@/);
      expect(text).toContain("Capture each http or https URL in the arguments");
      expect(text).toContain("has no web search tool of its own");
      for (const tool of ["wiki_capture_source", "wiki_ingest", "wiki_lint", "wiki_digest"]) {
        expect(text).toContain(tool);
      }
      expect(text).toContain("call wiki_watch with that interval");
      expect(text).toContain("It installs nothing: tell me to add the line myself (crontab -e)");
      const results = seen[1]?.messages.filter((m: Message) => m.role === "toolResult") ?? [];
      const [digest, watch] = results.map((r) => textOf(r));
      expect(results.map((r) => (r.role === "toolResult" ? r.isError : undefined))).toEqual([
        false,
        false,
      ]);
      const written = /outputs\/digest-\d{4}-\d{2}-\d{2}(-\d+)?\.md/.exec(digest ?? "")?.[0];
      expect(written).toBeDefined();
      expect(existsSync(join(vault.paths.dir, written ?? "missing"))).toBe(true);
      expect(watch).toContain("# llm-wiki-autoupdate");
      expect(watch).toContain("nothing was installed");
    } finally {
      await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
      session.dispose();
    }
  });

  it("/wiki-discover expands with its topic and the calls it asks for answer", async () => {
    const { cwd, session, faux } = await startSession();
    makeTempVault({ root: cwd });
    const topic = randomWords(2);
    const seen: Context[] = [];
    const step =
      (...calls: Parameters<typeof fauxToolCall>[]) =>
      (context: Context): AssistantMessage => {
        seen.push(context);
        return calls.length === 0
          ? fauxAssistantMessage("no web search here")
          : fauxAssistantMessage(
              calls.map((c) => fauxToolCall(...c)),
              { stopReason: "toolUse" },
            );
      };
    faux.appendResponses([
      step(["wiki_status", {}], ["wiki_lint", {}], ["wiki_search", { query: topic }]),
      step(),
    ]);
    try {
      await session.prompt(`/wiki-discover --topic ${topic}`);
      const text = userText(seen[0]);
      expect(text).toContain(`Arguments: --topic ${topic}.`);
      expect(text).toContain("has no web search of its own");
      expect(text).toContain("never claim you searched");
      for (const tool of ["wiki_status", "wiki_lint", "wiki_search", "wiki_capture_source"])
        expect(text).toContain(tool);
      const results = seen[1]?.messages.filter((m: Message) => m.role === "toolResult") ?? [];
      expect(results.map((r) => (r.role === "toolResult" ? r.isError : undefined))).toEqual([
        false,
        false,
        false,
      ]);
    } finally {
      await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
      session.dispose();
    }
  });
});
