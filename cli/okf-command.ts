/**
 * `llm-wiki export --okf DIR [--with-raw]` and `llm-wiki import --okf DIR
 * [--apply] [--with-raw]`: OKF v0.2 bundles out of and into the vault.
 * The user names DIR here, so any folder goes (a model's tools keep it in
 * the project: see okf-confine.ts); the service reads it against the
 * working directory.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { renderOkfExport, renderOkfImport } from "../extensions/llm-wiki/lib/okf/okf-render.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type OptionSpec, type Parsed, UsageError } from "./args.ts";

/** Options of `export` and `import` beyond the common ones. */
export const OKF_OPTIONS: Record<string, Record<string, OptionSpec>> = {
  export: { okf: { type: "string" }, "with-raw": { type: "boolean" } },
  import: { okf: { type: "string" }, apply: { type: "boolean" }, "with-raw": { type: "boolean" } },
};

/** Usage lines for the CLI's help text. */
export const OKF_USAGE = `  export --okf DIR [--with-raw]            the pages as an OKF v0.2 bundle (DIR new, empty or a previous export)
  import --okf DIR [--apply] [--with-raw]  review an OKF bundle (creates, identical, conflicts); --apply creates only
`;

interface Outcome {
  ok: boolean;
  result: object;
  text: string;
  diagnostics: Diagnostic[];
}

function bundleDir(args: Parsed, command: string): string {
  const dir = args.values.okf;
  if (typeof dir !== "string" || dir.trim() === "") {
    throw new UsageError(`${command} needs --okf DIR (the only bundle format)`);
  }
  if (args.positionals.length > 0) throw new UsageError(`${command} takes no positional arguments`);
  return dir;
}

/** The `export` and `import` handlers. */
export const OKF_HANDLERS: Record<
  string,
  (service: WikiService, args: Parsed) => Promise<Outcome> | Outcome
> = {
  async export(service, args) {
    const result = await service.okfExport({
      dir: bundleDir(args, "export"),
      withRaw: args.values["with-raw"] === true,
    });
    return {
      ok: result.ok,
      result,
      text: renderOkfExport(result),
      diagnostics: result.diagnostics,
    };
  },
  async import(service, args) {
    const result = await service.okfImport({
      dir: bundleDir(args, "import"),
      apply: args.values.apply === true,
      withRaw: args.values["with-raw"] === true,
    });
    return {
      ok: result.ok,
      result,
      text: renderOkfImport(result),
      diagnostics: result.diagnostics,
    };
  },
};
