/**
 * The git runner code references use: the project's one runner for an
 * untrusted repository (see safety/untrusted-git.ts), re-exported so the
 * modules here keep one import.
 */
export { type GitRunner, runGit } from "../safety/untrusted-git.ts";
