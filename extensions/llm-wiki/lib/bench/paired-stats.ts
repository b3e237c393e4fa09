/**
 * Paired differences for benchmark reports: the mean of per-unit
 * differences (per query, or per seed) with a 95 % Student-t interval, and
 * how many units went up, stayed, or went down. Rounded to 6 decimals so a
 * report reads the same on every machine.
 */

/** Two-sided 95 % critical values of Student's t, by degrees of freedom (1–30). */
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145,
  2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048,
  2.045, 2.042,
] as const;

/** The two-sided 95 % critical value of t with `df` degrees of freedom (the normal's past 30). */
export function t95(df: number): number {
  return T95[df - 1] ?? 1.96;
}

const round = (x: number) => Number(x.toFixed(6));

/** A paired difference b − a over units. */
export interface PairedDelta {
  n: number;
  mean: number;
  /** Null with fewer than two units, or when every difference is the same. */
  ci95: [number, number] | null;
  /** Units where b is above a, equal to it (within 1e-9), below it. */
  wins: number;
  ties: number;
  losses: number;
}

/** The paired difference `b[i] − a[i]`. */
export function pairedDelta(a: readonly number[], b: readonly number[]): PairedDelta {
  if (a.length !== b.length) throw new RangeError("paired series must have the same length");
  const d = b.map((v, i) => v - (a[i] ?? 0));
  const n = d.length;
  const wins = d.filter((x) => x > 1e-9).length;
  const losses = d.filter((x) => x < -1e-9).length;
  const base = { n, wins, losses, ties: n - wins - losses };
  if (n === 0) return { ...base, mean: 0, ci95: null };
  const mean = d.reduce((s, x) => s + x, 0) / n;
  const variance = n > 1 ? d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1) : 0;
  if (n < 2 || variance === 0) return { ...base, mean: round(mean), ci95: null };
  const half = t95(n - 1) * Math.sqrt(variance / n);
  return { ...base, mean: round(mean), ci95: [round(mean - half), round(mean + half)] };
}
