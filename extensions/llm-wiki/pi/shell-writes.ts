/**
 * The files a shell command obviously writes, moves or deletes: redirection
 * targets (`>`, `>>`, `&>`), every path argument of `rm`, `mv`, `touch`,
 * `tee`, `sed -i` and their kind, the destination of `cp`, `ln`, `install`,
 * `rsync`, and `dd of=`. A heuristic for guardrails, not a shell parser: a
 * script that writes through an interpreter (`python -c …`) is not seen.
 */

/** Verbs that remove (or move away) whatever they name, a whole folder included. */
const REMOVING = new Set(["rm", "rmdir", "unlink", "shred", "mv"]);
/** Verbs whose every path argument is written, moved or removed. */
const ALL_ARGS = new Set([
  "rm",
  "rmdir",
  "unlink",
  "shred",
  "truncate",
  "touch",
  "mkdir",
  "mv",
  "tee",
  "chmod",
  "chown",
  "chgrp",
]);
/** Verbs that write only their destination (the last argument, or `-t DIR`). */
const LAST_ARG = new Set(["cp", "ln", "install", "rsync", "scp"]);
/** Verbs that write their file arguments only with an in-place flag. */
const IN_PLACE = new Set(["sed", "perl"]);
/** Words that run the next word as the command. */
const PREFIXES = new Set(["sudo", "command", "env", "exec", "nohup", "time", "doas"]);

const REDIRECT = /(?:&>>?|\d*>>?\|?)\s*(?!&)("[^"]*"|'[^']*'|[^\s;&|<>()]+)/g;
const SEGMENT_BREAK = /\|\||&&|[;|&\n()]/;

function unquote(word: string): string {
  return word.replace(/^(["'])(.*)\1$/s, "$2");
}

/** Words of one simple command, quotes removed (no expansion). */
function words(segment: string): string[] {
  const out: string[] = [];
  for (const m of segment.matchAll(/"[^"]*"|'[^']*'|[^\s"']+/g)) out.push(unquote(m[0]));
  return out;
}

/** A path a command writes; `removes` when it deletes or moves it away. */
export interface ShellTarget {
  path: string;
  removes: boolean;
}

/** The paths a segment's command writes. */
function segmentTargets(segment: string): ShellTarget[] {
  // Redirections are handled separately; drop them so they are not taken as arguments.
  const ws = words(segment.replace(REDIRECT, " "));
  while (
    ws.length > 0 &&
    (/^[A-Za-z_][A-Za-z0-9_]*=/.test(ws[0] ?? "") || PREFIXES.has(ws[0] ?? ""))
  ) {
    ws.shift();
  }
  const verb = (ws.shift() ?? "").split("/").pop() ?? "";
  const args = ws.filter((w) => !w.startsWith("-"));
  const written = (paths: string[]) => paths.map((path) => ({ path, removes: REMOVING.has(verb) }));
  if (ALL_ARGS.has(verb)) return written(args);
  if (IN_PLACE.has(verb)) {
    return ws.some((w) => /^-[a-zA-Z]*i/.test(w) || w.startsWith("--in-place"))
      ? written(args)
      : [];
  }
  if (LAST_ARG.has(verb)) {
    const out: string[] = [];
    ws.forEach((w, i) => {
      if (w === "-t" && ws[i + 1]) out.push(ws[i + 1] ?? "");
      if (w.startsWith("--target-directory=")) out.push(w.slice("--target-directory=".length));
    });
    const last = args.at(-1);
    if (last !== undefined && args.length >= 2) out.push(last);
    return written(out);
  }
  if (verb === "dd") return written(ws.filter((w) => w.startsWith("of=")).map((w) => w.slice(3)));
  return [];
}

/** Paths `command` obviously writes, as written (relative, `~`, or with variables). */
export function shellWriteTargets(command: string): ShellTarget[] {
  const targets: ShellTarget[] = [];
  for (const m of command.matchAll(REDIRECT)) {
    targets.push({ path: unquote(m[1] ?? ""), removes: false });
  }
  for (const segment of command.split(SEGMENT_BREAK)) targets.push(...segmentTargets(segment));
  return targets.filter((t) => t.path !== "" && t.path !== "/dev/null");
}
