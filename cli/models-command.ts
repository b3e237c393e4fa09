/**
 * `llm-wiki models [status]` lists the three models, whether each can run
 * offline and which llama.cpp build would run them; `llm-wiki models pull [--role R]... [--stall-timeout S]` downloads
 * the missing `hf:` ones into QMD's cache, with progress on stderr. Ctrl-C
 * cancels and leaves no partial file. The only command that downloads.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import {
  type LlamaBackendChoice,
  llamaBackend,
} from "../extensions/llm-wiki/lib/index/llama-backend.ts";
import {
  DEFAULT_STALL_MS,
  HF_ENDPOINT,
  type PullResult,
  pullModels,
} from "../extensions/llm-wiki/lib/index/model-pull.ts";
import {
  MODEL_ROLES,
  type ModelRole,
  type ModelStatus,
  modelAvailability,
  resolveModels,
} from "../extensions/llm-wiki/lib/index/models.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { intOption, type OptionSpec, type Parsed, UsageError } from "./args.ts";
import { createProgress } from "./progress.ts";

/** Options of `models` beyond the common ones. */
export const MODELS_OPTIONS: Record<string, OptionSpec> = {
  role: { type: "string", multiple: true },
  "stall-timeout": { type: "string" },
};

export const MODELS_USAGE = `  models [status]                          the embed, rerank and generate models, whether
                                           each is available offline, and the llama.cpp build
  models pull [--role R]...                download missing hf: models into QMD's cache
         [--stall-timeout S]               (HF_ENDPOINT for a mirror); the only download
`;

function rolesOf(values: string[]): ModelRole[] {
  if (values.length === 0) return [...MODEL_ROLES];
  return values.map((value) => {
    const role = MODEL_ROLES.find((r) => r === value);
    if (!role) throw new UsageError(`--role takes one of ${MODEL_ROLES.join(", ")}`);
    return role;
  });
}

const BACKENDS: Record<LlamaBackendChoice["choice"], string> = {
  cpu: "llama.cpp's CPU build, no GPU probe",
  auto: "llama.cpp build chosen by QMD (a GPU when one starts)",
  set: "llama.cpp build as set",
};

function renderStatus(statuses: ModelStatus[], backend: LlamaBackendChoice): string {
  const models = statuses.map((s) =>
    s.available
      ? `${s.role.padEnd(8)} available  ${s.uri}\n         ${s.path}`
      : `${s.role.padEnd(8)} missing    ${s.uri}\n         ${s.reason}${s.repair ? `\n         repair: ${s.repair}` : ""}`,
  );
  return [...models, `runtime  ${BACKENDS[backend.choice]}\n         ${backend.reason}`].join("\n");
}

function renderPull(results: PullResult[]): string {
  return results
    .map((r) => {
      const head = `${r.role.padEnd(8)} ${r.status.padEnd(12)} ${r.uri}`;
      if (r.status === "downloaded") return `${head}\n         ${r.path} (${r.bytes} bytes)`;
      if (r.status === "present") return `${head}\n         ${r.path}`;
      return `${head}\n         ${r.reason}`;
    })
    .join("\n");
}

/** Runs `models` / `models pull`. */
export async function modelsCommand(
  service: WikiService,
  { positionals, values, lists }: Parsed,
): Promise<{
  ok: boolean;
  result: object;
  text: string;
  diagnostics: Diagnostic[];
  exitCode?: number;
}> {
  const [action = "status", ...extra] = positionals;
  if (extra.length > 0) throw new UsageError("models takes one action: status or pull");
  const models = resolveModels(service.settings.models);
  const roles = rolesOf(lists.role ?? []);
  if (action === "status") {
    const available = modelAvailability(models);
    const statuses = roles.map((role) => available[role]);
    // Which llama.cpp build a model would load (llama-backend.ts), and why.
    const backend = llamaBackend();
    return {
      ok: true,
      result: { models: statuses, cacheDir: models.cacheDir, backend },
      text: renderStatus(statuses, backend),
      diagnostics: [],
    };
  }
  if (action !== "pull") throw new UsageError(`unknown models action "${action}"`);
  const stallMs =
    intOption(values["stall-timeout"], "stall-timeout", DEFAULT_STALL_MS / 1000) * 1000;
  const controller = new AbortController();
  const cancel = () => controller.abort();
  process.once("SIGINT", cancel);
  process.once("SIGTERM", cancel);
  const progress = createProgress(process.stderr);
  let results: PullResult[];
  try {
    results = await pullModels(models, {
      roles,
      endpoint: process.env.HF_ENDPOINT || HF_ENDPOINT,
      stallMs,
      signal: controller.signal,
      ...(values.json
        ? {}
        : {
            onProgress: (p) =>
              progress.update({
                vault: "",
                phase: `download ${p.role}`,
                current: Math.round(p.done / 1_048_576),
                total: Math.max(1, Math.round(p.total / 1_048_576)),
                unit: "MB",
              }),
          }),
    });
  } finally {
    progress.done();
    process.off("SIGINT", cancel);
    process.off("SIGTERM", cancel);
  }
  const diagnostics = results
    .filter((r) => r.status === "failed" || r.status === "not-pullable")
    .map((r) =>
      diagnostic(
        r.status === "failed" ? "model_pull_failed" : "model_not_pullable",
        "error",
        `${r.role} model ${r.uri}: ${r.reason ?? "failed"}`,
        r.status === "failed" && r.reason !== "cancelled"
          ? {
              repair: `check the network (or set HF_ENDPOINT to a reachable mirror) and run llm-wiki models pull again; offline, copy the .gguf file into ${models.cacheDir} or point QMD_${r.role.toUpperCase()}_MODEL at a local file`,
            }
          : {},
      ),
    );
  return {
    ...(controller.signal.aborted ? { exitCode: 130 } : {}),
    ok: diagnostics.length === 0,
    result: { models: results, cacheDir: models.cacheDir, diagnostics },
    text: renderPull(results),
    diagnostics,
  };
}
