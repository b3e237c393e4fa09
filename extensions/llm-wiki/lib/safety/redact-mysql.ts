/**
 * Context for MySQL/MariaDB passwords glued to `-p` (`mysql -pSECRET`): a
 * `-p` counts when one of their commands comes before it on the same shell
 * segment (no newline, `|`, `;` or `&` between), at most 200 characters away.
 *
 * Done in code rather than a look-behind because a value may itself hold `&`
 * or `;` (`-pa&b`), and a long value pushes the command out of reach: once
 * the value is hidden behind its mark the next `-p` of the line has a new
 * context, and redacting the redacted text would find more — one more per
 * pass, without end on a hostile line. Here the values already taken on the
 * line are read as the marks they become.
 */
import { RUN, redactionMark, type SecretSpan } from "./redact-kinds.ts";

/** How far before `-p` the command may be, as the look-behind had it. */
const WINDOW = 200;

/** The command, ending exactly at the end of the slice it is tested on. */
const COMMAND_AT_END =
  /(?:^|[^A-Za-z0-9_])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mysqlcheck|mariadb|mariadb-dump)$/;

/** Longest command (`mariadb-dump`) plus the character before it. */
const COMMAND_REACH = 13;

const MARK_LENGTH = redactionMark("cli_password").length;

/** Whether a command word ends at `at`, with no word character after it. */
function commandEndsAt(text: string, at: number): boolean {
  if (at < text.length && /[A-Za-z0-9_]/.test(text[at] ?? "")) return false;
  return COMMAND_AT_END.test(text.slice(Math.max(0, at - COMMAND_REACH), at));
}

/**
 * Whether the `-p` matched at `match.index + 1` (after a space or tab) follows
 * a MySQL/MariaDB command on its segment. `taken` are the values this rule
 * already took earlier in the same text, in order.
 */
export function mysqlCommandBefore(match: RegExpExecArray, taken: readonly SecretSpan[]): boolean {
  const text = match.input;
  let at = match.index + 1;
  let distance = 0;
  let next = taken.length - 1;
  for (;;) {
    if (commandEndsAt(text, at)) return true;
    if (at === 0 || distance >= WINDOW) return false;
    const span = taken[next];
    if (span !== undefined && span.end >= at && span.start < at) {
      // A value taken before: its mark, grown over the run (its `-p`), stands here.
      let start = span.start;
      while (start > 0 && RUN.test(text[start - 1] ?? "")) start--;
      at = start;
      distance += MARK_LENGTH;
      next--;
      continue;
    }
    if (span !== undefined && span.start >= at) {
      next--;
      continue;
    }
    const c = text[at - 1];
    if (c === "\n" || c === "|" || c === ";" || c === "&") return false;
    at--;
    distance++;
  }
}
