#!/usr/bin/env node
/**
 * `llm-wiki`: the command-line host. Parses arguments, calls the shared
 * service, renders the result. Exit codes: 0 success, 1 the operation
 * reported errors, 2 usage.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { loadCliSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { intOption, type OptionSpec, type Parsed, parseCommand, UsageError } from "./args.ts";
import { renderDiagnostics, renderSearch, renderStatus } from "./render.ts";

const USAGE = `usage: llm-wiki <command> [options]

commands:
  init [--name N] [--topic T] [--mode M]   create a vault here (or at --vault)
  status                                   pages, roles, links and diagnostics
  search <query> [--limit N]               exact lookup by id, title, alias or tag

common options:
  --vault DIR   a folder holding .llm-wiki/ (or that folder); default: nearest from here
  --json        one JSON document on stdout
`;

const OPTIONS: Record<string, Record<string, OptionSpec>> = {
  init: { name: { type: "string" }, topic: { type: "string" }, mode: { type: "string" } },
  status: {},
  search: { limit: { type: "string" } },
};

interface Outcome {
  ok: boolean;
  result: object;
  text: string;
  diagnostics: Diagnostic[];
}

type Handler = (service: WikiService, args: Parsed) => Outcome;

const HANDLERS: Record<string, Handler> = {
  init(service, { values }) {
    const result = service.bootstrap({
      ...(typeof values.name === "string" ? { name: values.name } : {}),
      ...(typeof values.topic === "string" ? { topic: values.topic } : {}),
      ...(typeof values.mode === "string" ? { mode: values.mode } : {}),
    });
    const text = result.created
      ? `created vault at ${result.vault.dir}`
      : `vault already exists at ${result.vault.dir}${result.createdPaths.length ? ` (completed: ${result.createdPaths.join(", ")})` : ""}`;
    return { ok: true, result, text, diagnostics: [] };
  },
  status(service) {
    const result = service.status();
    return { ok: result.ok, result, text: renderStatus(result), diagnostics: result.diagnostics };
  },
  search(service, { positionals, values }) {
    const query = positionals.join(" ");
    if (query.trim() === "") throw new UsageError("search needs a query");
    const result = service.search({ query, limit: intOption(values.limit, "limit", 10) });
    return { ok: result.ok, result, text: renderSearch(result), diagnostics: result.diagnostics };
  },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

function main(argv: string[]): number {
  let parsed: Parsed;
  try {
    parsed = parseCommand(argv, OPTIONS);
  } catch (error) {
    process.stderr.write(`llm-wiki: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.command === "help" || parsed.values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (parsed.command === "version") {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const handler = HANDLERS[parsed.command];
  if (!handler) {
    process.stderr.write(`llm-wiki: unknown command "${parsed.command}"\n`);
    return 2;
  }
  const { settings, diagnostics: settingsDiagnostics } = loadCliSettings();
  const service = createWikiService({
    cwd: process.cwd(),
    settings,
    ...(typeof parsed.values.vault === "string" ? { vault: parsed.values.vault } : {}),
  });
  let outcome: Outcome;
  try {
    outcome = handler(service, parsed);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`llm-wiki: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`llm-wiki: ${(error as Error).message}\n`);
    return 1;
  }
  const diagnostics = [...settingsDiagnostics, ...outcome.diagnostics];
  if (parsed.values.json) {
    process.stdout.write(`${JSON.stringify({ ...outcome.result, ok: outcome.ok }, null, 2)}\n`);
  } else {
    if (outcome.text) process.stdout.write(`${outcome.text}\n`);
    const shown = diagnostics.filter((d) => d.severity !== "info" || !outcome.ok);
    if (shown.length > 0) process.stderr.write(`${renderDiagnostics(shown)}\n`);
  }
  if (!outcome.ok) {
    const first = outcome.diagnostics.find((d) => d.severity === "error");
    if (parsed.values.json && first) process.stderr.write(`llm-wiki: ${first.message}\n`);
  }
  return outcome.ok ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
