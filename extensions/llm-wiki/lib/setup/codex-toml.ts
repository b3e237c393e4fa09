/**
 * Codex's `config.toml`, edited as text so the user's comments, spacing,
 * key order and numbers survive (a TOML library would drop the comments on
 * the way back). Our entry is the table `[mcp_servers.llm-wiki]`: when it
 * exists only its `command` and `args` lines are rewritten in place, so the
 * user's other keys there and subtables such as `[mcp_servers.llm-wiki.env]`
 * stay; when it does not, a fresh table is appended; `remove` cuts the table
 * and its subtables line by line. A table of that name that runs another
 * server is not replaced without `force`, and never removed. The parser
 * (smol-toml, integers beyond 2^53 as BigInt) checks the file before, and
 * the result after: the result must parse, hold our entry as intended, and
 * equal the original in everything else, or nothing is written. An entry
 * written another way (inline, dotted keys) is refused with a diagnostic
 * rather than guessed at.
 */
import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "smol-toml";
import { isOurServer } from "./ownership.ts";
import { SERVER_NAME, setupError } from "./setup-types.ts";

type TomlTable = Record<string, unknown>;

/**
 * The parsed file as plain JSON data: the parser's tables are not plain
 * objects, and dates compare by their text.
 */
function parseToml(path: string, text: string): TomlTable {
  try {
    const table = parse(text, { integersAsBigInt: "asNeeded" });
    // Big integers compare by their digits.
    return JSON.parse(
      JSON.stringify(table, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)),
    ) as TomlTable;
  } catch (error) {
    const first = (error as Error).message.split("\n")[0] ?? "";
    throw setupError(
      path,
      `is not valid TOML (${first})`,
      `fix ${path} by hand, then run the command again`,
    );
  }
}

/** A header line of our table or one of its subtables. */
const OUR_HEADER = new RegExp(
  String.raw`^\s*\[\s*mcp_servers\s*\.\s*(?:${SERVER_NAME}|"${SERVER_NAME}"|'${SERVER_NAME}')\s*(?:\]|\.)`,
);
/** The header line of our table itself (not a subtable). */
const OUR_MAIN_HEADER = new RegExp(
  String.raw`^\s*\[\s*mcp_servers\s*\.\s*(?:${SERVER_NAME}|"${SERVER_NAME}"|'${SERVER_NAME}')\s*\]\s*(?:#.*)?$`,
);
/** Any table header (`[x]` or `[[x]]`), not a line inside a multi-line string or array. */
const HEADER = /^\s*\[/;

/** `text` without our table's lines; the lines of multi-line strings are never taken for headers. */
function cutOurTables(text: string): string {
  const lines = text.split(/(?<=\n)/);
  const kept: string[] = [];
  let inOurs = false;
  let inString: string | undefined;
  let depth = 0;
  for (const line of lines) {
    const atTop = inString === undefined && depth === 0;
    if (atTop && HEADER.test(line)) inOurs = OUR_HEADER.test(line);
    if (!inOurs) kept.push(line);
    ({ inString, depth } = scanLine(line, inString, depth));
  }
  return kept.join("");
}

/**
 * Tracks multi-line strings (`"""`, `'''`) and open array brackets across a
 * line, so a `[` opening a line inside them is not read as a header.
 */
function scanLine(
  line: string,
  inString: string | undefined,
  depth: number,
): { inString: string | undefined; depth: number } {
  let i = 0;
  let open = inString;
  let level = depth;
  while (i < line.length) {
    if (open !== undefined) {
      if (open === '"""' && line[i] === "\\") {
        i += 2;
        continue;
      }
      if (line.startsWith(open, i)) {
        i += open.length;
        open = undefined;
        continue;
      }
      i += 1;
      continue;
    }
    const c = line[i];
    if (c === "#") break;
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      open = line.slice(i, i + 3);
      i += 3;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = c === '"' ? closingQuote(line, i + 1) : line.indexOf("'", i + 1);
      i = end < 0 ? line.length : end + 1;
      continue;
    }
    // Only brackets inside a key/value line count: a header's own brackets close on the line.
    if (c === "[") level += 1;
    if (c === "]") level = Math.max(0, level - 1);
    i += 1;
  }
  return { inString: open, depth: level };
}

function closingQuote(line: string, from: number): number {
  for (let i = from; i < line.length; i += 1) {
    if (line[i] === "\\") i += 1;
    else if (line[i] === '"') return i;
  }
  return -1;
}

function serversOf(table: TomlTable): TomlTable | undefined {
  const servers = table.mcp_servers;
  return servers !== null && typeof servers === "object" && !Array.isArray(servers)
    ? (servers as TomlTable)
    : undefined;
}

/** The parsed file without our entry, or (`keysOnly`) without only its `command` and `args`. */
function withoutOurEntry(table: TomlTable, keysOnly = false): TomlTable {
  const servers = serversOf(table);
  if (!servers || !Object.hasOwn(servers, SERVER_NAME)) return table;
  const { [SERVER_NAME]: ours, ...others } = servers;
  if (keysOnly && ours !== null && typeof ours === "object") {
    const { command: _c, args: _a, ...rest } = ours as TomlTable;
    return { ...table, mcp_servers: { ...others, [SERVER_NAME]: rest } };
  }
  const copy: TomlTable = { ...table, mcp_servers: others };
  if (Object.keys(others).length === 0) delete copy.mcp_servers;
  return copy;
}

/** A `key = value` line of TOML, as smol-toml writes it. */
function keyLine(key: string, value: unknown): string {
  return stringify({ [key]: value }).trim();
}

/**
 * `text` with the `command` and `args` lines of our table rewritten (added
 * after its header when absent); every other line kept. Undefined when the
 * table is not written as a `[mcp_servers.llm-wiki]` header.
 */
function rewriteOurKeys(
  text: string,
  entry: { command: string; args: string[] },
): string | undefined {
  const lines = text.split(/(?<=\n)/);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  // Our header where a header can be: not a line inside a multi-line string or array.
  let header = -1;
  let state: { inString: string | undefined; depth: number } = { inString: undefined, depth: 0 };
  for (const [n, line] of lines.entries()) {
    const atTop = state.inString === undefined && state.depth === 0;
    if (atTop && OUR_MAIN_HEADER.test(line.replace(/\r?\n$/, ""))) {
      header = n;
      break;
    }
    state = scanLine(line, state.inString, state.depth);
  }
  if (header < 0) return undefined;
  const wanted: Record<string, string> = {
    command: keyLine("command", entry.command),
    args: keyLine("args", entry.args),
  };
  const out = lines.slice(0, header + 1);
  const seen = new Set<string>();
  let i = header + 1;
  let inString: string | undefined;
  let depth = 0;
  let lastKey = header;
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    const atTop = inString === undefined && depth === 0;
    if (atTop && HEADER.test(line)) break;
    const key = atTop ? /^\s*(command|args)\s*=/.exec(line)?.[1] : undefined;
    if (key !== undefined) {
      // The key's whole value, over as many lines as an array or string takes.
      let state = scanLine(line, undefined, 0);
      while ((state.inString !== undefined || state.depth > 0) && i + 1 < lines.length) {
        i++;
        state = scanLine(lines[i] as string, state.inString, state.depth);
      }
      out.push(`${wanted[key]}${eol}`);
      seen.add(key);
      lastKey = out.length - 1;
      continue;
    }
    out.push(line);
    if (atTop && /^\s*[A-Za-z0-9_"'-]/.test(line)) lastKey = out.length - 1;
    ({ inString, depth } = scanLine(line, inString, depth));
  }
  const missing = (["command", "args"] as const)
    .filter((k) => !seen.has(k))
    .map((k) => `${wanted[k]}${eol}`);
  out.splice(lastKey + 1, 0, ...missing);
  return [...out, ...lines.slice(i)].join("");
}

/**
 * Adds (`entry`) or removes our MCP server in the TOML `text` of the file at
 * `path`; returns the same text when nothing changes, undefined when the
 * file is left with nothing in it.
 */
export function editCodexToml(
  path: string,
  text: string | undefined,
  entry: { command: string; args: string[] },
  action: "add" | "remove",
  force = false,
): string | undefined {
  const original = text ?? "";
  const before = parseToml(path, original);
  const current = serversOf(before)?.[SERVER_NAME] as TomlTable | undefined;
  const same =
    current !== undefined &&
    current.command === entry.command &&
    isDeepStrictEqual(current.args, entry.args);
  const ours = current !== undefined && (same || isOurServer(current));
  if (action === "remove" && !ours) return text;
  let next: string | undefined;
  // Ours: only its command and args change; the user's keys and subtables there stay.
  const inPlace = action === "add" && ours;
  if (action === "add" && current !== undefined) {
    if (same) return text;
    if (!ours && !force) {
      throw setupError(
        path,
        `already has an [mcp_servers.${SERVER_NAME}] entry that setup did not write (it runs something else), and setup does not replace another's entry`,
        `rename or remove that entry by hand, or run setup again with --force to replace it`,
      );
    }
  }
  if (inPlace) next = rewriteOurKeys(original, entry);
  else {
    next = cutOurTables(original);
    // The blank line that set our table apart goes with it.
    if (!original.endsWith("\n\n")) next = next.replace(/\n{2,}$/, "\n");
    if (action === "add") {
      if (next !== "" && !next.endsWith("\n")) next += "\n";
      if (next.trim() !== "" && !next.endsWith("\n\n")) next += "\n";
      next += stringify({ mcp_servers: { [SERVER_NAME]: entry } });
      if (!next.endsWith("\n")) next += "\n";
    }
  }
  let after: TomlTable | undefined;
  try {
    if (next !== undefined) after = parseToml(path, next);
  } catch {
    // Our edit left something of the old entry behind (an inline table, dotted keys).
  }
  const oursAfter = after ? (serversOf(after)?.[SERVER_NAME] as TomlTable | undefined) : undefined;
  const ok =
    after !== undefined &&
    isDeepStrictEqual(withoutOurEntry(before, inPlace), withoutOurEntry(after, inPlace)) &&
    (action === "add"
      ? oursAfter?.command === entry.command && isDeepStrictEqual(oursAfter?.args, entry.args)
      : oursAfter === undefined);
  if (!ok || next === undefined) {
    throw setupError(
      path,
      `its ${SERVER_NAME} entry is not written as a [mcp_servers.${SERVER_NAME}] table, so it cannot be edited safely`,
      `edit the ${SERVER_NAME} entry in ${path} by hand (or remove it), then run the command again`,
    );
  }
  return next.trim() === "" ? undefined : next;
}
