/**
 * Statistics of the feedback benchmark: a figure's mean over seeds with a
 * 95 % Student-t confidence interval (seeds are few, so not the normal
 * approximation) and range, rounded so the report reads the same on every
 * machine; a figure no seed changes is reported as one run.
 */

import { t95 } from "../../extensions/llm-wiki/lib/bench/paired-stats.ts";

/**
 * A figure over seeds: mean, 95 % interval, and the smallest and largest
 * seed's value. A figure that is the same on every seed has no spread to
 * estimate: it is one run (`oneRun`), and its interval is null, never a
 * zero-width interval dressed as a confidence interval.
 */
export interface Estimate {
  mean: number;
  ci95: [number, number] | null;
  min: number;
  max: number;
  n: number;
  /** True when every seed gave the same value (or there is one seed). */
  oneRun: boolean;
}

const round = (x: number) => Number(x.toFixed(6));

/** Mean, t-interval and range of `values` (one per seed). */
export function estimate(values: readonly number[]): Estimate {
  const n = values.length;
  if (n === 0) return { mean: 0, ci95: null, min: 0, max: 0, n, oneRun: true };
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const min = Math.min(...values);
  const max = Math.max(...values);
  // Equal after the report's rounding: sums of the same terms in another order differ in the last bits.
  const oneRun = round(max) === round(min);
  const base = { mean: round(mean), min: round(min), max: round(max), n, oneRun };
  if (oneRun) return { ...base, ci95: null };
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  const half = t95(n - 1) * Math.sqrt(variance / n);
  return { ...base, ci95: [round(mean - half), round(mean + half)] };
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

const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;

/**
 * An estimate's spread as the table prints it: `[+0.010, +0.026] min +0.004
 * max +0.031` over several differing seeds, `one run` when every seed gave
 * the same value (or there was one seed).
 */
export function formatSpread(e: Estimate): string {
  if (e.oneRun || !e.ci95)
    return e.n > 1 ? `one run (the same on all ${e.n} seeds)` : "one run (one seed)";
  return `[${signed(e.ci95[0])}, ${signed(e.ci95[1])}] min ${signed(e.min)} max ${signed(e.max)}`;
}

/** A comparison as `0.812 → 0.830  Δ +0.018 [+0.010, +0.026] min +0.004 max +0.031`. */
export function formatComparison(c: Comparison): string {
  const f = (x: number) => x.toFixed(3);
  return `${f(c.off.mean)} → ${f(c.on.mean)}  Δ ${signed(c.delta.mean)} ${formatSpread(c.delta)}`;
}
