/**
 * Command-line parsing: `llm-wiki <command> [args] [--vault DIR] [--json]`.
 * Usage errors are a `UsageError` (exit code 2), never a stack trace.
 */
import { parseArgs } from "node:util";
import { RETRIEVAL_MODES, type RetrievalMode } from "../extensions/llm-wiki/lib/settings.ts";
import { VAULT_SELECTORS } from "../extensions/llm-wiki/lib/tool-schemas.ts";
import type { VaultSelector } from "../extensions/llm-wiki/lib/wiki-service.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** A string option that may be given several times; its values land in `lists`. */
  multiple?: boolean;
}

export interface Parsed {
  command: string;
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
  /** Values of `multiple` options, in order (empty when not given). */
  lists: Record<string, string[]>;
}

const COMMON: Record<string, OptionSpec> = {
  vault: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/**
 * `parseArgs`'s complaint in our words: its own messages are long and, for
 * an unknown option, end with an unbalanced quote.
 */
function argumentProblem(command: string, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-[^' ]*)/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option !== undefined) {
    return `${command}: unknown option ${option} (llm-wiki ${command} --help lists them)`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option !== undefined) {
    // "argument missing" (last), "ambiguous" (followed by another option): no value was given.
    const missing = /argument missing|ambiguous/.test(message);
    return `${command}: option ${option.split(",")[0]} ${missing ? "needs a value" : "takes no value"}`;
  }
  return `${command}: ${message}`;
}

/** Whether `token` names one of `options` (`--name`, `--name=…`, `-s`, or `--` ending them). */
function isOptionToken(token: string, options: Record<string, OptionSpec>): boolean {
  if (token === "--") return true;
  if (token.startsWith("--")) {
    const name = token.slice(2).split("=", 1)[0] ?? "";
    return Object.hasOwn(options, name);
  }
  if (/^-[A-Za-z]$/.test(token)) {
    return Object.values(options).some((spec) => spec.short === token.slice(1));
  }
  return false;
}

/**
 * Joins a string option to a value that starts with `-` (`--content "-5
 * degrees"`, `--limit -3`): `parseArgs` takes such a value only when written
 * `--content=-5`. A string option followed by anything that is not one of the
 * command's options takes it as its value; followed by an option, or by
 * nothing, it is left for `parseArgs` to say that it needs a value.
 */
export function joinDashValues(
  args: readonly string[],
  options: Record<string, OptionSpec>,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i] as string;
    if (token === "--") {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    const name = token.startsWith("--")
      ? token.slice(2)
      : /^-[A-Za-z]$/.test(token)
        ? Object.entries(options).find(([, spec]) => spec.short === token.slice(1))?.[0]
        : undefined;
    const spec = name !== undefined && Object.hasOwn(options, name) ? options[name] : undefined;
    if (
      spec?.type === "string" &&
      next !== undefined &&
      next.startsWith("-") &&
      !isOptionToken(next, options)
    ) {
      out.push(`--${name}=${next}`);
      i++;
      continue;
    }
    out.push(token);
  }
  return out;
}

/** Whether the arguments after a command ask for its help (`--help`, `-h`, before any `--`). */
export function asksHelp(rest: readonly string[]): boolean {
  for (const token of rest) {
    if (token === "--") return false;
    if (token === "--help" || token === "-h") return true;
  }
  return false;
}

/** Parses `argv` (without node and script) for `command`'s options plus the common ones. */
export function parseCommand(
  argv: string[],
  options: Record<string, Record<string, OptionSpec>>,
): Parsed {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError("no command given");
  if (command === "help" || command === "--help" || command === "-h") {
    // `help page`, `help trajectory capture`: the words of the command asked about.
    return { command: "help", positionals: rest, values: {}, lists: {} };
  }
  if (command === "--version" || command === "-v")
    return { command: "version", positionals: [], values: {}, lists: {} };
  const own = options[command];
  if (own === undefined) throw new UsageError(`unknown command "${command}"`);
  try {
    const all = { ...COMMON, ...own };
    const parsed = parseArgs({
      args: joinDashValues(rest, all),
      options: all,
      allowPositionals: true,
      strict: true,
    });
    const values: Parsed["values"] = {};
    const lists: Parsed["lists"] = {};
    for (const [key, value] of Object.entries(parsed.values)) {
      if (Array.isArray(value)) lists[key] = value.map(String);
      else values[key] = value;
    }
    for (const [key, spec] of Object.entries(own)) if (spec.multiple) lists[key] ??= [];
    return { command, positionals: parsed.positionals, values, lists };
  } catch (error) {
    throw new UsageError(argumentProblem(command, error));
  }
}

/** A positive integer option, or `fallback` when absent. */
export function intOption(
  value: string | boolean | undefined,
  name: string,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${name} takes a positive whole number`);
  return n;
}

/** A value given for `--name`, which must be one of `choices`. */
function choice<T extends string>(value: string | boolean, name: string, choices: readonly T[]): T {
  const found = choices.find((c) => c === value);
  if (found === undefined) throw new UsageError(`--${name} takes one of ${choices.join(", ")}`);
  return found;
}

/** `--mode`: a retrieval mode, or undefined (the settings' mode) when absent. */
export function modeOption(value: string | boolean | undefined): RetrievalMode | undefined {
  return value === undefined ? undefined : choice(value, "mode", RETRIEVAL_MODES);
}

/** `--which`: a vault selector, `active` when absent. */
export function selectorOption(value: string | boolean | undefined): VaultSelector {
  return value === undefined ? "active" : choice(value, "which", VAULT_SELECTORS);
}

/**
 * Standard input to its end, read asynchronously: a synchronous read of fd 0
 * fails with EAGAIN when a slow writer's pipe is non-blocking.
 */
export async function readStdin(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Replaces every option value `-` that `accepts` names with standard input
 * (read once, whatever its speed), so handlers see text and never read fd 0.
 */
export async function resolveStdinValues(
  parsed: Parsed,
  accepts: (command: string, option: string) => boolean,
): Promise<void> {
  const keys = Object.keys(parsed.values).filter(
    (key) => parsed.values[key] === "-" && accepts(parsed.command, key),
  );
  if (keys.length === 0) return;
  const input = await readStdin();
  for (const key of keys) parsed.values[key] = input;
}
