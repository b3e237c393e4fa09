/**
 * The turn budget: a step that has not answered when the budget runs out is
 * abandoned (its result ignored), and the cheaper result in hand answers.
 */
/** A step ran past the turn budget. */
export class BudgetExceeded extends Error {
  /** The search step that was cut (set by the step's runner). */
  step?: string;
  constructor() {
    super("turn budget exceeded");
  }
}

/** The diagnostic code of a recall a step of which the budget cut: its answer is partial or empty. */
export const BUDGET_DIAGNOSTIC = "recall_budget_exceeded";

/** Rejects when `ms` runs out first; the loser keeps running but its result is ignored. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (!Number.isFinite(ms)) return promise;
  if (ms <= 0) throw new BudgetExceeded();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BudgetExceeded()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
