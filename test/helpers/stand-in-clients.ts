/**
 * How each real client is pointed at the stand-in model (stand-in-model.ts)
 * and run for one prompt, non-interactively, as a user who has set it up
 * and trusted the project would run it:
 *
 * - Claude Code: `ANTHROPIC_BASE_URL` and a dummy `ANTHROPIC_API_KEY`;
 *   `claude -p`, our MCP tools allowed. The project's `.mcp.json` server is
 *   approved the way Claude Code's own prompt records it
 *   (`.claude/settings.local.json`, `enabledMcpjsonServers`).
 * - Codex: a `model_provider` in `~/.codex/config.toml` with the stand-in's
 *   `base_url` (Responses API over SSE), the project marked trusted there;
 *   `codex exec`. Codex runs a project's hooks only once the user has
 *   reviewed them in its TUI; `--dangerously-bypass-hook-trust` stands for
 *   that review. Codex offers a turn only the MCP servers ready by then (a
 *   grace period); the grace is made long, so the spec is not a race.
 * - Gemini CLI: `GOOGLE_GEMINI_BASE_URL` (loopback may be plain HTTP) and
 *   `GEMINI_API_KEY`, API-key auth chosen in `~/.gemini/settings.json`;
 *   `gemini -p`. `GEMINI_CLI_TRUST_WORKSPACE` stands for trusting the folder.
 *
 * Every variable that could send a request elsewhere is left out, updates
 * and telemetry are off, and a proxy that refuses every connection catches
 * any request not to loopback.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientName } from "./agent-clients.ts";

/** `llm-wiki setup <name>` for each client. */
export const SETUP_NAME = {
  claude: "claude-code",
  codex: "codex",
  gemini: "gemini",
} as const satisfies Record<ClientName, string>;

/** The `client:` a recorded session page names. */
export const RECORDED_CLIENT = {
  claude: "claude-code",
  codex: "codex",
  gemini: "gemini",
} as const satisfies Record<ClientName, string>;

export interface Place {
  home: string;
  project: string;
  /** The stand-in's base URL. */
  url: string;
}

export interface ClientRun {
  args: string[];
  env: Record<string, string>;
}

/** A port nothing listens on: every connection through this proxy is refused. */
const DEAD_PROXY = "http://127.0.0.1:9";

const offline = {
  HTTP_PROXY: DEAD_PROXY,
  HTTPS_PROXY: DEAD_PROXY,
  http_proxy: DEAD_PROXY,
  https_proxy: DEAD_PROXY,
  NO_PROXY: "127.0.0.1,localhost",
  no_proxy: "127.0.0.1,localhost",
};

function toml(value: string): string {
  return JSON.stringify(value);
}

/** Writes the user-scope configuration for `name` and returns how to run one prompt. */
export function prepareClient(name: ClientName, place: Place, prompt: string): ClientRun {
  const { home, project, url } = place;
  if (name === "claude") {
    mkdirSync(join(project, ".claude"), { recursive: true });
    writeFileSync(
      join(project, ".claude", "settings.local.json"),
      `${JSON.stringify({ enabledMcpjsonServers: ["llm-wiki"] })}\n`,
    );
    return {
      args: ["-p", prompt, "--allowedTools", "mcp__llm-wiki"],
      env: {
        ...offline,
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: "sk-ant-stand-in",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
      },
    };
  }
  if (name === "codex") {
    mkdirSync(join(home, ".codex"), { recursive: true });
    writeFileSync(
      join(home, ".codex", "config.toml"),
      [
        'model = "stand-in"',
        'model_provider = "stand-in"',
        "check_for_update_on_startup = false",
        // Codex leaves out of a turn an MCP server still starting after a
        // grace period; a loaded machine must not make the tools' arrival a race.
        "mcp_optional_startup_grace_ms = 600000",
        "[analytics]",
        "enabled = false",
        '[model_providers."stand-in"]',
        'name = "stand-in"',
        `base_url = ${toml(`${url}/v1`)}`,
        'wire_api = "responses"',
        'env_key = "STAND_IN_API_KEY"',
        `[projects.${toml(project)}]`,
        'trust_level = "trusted"',
        "",
      ].join("\n"),
    );
    return {
      args: [
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        prompt,
      ],
      env: { ...offline, STAND_IN_API_KEY: "stand-in" },
    };
  }
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(
    join(home, ".gemini", "settings.json"),
    `${JSON.stringify({
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      security: { auth: { selectedType: "gemini-api-key" } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
    })}\n`,
  );
  return {
    args: ["-p", prompt, "--approval-mode=yolo"],
    env: {
      ...offline,
      GOOGLE_GEMINI_BASE_URL: url,
      GEMINI_API_KEY: "stand-in",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    },
  };
}

/** The project file holding the hooks `setup` wrote for `name`. */
export function hooksFile(name: ClientName, project: string): string {
  if (name === "claude") return join(project, ".claude", "settings.json");
  if (name === "codex") return join(project, ".codex", "hooks.json");
  return join(project, ".gemini", "settings.json");
}

interface HookGroup {
  hooks?: Array<{ timeout?: number }>;
}

/**
 * Lengthens every hook's timeout in the file `setup` wrote (to ten minutes):
 * a machine under load must not cut a hook short, since the spec is about
 * what reaches the model, not how fast (the hooks' speed has its own specs).
 * Gemini CLI counts milliseconds, the others seconds.
 */
export function lengthenHookTimeouts(name: ClientName, project: string): void {
  const file = hooksFile(name, project);
  const config = JSON.parse(readFileSync(file, "utf8")) as { hooks?: Record<string, HookGroup[]> };
  for (const groups of Object.values(config.hooks ?? {}))
    for (const group of groups)
      for (const hook of group.hooks ?? []) hook.timeout = name === "gemini" ? 600_000 : 600;
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
}
