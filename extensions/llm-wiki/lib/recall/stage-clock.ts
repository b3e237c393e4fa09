/**
 * Times the stages of one recall: each stage's wall time, in the order the
 * stages ran, for `--explain` and the benchmarks (a regression shows where
 * it came from).
 */
import type { RecallStage, RecallStageName } from "./recall-types.ts";

/** Runs stages and keeps their times; one per recall, never shared. */
export interface StageClock {
  readonly stages: RecallStage[];
  run<T>(stage: RecallStageName, work: () => T): T;
}

/** 0.01 ms: finer than that is noise on a shared machine, and it keeps reports short. */
const round = (ms: number) => Math.round(ms * 100) / 100;

export function stageClock(): StageClock {
  const stages: RecallStage[] = [];
  return {
    stages,
    run<T>(stage: RecallStageName, work: () => T): T {
      const t0 = performance.now();
      const record = () => {
        stages.push({ stage, ms: round(performance.now() - t0) });
      };
      const out = work();
      if (out instanceof Promise) {
        // An async stage is timed until it settles.
        return out.finally(record) as T;
      }
      record();
      return out;
    },
  };
}
