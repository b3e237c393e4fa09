/**
 * node-llama-cpp gives a CPU runtime at least four threads
 * (`max(4, cpuMathCores)`), and every context created without a thread
 * count takes them all: QMD creates its query-expansion context that way.
 * On a machine with fewer cores those threads spin against each other at
 * every step of the graph. Measured on 2 cores with the test models and a
 * busy machine: an expansion took 360–900 ms with 4 threads, 20–90 ms with
 * the runtime capped at 2. Machines with four cores or more are unchanged.
 */
import { availableParallelism } from "node:os";

/** The part of node-llama-cpp's `Llama` this reads and sets. */
interface ThreadedRuntime {
  maxThreads: number;
}

/** QMD's LLM object, as far as this wraps it: `ensureLlama` loads (once) and returns the runtime. */
interface RuntimeHolder {
  ensureLlama?: (...args: unknown[]) => Promise<unknown>;
}

function isThreaded(runtime: unknown): runtime is ThreadedRuntime {
  return (
    typeof runtime === "object" &&
    runtime !== null &&
    typeof (runtime as Partial<ThreadedRuntime>).maxThreads === "number"
  );
}

/**
 * Caps the threads of the llama.cpp runtime `llm` (QMD's per-store LLM
 * object) loads at the cores this process may use, as soon as it is loaded.
 * Loads nothing itself, so a store that never runs a model pays nothing;
 * an object without the expected shape (another QMD) is left alone.
 */
export function capLlamaThreads(llm: unknown, cores: number = availableParallelism()): void {
  if (typeof llm !== "object" || llm === null) return;
  const holder = llm as RuntimeHolder;
  const ensure = holder.ensureLlama;
  if (typeof ensure !== "function") return;
  holder.ensureLlama = async (...args: unknown[]) => {
    const runtime = await ensure.apply(llm, args);
    // 0 means no limit (a GPU runtime): left as node-llama-cpp chose.
    if (isThreaded(runtime) && runtime.maxThreads > cores) runtime.maxThreads = Math.max(1, cores);
    return runtime;
  };
}
