/** Types of `hook-client.js` (plain JavaScript: the hooks' thin client runs before any bundle). */

/** What reading a hook's input came to (cli/hook-input.ts says each to the user). */
export type StdinRead =
  | { kind: "bytes"; bytes: Buffer }
  | { kind: "tty" }
  | { kind: "over" }
  | { kind: "timeout" }
  | { kind: "error"; message: string };
export declare const WARM_HOOKS: readonly string[];
export declare function readHookStdin(max?: number, timeoutMs?: number): Promise<StdinRead>;
export declare function answerWarm(
  launcherUrl: string,
  argv: readonly string[],
): Promise<{ done: true } | { done: false; stdin?: StdinRead }>;
