/**
 * A teammate's Pi for the team runs: a real in-process Pi session (Pi's
 * agent loop, settings and extension loader, loading the checkout's
 * extension) in the teammate's clone, driven by Pi's scripted faux model.
 * Each write is a turn whose model calls the wiki tool; each recall is a
 * prompt, so Pi's automatic recall runs as it does for a person and logs
 * what it showed (recall feedback) before the model calls `wiki_recall`.
 * Vault discovery reads the process environment, as Pi does: the caller
 * points HOME / WIKI_HOME at a folder holding no vault.
 */
import { join } from "node:path";
import {
  type AssistantMessage,
  fauxAssistantMessage,
  fauxProvider,
  fauxToolCall,
  InMemoryCredentialStore,
  type JsonObject,
  type Message,
} from "@earendil-works/pi-ai";
import {
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionUIContext,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";

const EXTENSION = join(import.meta.dirname, "..", "..", "extensions", "llm-wiki", "index.ts");

/** A teammate's Pi: writes and recalls through the extension's tools. */
export interface TeamPi {
  ensurePage(title: string, content: string): Promise<void>;
  observe(title: string, content: string): Promise<void>;
  /** The text `wiki_recall` answered for `query`, asked as a prompt. */
  recall(query: string): Promise<string>;
  close(): Promise<void>;
}

function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => ("text" in part && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** No terminal: the extension's notices and statuses go nowhere. */
const SILENT_UI = new Proxy(
  {},
  {
    get: (_target, key) =>
      key === "theme" ? {} : key === "getEditorText" ? () => "" : () => undefined,
  },
) as ExtensionUIContext;

/** Starts Pi in `clone`, with its own agent folder `agentDir`. */
export async function startTeamPi(clone: string, agentDir: string): Promise<TeamPi> {
  const faux = fauxProvider();
  const modelRuntime = await ModelRuntime.create({
    credentials: new InMemoryCredentialStore(),
    modelsPath: null,
    modelsStorePath: join(agentDir, "models-store.json"),
    allowModelNetwork: false,
  });
  modelRuntime.registerNativeProvider(faux.provider);
  const settingsManager = SettingsManager.create(clone, agentDir, { projectTrusted: true });
  const loader = new DefaultResourceLoader({
    cwd: clone,
    agentDir,
    settingsManager,
    additionalExtensionPaths: [EXTENSION],
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  });
  await loader.reload();
  const loadErrors = loader.getExtensions().errors;
  if (loadErrors.length > 0) throw new Error(`extension failed: ${JSON.stringify(loadErrors)}`);
  const { session } = await createAgentSession({
    cwd: clone,
    agentDir,
    model: faux.getModel(),
    modelRuntime,
    settingsManager,
    resourceLoader: loader,
    sessionManager: SessionManager.inMemory(clone),
  });
  const errors: string[] = [];
  await session.bindExtensions({
    uiContext: SILENT_UI,
    onError: (e) => errors.push(JSON.stringify(e)),
  });
  /** One turn: the model calls `tool` with `args`, then answers `Done.`; returns the tool's result text. */
  const turn = async (prompt: string, tool: string, args: JsonObject): Promise<string> => {
    const before = session.messages.length;
    faux.appendResponses([
      (): AssistantMessage =>
        fauxAssistantMessage([fauxToolCall(tool, args)], { stopReason: "toolUse" }),
      (): AssistantMessage => fauxAssistantMessage("Done."),
    ]);
    await session.prompt(prompt);
    const result = session.messages
      .slice(before)
      .find(
        (m): m is Extract<Message, { role: "toolResult" }> =>
          m.role === "toolResult" && m.toolName === tool,
      );
    if (result === undefined || result.isError) {
      throw new Error(`pi ${tool} failed: ${result ? textOf(result) : "no result"}`);
    }
    if (errors.length > 0) throw new Error(`pi extension errors: ${errors.join("; ")}`);
    return textOf(result);
  };
  return {
    async ensurePage(title, content) {
      await turn(`Record the decision: ${title}`, "wiki_ensure_page", {
        type: "concept",
        title,
        content,
      });
    },
    async observe(title, content) {
      await turn(`Note what we saw: ${title}`, "wiki_observe", { title, content });
    },
    recall: (query) => turn(query, "wiki_recall", { query, mode: "lexical" }),
    async close() {
      await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
      session.dispose();
    },
  };
}
