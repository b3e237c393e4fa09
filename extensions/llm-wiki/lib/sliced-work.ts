/**
 * Long synchronous work (lint reads and scans every page: seconds on a
 * 10,000-page vault) written once as a generator that yields whenever its
 * slice of time is used up, and run one of two ways: in one go (a CLI run,
 * the views of a vault bootstrap has just made), or handing the event loop
 * back at every yield, so a server sees a signal, the end of its input or a
 * ping between two slices, and a cancelled call stops at the next one.
 */
import { diagnostic, WikiError } from "./diagnostics.ts";

/** Work that yields (nothing) each time its clock says the slice is over; returns `T`. */
export type Sliced<T> = Generator<void, T, void>;

/** Tells sliced work when to yield. */
export interface SliceClock {
  /** True once the current slice has run its length; cheap enough to ask once per page. */
  due(): boolean;
}

/**
 * How long one slice may hold the event loop: a hundredth of the 2 s a
 * server has to exit, and long enough that the turns between slices cost
 * nothing measurable. A time, not a count of pages, so it adapts to the
 * machine and to how long each page takes.
 */
export const SLICE_MS = 20;

const NEVER_DUE: SliceClock = { due: () => false };

/** Runs `work` to its end in one go: its clock is never due, so it never yields. */
export function runWhole<T>(work: (clock: SliceClock) => Sliced<T>): T {
  const steps = work(NEVER_DUE);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** A turn later: `setImmediate` runs after the loop has polled for I/O and signals. */
function afterPoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The error a sliced run rejects with when its signal aborts; `what` names the operation. */
export function cancelledError(what: string): WikiError {
  return new WikiError(diagnostic("operation_cancelled", "error", `${what} was cancelled`));
}

/** True when `error` is a sliced run's cancellation (see `cancelledError`). */
export function isCancelled(error: unknown): error is WikiError {
  return error instanceof WikiError && error.diagnostic.code === "operation_cancelled";
}

/**
 * Runs `work` in slices of `SLICE_MS` with a turn of the event loop between
 * them. When `signal` aborts (before the start or during a turn), the work
 * is dropped at that slice boundary and the promise rejects with
 * `cancelledError(what)`; nothing after the boundary runs.
 */
export async function runSliced<T>(
  work: (clock: SliceClock) => Sliced<T>,
  what: string,
  signal?: AbortSignal,
): Promise<T> {
  if (signal?.aborted) throw cancelledError(what);
  let begun = performance.now();
  const steps = work({ due: () => performance.now() - begun >= SLICE_MS });
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await afterPoll();
    if (signal?.aborted) throw cancelledError(what);
    begun = performance.now();
  }
}

/** When sliced work run by `runPaced` yields, and what runs between two slices. */
export interface Pace {
  /** True when the work should stop at its next yield point. */
  due(): boolean;
  /** Runs (and is awaited) at each yield; a rejection ends the work there. */
  between(): Promise<void>;
}

/**
 * Runs `work` with `pace` as its clock, awaiting `pace.between()` at every
 * yield: for work that feeds a consumer on another thread, which then sets
 * the pace (a full queue makes the clock due and `between` waits for it).
 */
export async function runPaced<T>(work: (clock: SliceClock) => Sliced<T>, pace: Pace): Promise<T> {
  const steps = work(pace);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pace.between();
  }
}
