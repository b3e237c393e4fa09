/**
 * The character budget of an answer a model reads (`recallMaxChars`): recall,
 * priming and search answers are cut to it in every host, so a tool result
 * never costs the model more than the budget says.
 */

/** Ends an answer that had to be cut; the full result stays machine-readable. */
export const CUT_MARKER =
  "\n… (cut to the recallMaxChars budget; the full result is machine-readable)";

/**
 * `text` when it fits `maxChars`, else its longest prefix ending at a line
 * break that fits with the marker (a plain prefix when no line break does).
 */
export function withinBudget(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const room = Math.max(0, maxChars - CUT_MARKER.length);
  const prefix = text.slice(0, room);
  const lineEnd = prefix.lastIndexOf("\n");
  return `${lineEnd > 0 ? prefix.slice(0, lineEnd) : prefix}${CUT_MARKER}`.slice(0, maxChars);
}
