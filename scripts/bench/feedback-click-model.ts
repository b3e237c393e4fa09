/**
 * The feedback benchmark's simulated user: a position-biased click model.
 * A page at rank r is examined with probability 1/r^η (the same η = 0.7 the
 * projection corrects for), and an examined page is opened with a
 * probability set by its graded relevance to the user's need; irrelevant
 * pages get occasional noise clicks. Opened pages are cited in the answer
 * by relevance too, and now and then the user states a judgment outright.
 * Each seed of the benchmark draws its users' probabilities from
 * `CLICK_MODEL_RANGES`: how far down they look, how often they click
 * pages that do not answer them (noise), how often they open, cite and
 * judge — so the seeds' spread includes how noisy the users are.
 */

/** The click model's parameters (probabilities in [0, 1]). */
export interface ClickModel {
  /** Examination falls with rank as 1/rank^eta. */
  eta: number;
  /** P(open | examined), by grade: 0 (not judged for the need) to 3. */
  open: readonly [number, number, number, number];
  /** P(cite | opened), by grade. */
  cite: readonly [number, number, number, number];
  /** P(an explicit judgment) per turn. */
  judgeRate: number;
}

/** The benchmark's click model: noise clicks on 8 % of examined irrelevant pages, judgments on 5 % of turns. */
export const DEFAULT_CLICK_MODEL: ClickModel = {
  eta: 0.7,
  open: [0.08, 0.35, 0.6, 0.9],
  cite: [0.05, 0.3, 0.5, 0.8],
  judgeRate: 0.05,
};

/** A closed interval [low, high]. */
export type Range = readonly [number, number];

/** The ranges a seed draws its click model from, uniformly (each grade's its own). */
export interface ClickModelRanges {
  eta: Range;
  open: readonly [Range, Range, Range, Range];
  cite: readonly [Range, Range, Range, Range];
  judgeRate: Range;
}

/**
 * Around the default model: noise clicks on 2 to 15 % of examined irrelevant
 * pages, examination falling as 1/rank^0.5 to 1/rank^1, judgments on 2 to 8 %
 * of turns.
 */
export const CLICK_MODEL_RANGES: ClickModelRanges = {
  eta: [0.5, 1],
  open: [
    [0.02, 0.15],
    [0.2, 0.5],
    [0.4, 0.8],
    [0.7, 0.98],
  ],
  cite: [
    [0.01, 0.1],
    [0.15, 0.45],
    [0.3, 0.7],
    [0.6, 0.95],
  ],
  judgeRate: [0.02, 0.08],
};

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * A click model drawn from `ranges` with `rand`: each probability uniform in
 * its range, rounded to 4 decimals (the report lists them); P(open) and
 * P(cite) sorted by grade, so a more relevant page is never less attractive.
 */
export function drawClickModel(
  rand: () => number,
  ranges: ClickModelRanges = CLICK_MODEL_RANGES,
): ClickModel {
  const draw = ([lo, hi]: Range) => round4(lo + rand() * (hi - lo));
  const byGrade = (r: ClickModelRanges["open"]) => {
    const [a = 0, b = 0, c = 0, d = 0] = r.map(draw).sort((x, y) => x - y);
    return [a, b, c, d] as const;
  };
  return {
    eta: draw(ranges.eta),
    open: byGrade(ranges.open),
    cite: byGrade(ranges.cite),
    judgeRate: draw(ranges.judgeRate),
  };
}

/** What the simulated user did with one answer. */
export interface TurnActions {
  opened: string[];
  cited: string[];
  judgment?: { page: string; judgment: "relevant" | "irrelevant" };
}

/**
 * The user's actions on `ranked` (page ids, best first) for a need whose
 * judged pages are `grades`. An explicit judgment says `relevant` of a
 * judged page shown (the first one opened, else the best ranked), or —
 * when the page at rank 1 is not judged for the need — `irrelevant` of it.
 */
export function simulateTurn(
  ranked: readonly string[],
  grades: ReadonlyMap<string, number>,
  rand: () => number,
  model: ClickModel = DEFAULT_CLICK_MODEL,
): TurnActions {
  const opened: string[] = [];
  const cited: string[] = [];
  ranked.forEach((page, i) => {
    const grade = Math.max(0, Math.min(3, grades.get(page) ?? 0));
    const examined = rand() < (i + 1) ** -model.eta;
    if (!examined || rand() >= (model.open[grade] ?? 0)) return;
    opened.push(page);
    if (rand() < (model.cite[grade] ?? 0)) cited.push(page);
  });
  const actions: TurnActions = { opened, cited };
  const top = ranked[0];
  if (top !== undefined && rand() < model.judgeRate) {
    if (!grades.has(top)) actions.judgment = { page: top, judgment: "irrelevant" };
    else {
      const page = opened.find((p) => grades.has(p)) ?? top;
      actions.judgment = { page, judgment: "relevant" };
    }
  }
  return actions;
}
