/** Fenced code blocks that the text inside cannot close early. */

/** A fence longer than any backtick run inside `text`. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

/** `text` in a fenced block tagged `language`, trailing whitespace trimmed. */
export function fenced(text: string, language: string): string {
  const body = text.replace(/^\uFEFF/, "").replace(/\s+$/, "");
  const fence = fenceFor(body);
  return `${fence}${language}\n${body}\n${fence}\n`;
}
