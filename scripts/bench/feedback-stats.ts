/**
 * Statistics of the feedback benchmark: a figure's mean over seeds with a
 * 95 % Student-t confidence interval (seeds are few, so not the normal
 * approximation), rounded so the report reads the same on every machine.
 */

/** Two-sided 95 % critical values of Student's t, by degrees of freedom (1–30). */
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145,
  2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048,
  2.045, 2.042,
] as const;

/** A mean over seeds and its 95 % interval; the interval is null with one seed. */
export interface Estimate {
  mean: number;
  ci95: [number, number] | null;
  n: number;
}

const round = (x: number) => Number(x.toFixed(6));

/** Mean and t-interval of `values` (one per seed). */
export function estimate(values: readonly number[]): Estimate {
  const n = values.length;
  if (n === 0) return { mean: 0, ci95: null, n };
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n === 1) return { mean: round(mean), ci95: null, n };
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  const half = (T95[n - 2] ?? 1.96) * Math.sqrt(variance / n);
  return { mean: round(mean), ci95: [round(mean - half), round(mean + half)], n };
}

/** A figure with feedback off, on, and the per-seed difference on − off. */
export interface Comparison {
  off: Estimate;
  on: Estimate;
  delta: Estimate;
}

/** Off, on and paired difference of per-seed figures. */
export function compare(off: readonly number[], on: readonly number[]): Comparison {
  return {
    off: estimate(off),
    on: estimate(on),
    delta: estimate(on.map((v, i) => v - (off[i] ?? 0))),
  };
}

/** A comparison as `0.812 → 0.830 (+0.018 [+0.010, +0.026])`. */
export function formatComparison(c: Comparison): string {
  const f = (x: number) => x.toFixed(3);
  const s = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;
  const ci = c.delta.ci95 ? ` [${s(c.delta.ci95[0])}, ${s(c.delta.ci95[1])}]` : "";
  return `${f(c.off.mean)} → ${f(c.on.mean)} (${s(c.delta.mean)}${ci})`;
}
