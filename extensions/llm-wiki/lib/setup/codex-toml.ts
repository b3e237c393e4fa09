/**
 * Codex's `config.toml`, edited as text so the user's comments, spacing and
 * key order survive (a TOML library would drop the comments on the way
 * back). Our entry is the table `[mcp_servers.llm-wiki]` (with any
 * `[mcp_servers.llm-wiki.*]` subtables): it is cut out line by line and a
 * fresh one appended at the end. The parser (smol-toml) checks the file
 * before, and the result after: the result must parse, hold our entry as
 * intended, and equal the original in everything else, or nothing is
 * written. An entry written another way (inline, dotted keys) is refused
 * with a diagnostic rather than guessed at.
 */
import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "smol-toml";
import { SERVER_NAME, setupError } from "./setup-types.ts";

type TomlTable = Record<string, unknown>;

/**
 * The parsed file as plain JSON data: the parser's tables are not plain
 * objects, and dates compare by their text.
 */
function parseToml(path: string, text: string): TomlTable {
  try {
    return JSON.parse(JSON.stringify(parse(text))) as TomlTable;
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

/** The parsed file without our entry (what the rest must still equal). */
function withoutOurEntry(table: TomlTable): TomlTable {
  const servers = serversOf(table);
  if (!servers || !Object.hasOwn(servers, SERVER_NAME)) return table;
  const { [SERVER_NAME]: _ours, ...others } = servers;
  const copy: TomlTable = { ...table, mcp_servers: others };
  if (Object.keys(others).length === 0) delete copy.mcp_servers;
  return copy;
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
): string | undefined {
  const original = text ?? "";
  const before = parseToml(path, original);
  const current = serversOf(before)?.[SERVER_NAME];
  if (action === "add" && current !== undefined && isDeepStrictEqual(current, entry)) return text;
  if (action === "remove" && current === undefined) return text;
  let next = cutOurTables(original);
  // The blank line that set our table apart goes with it.
  if (!original.endsWith("\n\n")) next = next.replace(/\n{2,}$/, "\n");
  if (action === "add") {
    if (next !== "" && !next.endsWith("\n")) next += "\n";
    if (next.trim() !== "" && !next.endsWith("\n\n")) next += "\n";
    next += stringify({ mcp_servers: { [SERVER_NAME]: entry } });
    if (!next.endsWith("\n")) next += "\n";
  }
  let after: TomlTable | undefined;
  try {
    after = parseToml(path, next);
  } catch {
    // Our cut left something of the old entry behind (an inline table, dotted keys).
  }
  const oursAfter = after ? serversOf(after)?.[SERVER_NAME] : undefined;
  const ok =
    after !== undefined &&
    isDeepStrictEqual(withoutOurEntry(before), withoutOurEntry(after)) &&
    (action === "add" ? isDeepStrictEqual(oursAfter, entry) : oursAfter === undefined);
  if (!ok) {
    throw setupError(
      path,
      `its ${SERVER_NAME} entry is not written as a [mcp_servers.${SERVER_NAME}] table, so it cannot be edited safely`,
      `edit the ${SERVER_NAME} entry in ${path} by hand (or remove it), then run the command again`,
    );
  }
  return next.trim() === "" ? undefined : next;
}
