/**
 * The priming query: what a session is about, as words a lexical search can
 * use. The most session-specific parts come first (branch, recent commit
 * subjects, changed files), then the project's name and the vault's topic,
 * so the words kept under the cap are the ones that tell this session from
 * any other in the same project. Pure: the git context is read elsewhere.
 */
import type { GitContext } from "./git-context.ts";

/** What priming knows about the session. */
export interface PrimingContext {
  /** The vault's topic (config). */
  topic?: string;
  /** The project's name: the folder that holds the vault. */
  project?: string;
  branch?: string;
  subjects: string[];
  files: string[];
}

/** Most distinct words in a priming query (the lexical search weighs at most 32, ORs 16). */
export const PRIMING_QUERY_WORDS = 24;
/** Words of the project's name and topic a query always keeps room for. */
const GENERAL_WORDS = 8;
/** Longest word kept: longer ones are hashes or generated names, not topics. */
const MAX_WORD_CHARS = 40;

/**
 * Words that name the kind of change or a default branch, not what the
 * session is about: conventional-commit types, branch prefixes, merge noise.
 */
const NOISE = new Set([
  "feat",
  "feature",
  "features",
  "fix",
  "fixes",
  "fixed",
  "bugfix",
  "hotfix",
  "chore",
  "refactor",
  "docs",
  "doc",
  "test",
  "tests",
  "style",
  "perf",
  "build",
  "ci",
  "wip",
  "merge",
  "merged",
  "branch",
  "main",
  "master",
  "develop",
  "dev",
  "head",
  "origin",
  "pull",
  "request",
  "revert",
  "bump",
  "release",
  "update",
  "updated",
  "add",
  "added",
  "remove",
  "removed",
  "the",
  "and",
  "for",
  "with",
  "from",
  "into",
  "this",
  "that",
  "src",
  "lib",
  "index",
  "readme",
  "md",
  "ts",
  "tsx",
  "js",
  "jsx",
  "json",
  "yaml",
  "yml",
  "py",
  "go",
  "rs",
  "java",
  "txt",
]);

/**
 * The words of a piece of text: letters and digits (any script), split at
 * case changes (`rateLimiter` → rate limiter), lower-cased; hex hashes,
 * numbers alone and noise words dropped.
 */
export function primingWords(text: string): string[] {
  const spaced = text
    .normalize("NFKC")
    .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2");
  const out: string[] = [];
  for (const raw of spaced.split(/[^\p{L}\p{N}]+/u)) {
    const word = raw.toLowerCase();
    if (word.length < 2 || word.length > MAX_WORD_CHARS) continue;
    // Numbers, versions and escape-sequence debris (`31m`) start with a digit; hashes are hex.
    if (/^\p{N}/u.test(word) || /^[0-9a-f]{7,}$/.test(word)) continue;
    if (NOISE.has(word)) continue;
    out.push(word);
  }
  return out;
}

/** A changed file as words: its folders and name, without the extension. */
function fileWords(path: string): string[] {
  const parts = path.split(/[\\/]/).filter((p) => p !== "" && p !== "." && p !== "..");
  const name = parts.pop() ?? "";
  const stem = name.includes(".") ? name.slice(0, name.lastIndexOf(".")) : name;
  // The nearest folders say more than the top ones (`src`, `packages`).
  return primingWords([...parts.slice(-2), stem].join(" "));
}

/** Builds the priming query (empty when the context holds no usable word). */
export function primingQuery(context: PrimingContext, maxWords = PRIMING_QUERY_WORDS): string {
  const seen = new Set<string>();
  const words: string[] = [];
  // The project and topic always get a few words in, however chatty the commits are.
  const general = [
    ...primingWords(context.project ?? ""),
    ...primingWords(context.topic ?? ""),
  ].filter((w, i, all) => all.indexOf(w) === i);
  const reserved = Math.min(GENERAL_WORDS, general.length);
  const sessionCap = maxWords - reserved;
  const take = (list: readonly string[], cap: number) => {
    for (const w of list) {
      if (words.length >= cap) return;
      if (seen.has(w)) continue;
      seen.add(w);
      words.push(w);
    }
  };
  if (context.branch) take(primingWords(context.branch), sessionCap);
  for (const s of context.subjects) take(primingWords(s), sessionCap);
  for (const f of context.files) take(fileWords(f), sessionCap);
  take(general, maxWords);
  return words.join(" ");
}

/** The priming context from the vault's topic, the project's name and git. */
export function primingContext(
  base: { topic?: string; project?: string },
  git: GitContext | undefined,
): PrimingContext {
  const context: PrimingContext = {
    subjects: git?.subjects ?? [],
    files: git?.files ?? [],
  };
  if (base.topic) context.topic = base.topic;
  if (base.project) context.project = base.project;
  if (git?.branch) context.branch = git.branch;
  return context;
}
