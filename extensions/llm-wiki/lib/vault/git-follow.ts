/**
 * A process's view of the commit its vault's repository has checked out,
 * so the index follows `git pull`, `git checkout` and `git merge`: each
 * check reads HEAD as files (a few small reads, no git process), and when
 * it moved since the last check names the vault pages the two commits
 * differ in (one `git diff --name-only`). A fresh process needs none of
 * this: the registry's folder stamps see what git rewrote (git replaces a
 * file it changes, which touches its folder).
 */
import { changedBetween } from "./git-changes.ts";
import { findGitRepo, type GitRepo, headCommit } from "./git-state.ts";
import type { VaultPaths } from "./paths.ts";

/** What moved since the last check: the changed files, or undefined when every page must be looked at. */
export interface GitMove {
  from: string;
  to: string;
  changed: string[] | undefined;
}

export interface GitFollower {
  /**
   * The move since the commit last settled (or since this follower was
   * made); undefined when HEAD did not move. Asked again, it is the same
   * move until `settled` says it was caught up.
   */
  check(): GitMove | undefined;
  /** The pages of `move` are in: the next check starts from its commit. */
  settled(move: GitMove): void;
}

/** A follower of `paths`'s repository, starting from the commit checked out now. */
export function followGitHead(paths: VaultPaths): GitFollower {
  let repo: GitRepo | undefined | null = null;
  const repoNow = (): GitRepo | undefined => {
    if (repo === null) repo = findGitRepo(paths.root);
    return repo;
  };
  const headNow = (): string | undefined => {
    const r = repoNow();
    return r ? headCommit(r) : undefined;
  };
  let seen = headNow();
  return {
    check() {
      const r = repoNow();
      if (r === undefined) return undefined;
      const now = headCommit(r);
      if (now === undefined || now === seen) return undefined;
      if (seen === undefined) return { from: "", to: now, changed: undefined };
      return { from: seen, to: now, changed: changedBetween(r, seen, now, paths.wiki) };
    },
    settled(move) {
      seen = move.to;
    },
  };
}
