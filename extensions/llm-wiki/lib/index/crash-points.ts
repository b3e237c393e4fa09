/**
 * Named steps of an index rebuild where a test can make the process die
 * (SIGKILL, no cleanup) or fail (an exception, as from a full disk), to prove
 * that a crash or a failure at any step leaves the last good index usable.
 * Inert unless `LLM_WIKI_CRASH_AT` or `LLM_WIKI_FAIL_AT` names the step and
 * `LLM_WIKI_TEST` is set, so no user setting can trigger it.
 */
export const CRASH_STEPS = [
  "after-mirror",
  "after-update",
  "after-manifest",
  "after-complete",
  "after-journal",
  "after-pointer",
  "after-cleanup",
] as const;

export type CrashStep = (typeof CRASH_STEPS)[number];

/** Kills this process, or throws, at `step` when a test asked for it. */
export function crashPoint(step: CrashStep): void {
  if (process.env.LLM_WIKI_TEST !== "1") return;
  if (process.env.LLM_WIKI_CRASH_AT === step) process.kill(process.pid, "SIGKILL");
  if (process.env.LLM_WIKI_FAIL_AT === step) {
    // `LLM_WIKI_FAIL_CODE` gives the error a system code, e.g. ENOSPC for a full disk.
    const code = process.env.LLM_WIKI_FAIL_CODE;
    const error = new Error(`${code ? `${code}: ` : ""}injected failure at ${step}`);
    throw code ? Object.assign(error, { code }) : error;
  }
}
