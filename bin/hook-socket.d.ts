/** Types of `hook-socket.js` (plain JavaScript: the hooks' thin client runs it before any bundle). */
export declare const WARM_PROTOCOL: number;
export declare const HOOK_STDIN_MAX_BYTES: number;
export declare const HOOK_STDIN_TIMEOUT_MS: number;
export declare const WARM_REQUEST_MAX_BYTES: number;
export declare const HOOK_DEADLINE_MS: number;
export declare function hookDeadlineMs(env?: NodeJS.ProcessEnv): number;
export declare const WARM_IDLE_MS: number;
export declare const HOOK_BUNDLE: string;
export declare function warmEnabled(env?: NodeJS.ProcessEnv): boolean;
export declare function warmIdleMs(env?: NodeJS.ProcessEnv): number;
export declare function shortHash(text: string): string;
export declare function warmIdentity(cliDir: string, env?: NodeJS.ProcessEnv): string;
export declare function warmFolder(env?: NodeJS.ProcessEnv): { dir: string } | { refused: string };
export declare function warmSocket(
  cliDir: string,
  env?: NodeJS.ProcessEnv,
): { path: string; identity: string; key: string } | { refused: string };
export declare const WARM_RETRY_MS: number;
export declare const WARM_MAX_SERVED: number;
export declare function warmFailedMarker(socketPath: string): string;
export declare function readWarmHello(
  path: string,
  timeoutMs?: number,
): Promise<object | undefined>;
