/**
 * A real in-process Pi session for tests: Pi's own agent loop, built-in
 * tools, settings and extension loader, loading `extensions/llm-wiki/index.ts`
 * from its path, driven by Pi's scripted faux model. Every model request is
 * recorded, and the UI is a plain object that records notices and statuses.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  type AssistantMessage,
  type FauxProviderHandle,
  fauxAssistantMessage,
  fauxProvider,
  InMemoryCredentialStore,
  type Message,
  type ToolCall,
} from "@earendil-works/pi-ai";
import {
  type AgentSession,
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionError,
  type ExtensionUIContext,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { makeTempDir, removeTempDirs } from "./temp-vault.ts";

export const EXTENSION = join(
  import.meta.dirname,
  "..",
  "..",
  "extensions",
  "llm-wiki",
  "index.ts",
);

export interface PiDirs {
  /** A scratch folder for Pi's model store. */
  root: string;
  agentDir: string;
  /** The session's working directory. */
  project: string;
}

export interface PiHarness {
  session: AgentSession;
  faux: FauxProviderHandle;
  notices: Array<{ message: string; type: string | undefined }>;
  /** Every text the extension put on its status line (`llm-wiki` key), in order. */
  statuses: string[];
  /** The messages of every model request, in order. */
  requests: Message[][];
  errors: ExtensionError[];
  /** Scripts the model's next answers: a text, or the tool calls of one turn. */
  script(...steps: Array<string | ToolCall | ToolCall[]>): void;
  close(): Promise<void>;
}

function recordingUI(
  notices: PiHarness["notices"],
  statuses: PiHarness["statuses"],
): ExtensionUIContext {
  return {
    select: async () => undefined,
    confirm: async () => false,
    input: async () => undefined,
    notify: (message, type) => notices.push({ message, type }),
    onTerminalInput: () => () => undefined,
    setStatus: (key, text) => {
      if (key === "llm-wiki" && text !== undefined) statuses.push(text);
    },
    setWorkingMessage: () => undefined,
    setWorkingVisible: () => undefined,
    setWorkingIndicator: () => undefined,
    setHiddenThinkingLabel: () => undefined,
    setWidget: () => undefined,
    setFooter: () => undefined,
    setHeader: () => undefined,
    setTitle: () => undefined,
    custom: async () => undefined as never,
    pasteToEditor: () => undefined,
    setEditorText: () => undefined,
    getEditorText: () => "",
    editor: async () => undefined,
    addAutocompleteProvider: () => undefined,
    setEditorComponent: () => undefined,
    getEditorComponent: () => undefined,
    // No terminal here: nothing in these sessions draws.
    theme: {} as ExtensionUIContext["theme"],
    getAllThemes: () => [],
    getTheme: () => undefined,
    setTheme: () => ({ success: false, error: "no UI in tests" }),
    getToolsExpanded: () => false,
    setToolsExpanded: () => undefined,
  };
}

/**
 * Starts a session in `options.project` (default `dirs.project`) with the
 * extension loaded and its UI bound; in memory unless a `sessionManager`
 * (e.g. a session file opened again, as when a user resumes) is given.
 */
export async function startPi(
  dirs: PiDirs,
  options: {
    projectTrusted?: boolean;
    project?: string;
    sessionManager?: SessionManager;
    /** UI methods replacing the recording ones (e.g. `custom`, to draw a command's screen). */
    ui?: Partial<ExtensionUIContext>;
    /**
     * Extension files loaded besides those of the packages in Pi's settings
     * (default: the checkout's source); `[]` when a test installs the package.
     */
    extensions?: string[];
  } = {},
): Promise<PiHarness> {
  const project = options.project ?? dirs.project;
  const faux = fauxProvider();
  const modelRuntime = await ModelRuntime.create({
    credentials: new InMemoryCredentialStore(),
    modelsPath: null,
    modelsStorePath: join(dirs.root, "models-store.json"),
    allowModelNetwork: false,
  });
  modelRuntime.registerNativeProvider(faux.provider);
  const settingsManager = SettingsManager.create(project, dirs.agentDir, {
    projectTrusted: options.projectTrusted ?? true,
  });
  const loader = new DefaultResourceLoader({
    cwd: project,
    agentDir: dirs.agentDir,
    settingsManager,
    additionalExtensionPaths: options.extensions ?? [EXTENSION],
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  });
  await loader.reload();
  const loadErrors = loader.getExtensions().errors;
  if (loadErrors.length > 0)
    throw new Error(`extension failed to load: ${JSON.stringify(loadErrors)}`);
  const { session } = await createAgentSession({
    cwd: project,
    agentDir: dirs.agentDir,
    model: faux.getModel(),
    modelRuntime,
    settingsManager,
    resourceLoader: loader,
    sessionManager: options.sessionManager ?? SessionManager.inMemory(project),
  });
  const notices: PiHarness["notices"] = [];
  const statuses: PiHarness["statuses"] = [];
  const errors: ExtensionError[] = [];
  await session.bindExtensions({
    uiContext: { ...recordingUI(notices, statuses), ...options.ui },
    onError: (e) => errors.push(e),
  });
  const requests: Message[][] = [];
  return {
    session,
    faux,
    notices,
    statuses,
    requests,
    errors,
    script(...steps) {
      faux.appendResponses(
        steps.map((step) => (context): AssistantMessage => {
          requests.push([...context.messages]);
          if (typeof step === "string") return fauxAssistantMessage(step);
          return fauxAssistantMessage(step, { stopReason: "toolUse" });
        }),
      );
    },
    async close() {
      await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
      session.dispose();
    },
  };
}

/** The text of a message's content. */
export function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => ("text" in part && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** Tool results of the session, in order. */
export function toolResults(
  session: AgentSession,
): Array<Extract<Message, { role: "toolResult" }>> {
  return session.messages.filter(
    (m): m is Extract<Message, { role: "toolResult" }> => m.role === "toolResult",
  );
}

/** Polls `probe` until it holds, for at most `ms`; returns whether it held. */
export async function eventually(
  probe: () => boolean | Promise<boolean>,
  ms = 120_000,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return probe();
}

/** Per-test Pi sessions, from `piPerTest`. */
export interface PiPerTest {
  /** This test's folders (fresh before each test). */
  readonly dirs: PiDirs;
  /** Starts a session in `dirs.project`, closed after the test. */
  start(options?: Parameters<typeof startPi>[1]): Promise<PiHarness>;
}

/**
 * Registers hooks that give each test fresh folders (a project, Pi's agent
 * folder, a home holding no vault, a model cache) with the environment
 * pointed at them, and close its sessions afterwards, failing the test when
 * the extension reported an error. Hooks a test file registers later run
 * after these, so they can put a vault in `dirs.project`.
 */
export function piPerTest(prefix: string): PiPerTest {
  let dirs: PiDirs | undefined;
  const open: PiHarness[] = [];
  beforeEach(() => {
    const root = makeTempDir(prefix);
    const home = join(root, "home");
    dirs = { root, agentDir: join(root, "agent"), project: join(root, "project") };
    for (const dir of [home, dirs.agentDir, dirs.project]) mkdirSync(dir, { recursive: true });
    vi.stubEnv("HOME", home);
    vi.stubEnv("WIKI_HOME", home);
    vi.stubEnv("XDG_CACHE_HOME", join(root, "xdg-cache"));
    vi.stubEnv("PI_CODING_AGENT_DIR", dirs.agentDir);
  });
  afterEach(async () => {
    for (const pi of open.splice(0)) {
      await pi.close();
      expect(pi.errors).toEqual([]);
    }
    vi.unstubAllEnvs();
    removeTempDirs();
  });
  return {
    get dirs() {
      if (!dirs) throw new Error("piPerTest: dirs are made before each test");
      return dirs;
    },
    async start(options) {
      const harness = await startPi(this.dirs, options);
      open.push(harness);
      return harness;
    },
  };
}
