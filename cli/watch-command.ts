/**
 * `llm-wiki watch`: keeps the vault's index current while its pages change,
 * until Ctrl-C or SIGTERM (one watcher per vault; a second is refused).
 * `llm-wiki watch --cron daily|weekly|hourly` only prints the crontab line
 * for the full cycle (reindex, lint, digest); nothing is installed.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { renderDiagnostics, renderReindex } from "../extensions/llm-wiki/lib/render-text.ts";
import { vaultExists } from "../extensions/llm-wiki/lib/vault/paths.ts";
import {
  CRON_INTERVALS,
  CRON_STOP,
  type CronInterval,
  renderCronLine,
} from "../extensions/llm-wiki/lib/watch/cron-line.ts";
import { startVaultWatch } from "../extensions/llm-wiki/lib/watch/vault-watcher.ts";
import { noVaultDiagnostic, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type OptionSpec, type Parsed, UsageError } from "./args.ts";
import { printErr, printJson, printOut } from "./output.ts";

/** Options of `watch` beyond the common ones. */
export const WATCH_OPTIONS: Record<string, OptionSpec> = {
  cron: { type: "string" },
};

/** Usage line(s) for the CLI's help text. */
export const WATCH_USAGE = `  watch                                    keep the index current while pages change (Ctrl-C stops)
        [--cron daily|weekly|hourly|stop]  only print a crontab line for reindex + lint + digest
                                           (stop: how to remove it)
`;

interface Outcome {
  ok: boolean;
  result: object;
  text: string;
  diagnostics: Diagnostic[];
}

function cronOption(value: string | boolean): CronInterval | typeof CRON_STOP {
  if (value === CRON_STOP) return CRON_STOP;
  const interval = CRON_INTERVALS.find((i) => i === value);
  if (!interval)
    throw new UsageError(`--cron is one of ${[...CRON_INTERVALS, CRON_STOP].join(", ")}`);
  return interval;
}

/** Resolves on the first SIGINT or SIGTERM. */
function interrupted(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(signal);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/** Runs `watch`: prints the cron line, or watches until interrupted. */
export async function watchCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): Promise<Outcome> {
  if (positionals.length > 0) throw new UsageError("watch takes no arguments");
  if (values.cron !== undefined) {
    const result = service.watchSchedule({ interval: cronOption(values.cron) });
    return { ok: result.ok, result, text: renderCronLine(result), diagnostics: result.diagnostics };
  }
  const json = values.json === true;
  const [vault] = service.resolveVaults("active");
  if (!vault || !vaultExists(vault)) {
    const diagnostics = [
      noVaultDiagnostic(typeof values.vault === "string" ? values.vault : undefined),
    ];
    return { ok: false, result: { ok: false, diagnostics }, text: "", diagnostics };
  }
  // Signals are caught before the first run, so Ctrl-C during it still stops cleanly.
  const stop = interrupted();
  const started = await startVaultWatch(service, vault, {
    onRun(result, changed) {
      if (json) printJson({ ...result, changed });
      else printOut(`${renderReindex(result)}\n`);
    },
    onError(d) {
      printErr(`${renderDiagnostics([d])}\n`);
    },
  });
  if (!started.ok) {
    return {
      ok: false,
      result: { ok: false, diagnostics: started.diagnostics },
      text: "",
      diagnostics: started.diagnostics,
    };
  }
  printErr(`watching ${vault.wiki} (Ctrl-C to stop)\n`);
  const signal = await stop;
  await started.watch.stop();
  return {
    ok: true,
    result: { ok: true, stopped: signal, vault: vault.root, diagnostics: [] },
    text: json ? "" : `stopped watching ${vault.wiki}`,
    diagnostics: [],
  };
}
