/**
 * A slash command's argument text as words: the `--flags` apart from the
 * rest, in order. Pi hands a command its arguments as one string.
 */
export interface CommandWords {
  flags: string[];
  rest: string[];
}

/** Splits `args` on white space into flags (`--x`) and the other words. */
export function commandWords(args: string): CommandWords {
  const words = args
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  return {
    flags: words.filter((w) => w.startsWith("--")),
    rest: words.filter((w) => !w.startsWith("--")),
  };
}
