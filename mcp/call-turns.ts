/**
 * Tool calls start one per turn of the event loop. A client may send two
 * hundred calls in one write; the SDK hands each to its handler in a
 * microtask, so without a gate every call's synchronous part (a lint reads
 * and scans every page) would run back to back before the process looks
 * at a signal, the end of its input or a ping again: an exit promised
 * within 2 s took over a minute. Between two starts the loop polls I/O, so
 * a SIGTERM, a closed stdin or a ping is seen after the call now running,
 * and a call cancelled while it waited (the client left) is never started.
 */

/** Hands out turns: each `next()` resolves one event-loop turn after the one before it. */
export interface CallTurns {
  /**
   * Waits for this call's turn. Resolves `false` when `signal` aborts first
   * (or had aborted): the call is not to be started.
   */
  next(signal?: AbortSignal): Promise<boolean>;
}

/** A turn later: `setImmediate` runs after the loop has polled for I/O and signals. */
function afterPoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function createCallTurns(): CallTurns {
  let last: Promise<void> = Promise.resolve();
  return {
    next(signal) {
      // Chained, so a batch of calls does not share one check phase: one start per turn.
      const turn = last.then(afterPoll);
      last = turn;
      if (signal === undefined) return turn.then(() => true);
      if (signal.aborted) return Promise.resolve(false);
      return new Promise((resolve) => {
        const abort = () => resolve(false);
        signal.addEventListener("abort", abort, { once: true });
        turn.then(() => {
          signal.removeEventListener("abort", abort);
          resolve(!signal.aborted);
        });
      });
    },
  };
}
