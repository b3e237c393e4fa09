/**
 * `llm-wiki migrate [--vault DIR] [--dry-run]`: moves a vault in a layout of
 * `@zosmaai/pi-llm-wiki` (its old `.wiki/` layout, or a doubled
 * `.llm-wiki/.llm-wiki/`) into `.llm-wiki/`, never overwriting, following or
 * moving a symbolic link; `--dry-run` lists the moves and changes nothing.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import {
  type MigrateResult,
  migrateLayout,
  renderMigrate,
} from "../extensions/llm-wiki/lib/vault/migrate-layout.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type OptionSpec, type Parsed, UsageError } from "./args.ts";

/** Options of `migrate` beyond the common ones. */
export const MIGRATE_OPTIONS: Record<string, OptionSpec> = {
  "dry-run": { type: "boolean" },
};

/** Usage line(s) for the CLI's help text. */
export const MIGRATE_USAGE = `  migrate [--dry-run]                      move a pi-llm-wiki layout (.wiki/, or .llm-wiki/.llm-wiki/)
                                           here, above or at --vault into .llm-wiki/; never overwrites
`;

/** Runs `migrate`; the service is not used (there is no vault to open yet). */
export function migrateCommand(
  _service: WikiService,
  { positionals, values }: Parsed,
): { ok: boolean; result: MigrateResult; text: string; diagnostics: Diagnostic[] } {
  if (positionals.length > 0) throw new UsageError("migrate takes no arguments (use --vault DIR)");
  const result = migrateLayout({
    cwd: process.cwd(),
    env: process.env,
    ...(typeof values.vault === "string" ? { vault: values.vault } : {}),
    dryRun: values["dry-run"] === true,
  });
  return { ok: result.ok, result, text: renderMigrate(result), diagnostics: result.diagnostics };
}
