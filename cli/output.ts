/**
 * The command line's only way to write: everything goes through the text
 * safety rule first, so a page, a file name or an argument can never send
 * the terminal a control sequence (colours, cursor moves, OSC 8 links,
 * OSC 52 clipboard writes, bidi overrides).
 */
import { jsonTerminalSafe, terminalSafe } from "../extensions/llm-wiki/lib/safety/text.ts";

/** Writes `text` to standard output, control sequences made harmless (`terminalSafe`). */
export function printOut(text: string): void {
  process.stdout.write(terminalSafe(text));
}

/** Writes `text` to standard error, control sequences made harmless (`terminalSafe`). */
export function printErr(text: string): void {
  process.stderr.write(terminalSafe(text));
}

/**
 * Writes `value` as one indented JSON document and a newline. `JSON.stringify`
 * escapes C0 controls; DEL, C1, bidi controls and line separators are
 * escaped too (`jsonTerminalSafe`), and the document parses to the same value.
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${jsonTerminalSafe(JSON.stringify(value, null, 2))}\n`);
}
