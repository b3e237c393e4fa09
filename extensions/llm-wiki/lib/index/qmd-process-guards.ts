/**
 * The process-wide effects the QMD adapter needs, confined to one place (see
 * qmd-store.ts's module comment): model and build variables held while QMD
 * reads them, `CI` cleared while QMD creates its LLM object, and stdout
 * writes from inside a model call routed to stderr so an MCP stdio stream
 * stays clean.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { MODEL_ENV_VARS, MODEL_ROLES, type ResolvedModels } from "./models.ts";

/** Set while a model call runs: its stdout writes go to stderr. */
export const modelCall = new AsyncLocalStorage<boolean>();
let stdoutGuards = 0;
let originalWrite: typeof process.stdout.write | undefined;
const GUARD = "llmWikiStdoutGuard";

/**
 * Ours, or ours as QMD puts it back: each of QMD's own redirects saves
 * `process.stdout.write.bind(process.stdout)` and restores that bound copy.
 */
function isGuard(write: unknown): boolean {
  return typeof write === "function" && write.name.replace(/^(bound )+/, "") === GUARD;
}

/** Runs a model call with its own stdout writes sent to stderr. */
export async function withStdoutToStderr<T>(fn: () => Promise<T>): Promise<T> {
  if (stdoutGuards++ === 0) {
    const original = process.stdout.write;
    originalWrite = original;
    // A computed key names the arrow function, which is how `isGuard` knows it.
    const guard = {
      [GUARD]: (...args: Parameters<typeof process.stdout.write>) =>
        modelCall.getStore()
          ? process.stderr.write(...(args as Parameters<typeof process.stderr.write>))
          : original.apply(process.stdout, args),
    }[GUARD];
    process.stdout.write = guard as typeof process.stdout.write;
  }
  try {
    return await modelCall.run(true, fn);
  } finally {
    // A write someone else installed on top of ours stays.
    if (--stdoutGuards === 0 && isGuard(process.stdout.write) && originalWrite) {
      process.stdout.write = originalWrite;
    }
  }
}

/**
 * Runs `fn` with the `QMD_*_MODEL` variables set to `models` (see the module
 * comment), then restores each variable that still holds what we set.
 */
export function withModelEnv<T>(models: ResolvedModels, fn: () => T | Promise<T>): Promise<T> {
  return withEnv(
    Object.fromEntries(MODEL_ROLES.map((role) => [MODEL_ENV_VARS[role], models[role].uri])),
    fn,
  );
}

/** Sets `vars`, returning what puts back each one that still holds what was set. */
function setEnv(vars: Readonly<Record<string, string>>): () => void {
  const saved = Object.entries(vars).map(([name, value]) => ({
    name,
    value,
    before: process.env[name],
  }));
  for (const v of saved) process.env[v.name] = v.value;
  return () => {
    for (const v of saved) {
      if (process.env[v.name] !== v.value) continue;
      if (v.before === undefined) delete process.env[v.name];
      else process.env[v.name] = v.before;
    }
  };
}

/** Runs `fn` with `vars` set, then restores each variable that still holds what was set. */
export async function withEnv<T>(
  vars: Readonly<Record<string, string>>,
  fn: () => T | Promise<T>,
): Promise<T> {
  const restore = setEnv(vars);
  try {
    return await fn();
  } finally {
    restore();
  }
}

/** QMD's LLM object, as far as this wraps it: `ensureLlama` loads (once) and returns the runtime. */
interface RuntimeHolder {
  ensureLlama?: (...args: unknown[]) => Promise<unknown>;
}

/**
 * Has `llm` (a QMD LLM object) load its llama.cpp runtime with `vars()` set.
 * QMD reads its build variables synchronously when `ensureLlama` starts a
 * load, so they are set for that synchronous call only, never across an
 * await; an object without the expected shape (another QMD) is left alone.
 */
export function loadRuntimeWithEnv(
  llm: unknown,
  vars: () => Readonly<Record<string, string>>,
): void {
  if (typeof llm !== "object" || llm === null) return;
  const holder = llm as RuntimeHolder;
  const ensure = holder.ensureLlama;
  if (typeof ensure !== "function") return;
  holder.ensureLlama = (...args: unknown[]) => {
    const restore = setEnv(vars());
    try {
      return ensure.apply(llm, args);
    } finally {
      restore();
    }
  };
}

/** Calls `fn` (which creates QMD's LLM object synchronously) with `CI` unset. */
export function withoutCi<T>(fn: () => T): T {
  const saved = process.env.CI;
  delete process.env.CI;
  try {
    return fn();
  } finally {
    if (saved !== undefined) process.env.CI = saved;
  }
}

/** Rejects as soon as `signal` aborts; the work itself finishes in the background. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
