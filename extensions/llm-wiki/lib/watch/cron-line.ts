/**
 * `llm-wiki watch --cron` and the `wiki_watch` tool: the crontab line that
 * runs the full cycle (reindex, lint, digest) on a schedule, for the user to
 * install. Nothing is installed here; the line is only printed. It runs the
 * commands in a login shell (cron's PATH rarely holds `llm-wiki`), names the
 * vault with `--vault`, logs to `.llm-wiki/meta/cron.log`, and is tagged
 * `# llm-wiki-autoupdate` so the user can find and remove it.
 */
import { join } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";

export const CRON_INTERVALS = ["daily", "weekly", "hourly"] as const;
export type CronInterval = (typeof CRON_INTERVALS)[number];
/** The interval asking how to remove an installed line (the older system's `interval: "stop"`). */
export const CRON_STOP = "stop";
/** The tag that ends every line, to find it again in `crontab -l`. */
export const CRON_TAG = "llm-wiki-autoupdate";

const SCHEDULES: Record<CronInterval, { schedule: string; label: string }> = {
  daily: { schedule: "0 8 * * *", label: "daily at 08:00" },
  weekly: { schedule: "0 9 * * 1", label: "weekly on Monday at 09:00" },
  hourly: { schedule: "0 * * * *", label: "every hour" },
};

export interface CronLineResult {
  ok: boolean;
  interval?: CronInterval | typeof CRON_STOP;
  /** The five crontab time fields. */
  schedule?: string;
  label?: string;
  line?: string;
  /** Always false: the line is for the user to install (`crontab -e`). */
  installed: false;
  diagnostics: Diagnostic[];
}

/** One POSIX shell word: single-quoted, a quote inside written as `'\''`. */
function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The crontab line for the vault at `root` (the folder holding `.llm-wiki/`).
 * Lint's exit status does not stop the digest (`;`, not `&&`): a vault with
 * findings still gets its digest. An hourly cycle writes a daily digest,
 * which the digest names `-2`, `-3`… when one of the day already exists.
 */
export function cronLine(root: string, interval: CronInterval): CronLineResult {
  // A line break would end the crontab entry; cron reads `%` as one.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  if (/[\u0000-\u001f\u007f]/u.test(root)) {
    return {
      ok: false,
      installed: false,
      diagnostics: [
        diagnostic(
          "cron_path_unusable",
          "error",
          "the vault's path holds a control character, which a crontab line cannot carry",
        ),
      ],
    };
  }
  const { schedule, label } = SCHEDULES[interval];
  const vault = `--vault ${shellWord(root)}`;
  const period = interval === "weekly" ? "weekly" : "daily";
  const cycle = `llm-wiki reindex ${vault}; llm-wiki lint ${vault}; llm-wiki digest --period ${period} ${vault}`;
  const log = shellWord(join(root, ".llm-wiki", "meta", "cron.log"));
  const command = `/bin/bash -lc ${shellWord(cycle)} >> ${log} 2>&1`.replace(/%/g, "\\%");
  return {
    ok: true,
    interval,
    schedule,
    label,
    line: `${schedule} ${command} # ${CRON_TAG}`,
    installed: false,
    diagnostics: [],
  };
}

/**
 * `interval: "stop"`: how to remove the line installed earlier. Nothing is
 * changed here either; the tag is the one the older system's line carried
 * too, so the same steps remove either.
 */
export function cronStop(): CronLineResult {
  return { ok: true, interval: CRON_STOP, installed: false, diagnostics: [] };
}

/** The line with how to install it (or, for stop, how to remove it), as a host shows it. */
export function renderCronLine(result: CronLineResult): string {
  if (result.ok && result.interval === CRON_STOP)
    return [
      `To stop the wiki's scheduled cycle, remove its crontab line (nothing was changed): crontab -e, then delete the line tagged # ${CRON_TAG}.`,
      "",
      `To list it first: crontab -l | grep ${CRON_TAG}`,
    ].join("\n");
  if (!result.ok || !result.line) return "";
  return [
    `To run the wiki's full cycle (reindex, lint, digest) ${result.label}, add this line with \`crontab -e\` (nothing was installed):`,
    "",
    result.line,
    "",
    `To stop it later: crontab -e, then delete the line tagged # ${CRON_TAG}.`,
  ].join("\n");
}
