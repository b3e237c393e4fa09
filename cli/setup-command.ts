/**
 * `llm-wiki setup <client> [--project|--user] [--dry-run] [--remove]`:
 * writes the MCP server (and hooks, where the client has ours) into a
 * client's own configuration, merged with what is there. A project's files
 * (the default scope; a team commits them) name the commands `llm-wiki` and
 * `llm-wiki-mcp`, which every teammate's install puts on PATH, and say so
 * when this machine's PATH lacks them; the user's own files name this
 * install's absolute Node and bundled bins. A second
 * run changes nothing; `--dry-run` shows the change and writes nothing;
 * `--remove` takes out only our entries. A config file it cannot read is
 * left as it is, with a diagnostic (exit 1).
 */
import { homedir } from "node:os";
import { renderDiagnostics } from "../extensions/llm-wiki/lib/render-text.ts";
import { applyPlan, type SetupResult } from "../extensions/llm-wiki/lib/setup/apply-plan.ts";
import { clientPlan, SETUP_CLIENTS } from "../extensions/llm-wiki/lib/setup/clients.ts";
import {
  missingFromPath,
  PORTABLE_COMMAND,
  setupCommandFor,
} from "../extensions/llm-wiki/lib/setup/launch-command.ts";
import { type OptionSpec, type Parsed, UsageError } from "./args.ts";
import { printErr, printJson, printOut } from "./output.ts";

export const SETUP_OPTIONS: Record<string, OptionSpec> = {
  project: { type: "boolean" },
  user: { type: "boolean" },
  "dry-run": { type: "boolean" },
  remove: { type: "boolean" },
  force: { type: "boolean" },
};

export const SETUP_USAGE = `  setup <client> [--project|--user]         add the MCP server (and hooks) to a client's config:
        [--dry-run] [--remove] [--force]   ${Object.keys(SETUP_CLIENTS).join(", ")}; --dry-run shows the change,
                                           --remove takes ours out (default scope: --project),
                                           --force replaces another server named llm-wiki
`;

function renderResult(result: SetupResult): string {
  const lines: string[] = [];
  const verb = result.action === "add" ? "set up" : "removed";
  for (const file of result.files) {
    if (file.change === "unchanged") {
      lines.push(
        result.action === "add"
          ? `${file.path}: already set up (${file.what})`
          : `${file.path}: nothing of ours (${file.what})`,
      );
      continue;
    }
    const what = `${file.what} ${result.action === "add" ? "added" : "removed"}`;
    const done = file.change === "removed" ? "would remove the file" : "would write";
    lines.push(
      result.dryRun
        ? `${file.path}: ${done} (${what})\n${file.diff}`
        : `${file.path}: ${file.change === "removed" ? "removed the file" : "written"} (${what})`,
    );
  }
  const all = result.files.every((f) => f.change === "unchanged");
  if (result.dryRun) lines.push("dry run: nothing was written");
  else if (all) lines.push(`${result.client}: already ${verb} (${result.scope})`);
  else lines.push(`${result.client}: ${verb} (${result.scope})`);
  for (const note of result.notes) lines.push(`note: ${note}`);
  return lines.join("\n");
}

/** What to do when the commands the project's files name are not on this machine's PATH. */
function pathNotes(): string[] {
  const names = [...new Set([PORTABLE_COMMAND.cli[0], PORTABLE_COMMAND.mcp[0]])].filter(
    (n): n is string => n !== undefined,
  );
  const missing = missingFromPath(names, process.env);
  if (missing.length === 0) return [];
  return [
    `${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not on this machine's PATH: the project's files name the commands, so that they work on every teammate's machine; install them (from a clone: \`node scripts/install.js\`, see the README's Install), or use --user for this install's absolute paths.`,
  ];
}

/** Runs `llm-wiki setup`; resolves to the exit code. */
export function setupCommand({ positionals, values }: Parsed): number {
  try {
    const [client, ...extra] = positionals;
    if (client === undefined) throw new UsageError("setup needs a client");
    if (extra.length > 0) throw new UsageError(`setup takes one client, not "${extra.join(" ")}"`);
    if (values.project && values.user) throw new UsageError("give --project or --user, not both");
    const scope = values.user ? "user" : "project";
    // A project's files are shared: they name the commands, which each machine's PATH resolves.
    const command = scope === "project" ? PORTABLE_COMMAND : setupCommandFor();
    const plan = clientPlan(client, scope, command, {
      project: process.cwd(),
      home: homedir(),
      env: process.env,
    });
    if (!plan) {
      throw new UsageError(
        `unknown client "${client}" (one of: ${Object.keys(SETUP_CLIENTS).join(", ")})`,
      );
    }
    if (scope === "project") plan.notes.push(...pathNotes());
    const result = applyPlan(
      plan,
      values.remove ? "remove" : "add",
      values["dry-run"] === true,
      values.force === true,
    );
    if (values.json) printJson(result);
    else if (result.ok) printOut(`${renderResult(result)}\n`);
    if (!result.ok) printErr(`${renderDiagnostics(result.diagnostics)}\n`);
    return result.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError) {
      printErr(`llm-wiki: ${error.message}\n`);
      return 2;
    }
    printErr(`llm-wiki setup: ${(error as Error).message}\n`);
    return 1;
  }
}
