/**
 * Which symbols a commit's tree contains, with `git grep`. Page text is
 * hostile, so a term reaches git only on standard input (`-f -`) as a fixed
 * string (`-F`), never as an argument: the arguments are fixed, the commit
 * is a checked sha, and nothing follows `--`. Terms are re-checked here
 * (identifier-shaped, at most 80 characters, no control byte) whatever the
 * caller did, and asked for in batches.
 */
import type { GitRunner } from "./git-run.ts";

/** Terms per `git grep`: bounds one call's input and output. */
const TERMS_PER_CALL = 500;
const MAX_TERM_CHARS = 80;
/** What a search term may look like: a symbol or a segment of one (see extract.ts). */
const TERM = /^[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|#)[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** Whether `term` may be given to `git grep` (as a pattern on standard input). */
export function safeTerm(term: string): boolean {
  return term.length > 0 && term.length <= MAX_TERM_CHARS && TERM.test(term);
}

/** Every run of whole segments of a match (`A.b.c` → `A`, `A.b`, `A.b.c`, `b`, `b.c`, `c`). */
function segmentRuns(match: string): string[] {
  const parts = match.split(/(\.|::|#)/);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += 2)
    for (let j = i; j < parts.length; j += 2) out.push(parts.slice(i, j + 1).join(""));
  return out;
}

/**
 * For each of `terms` that is safe, whether it occurs as a word in the tree
 * of `commit` outside `excluded` (repository-relative folder: the vault,
 * whose pages name every symbol). Undefined when git failed or `commit` is
 * not a sha.
 */
export function termPresence(
  run: GitRunner,
  root: string,
  commit: string,
  terms: readonly string[],
  excluded?: string,
): Map<string, boolean> | undefined {
  if (!SHA.test(commit)) return undefined;
  const wanted = [...new Set(terms.filter(safeTerm))].sort();
  const out = new Map<string, boolean>(wanted.map((t) => [t, false]));
  const prefix = excluded ? `${commit}:${excluded}/` : undefined;
  for (let i = 0; i < wanted.length; i += TERMS_PER_CALL) {
    const batch = wanted.slice(i, i + TERMS_PER_CALL);
    const text = run(
      [
        "grep",
        "--no-color",
        "--no-textconv",
        "-I",
        "-F",
        "-w",
        "-o",
        "-z",
        "-f",
        "-",
        commit,
        "--",
      ],
      { cwd: root, input: `${batch.join("\n")}\n`, noMatchIsEmpty: true },
    );
    if (text === undefined) return undefined;
    for (const line of text.split("\n")) {
      // `<commit>:<path>\0[<line>\0<column>\0]<match>`: the match is the last field.
      const fields = line.split("\u0000");
      if (fields.length < 2) continue;
      if (prefix && fields[0]?.startsWith(prefix)) continue;
      // A match may cover several terms (`A.b` also shows `A` and `b` are there).
      for (const piece of segmentRuns(fields[fields.length - 1] ?? ""))
        if (out.has(piece)) out.set(piece, true);
    }
  }
  return out;
}
