/**
 * The character budget of an answer a model reads (`recallMaxChars`): recall,
 * priming and search answers are cut to it in every host, so a tool result
 * never costs the model more than the budget says.
 */
import { CLOSE, OPEN } from "./recall/recall-block.ts";

/** Ends an answer that had to be cut; the full result stays machine-readable. */
export const CUT_MARKER =
  "\n… (cut to the recallMaxChars budget; the full result is machine-readable)";

/**
 * `text` when it fits `maxChars`, else its longest prefix ending at a line
 * break that fits with the marker (a plain prefix when no line break does).
 * A recall block the cut would leave open is closed first: the model must
 * never read an opening fence without its end.
 */
export function withinBudget(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const open = text.indexOf(`${OPEN}\n`);
  const opened = open !== -1 && (open === 0 || text[open - 1] === "\n");
  const closing = `\n${CLOSE}`;
  const cut = (room: number) => {
    const prefix = text.slice(0, Math.max(0, room));
    const lineEnd = prefix.lastIndexOf("\n");
    return lineEnd > 0 ? prefix.slice(0, lineEnd) : prefix;
  };
  let kept = cut(maxChars - CUT_MARKER.length);
  if (opened && kept.length > open) {
    // The cut falls inside the block: keep room to close it.
    kept = cut(maxChars - CUT_MARKER.length - closing.length);
    if (kept.length <= open + OPEN.length) kept = text.slice(0, open).replace(/\n+$/, "");
    else kept = `${kept}${closing}`;
  }
  return `${kept}${CUT_MARKER}`.slice(0, maxChars);
}
