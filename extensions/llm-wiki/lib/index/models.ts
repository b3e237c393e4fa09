/**
 * Which GGUF models QMD will use, and whether each can run without a network.
 *
 * QMD resolves a model per role as `config.models` > `QMD_*_MODEL` > its own
 * default (an `hf:` URI). A missing `hf:` model makes QMD download it, which
 * with no network prints a spinner and retries for ~12 minutes. So llm-wiki
 * decides availability itself, from the file system only: a local file that
 * exists, or an `hf:` URI whose file is already in QMD's model cache. A model
 * path whose model is unavailable fails at once with `ModelUnavailableError`.
 *
 * SDK-free (imports nothing from QMD or node-llama-cpp) and cheap: a few
 * `stat`s and a 4-byte read per model, no model load. The native runtime
 * that loads the models is checked the same way (model-runtime.ts).
 */
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { type ModelRuntimeStatus, modelRuntime } from "./model-runtime.ts";

/** The three models QMD uses. */
export type ModelRole = "embed" | "rerank" | "generate";

/** Every role, in a stable order. */
export const MODEL_ROLES: readonly ModelRole[] = ["embed", "rerank", "generate"];

/** Explicit model settings (the `models` host setting). */
export interface ModelSettings {
  embed?: string;
  rerank?: string;
  generate?: string;
}

/** Where a resolved model came from. */
export type ModelSource = "settings" | "env" | "default";

/**
 * `file`: a local path (made absolute); `hf`: a Hugging Face URI resolved
 * through QMD's cache; `remote`: a URL, which llm-wiki never downloads.
 */
export type ModelKind = "file" | "hf" | "remote";

/** One role's model after precedence was applied. */
export interface ResolvedModel {
  role: ModelRole;
  /** An `hf:` URI or URL as given, or an absolute file path. */
  uri: string;
  source: ModelSource;
  kind: ModelKind;
}

/** All three models plus the cache folder their `hf:` files live in. */
export interface ResolvedModels {
  embed: ResolvedModel;
  rerank: ResolvedModel;
  generate: ResolvedModel;
  /** QMD's model cache: `$XDG_CACHE_HOME/qmd/models` or `~/.cache/qmd/models`. */
  cacheDir: string;
}

/** Whether one model can be loaded without any network access. */
export interface ModelStatus {
  role: ModelRole;
  uri: string;
  available: boolean;
  /** The local GGUF file QMD would load; set only when available. */
  path?: string;
  /** Why it is unavailable. */
  reason?: string;
  /** How to make it available. */
  repair?: string;
}

/** Availability of every role. */
export type ModelAvailability = Record<ModelRole, ModelStatus>;

/** Environment variables QMD reads per role. */
export const MODEL_ENV_VARS: Readonly<Record<ModelRole, string>> = {
  embed: "QMD_EMBED_MODEL",
  rerank: "QMD_RERANK_MODEL",
  generate: "QMD_GENERATE_MODEL",
};

/** QMD 2.8.3's defaults (`dist/llm.js`); test/models.test.ts pins them to the installed QMD. */
export const QMD_DEFAULT_MODELS: Readonly<Record<ModelRole, string>> = {
  embed: "hf:ggml-org/embeddinggemma-300M-GGUF/embeddinggemma-300M-Q8_0.gguf",
  rerank: "hf:ggml-org/Qwen3-Reranker-0.6B-Q8_0-GGUF/qwen3-reranker-0.6b-q8_0.gguf",
  generate: "hf:tobil/qmd-query-expansion-1.7B-gguf/qmd-query-expansion-1.7B-q4_k_m.gguf",
};

/**
 * A model path was asked for while its model is not available locally.
 * Thrown before QMD is called, so no download ever starts.
 */
export class ModelUnavailableError extends Error {
  readonly code = "model_unavailable";
  readonly role: ModelRole;
  readonly model: string;
  readonly repair: string;
  constructor(status: ModelStatus) {
    super(`${status.role} model unavailable: ${status.reason ?? "not found"} (${status.uri})`);
    this.name = "ModelUnavailableError";
    this.role = status.role;
    this.model = status.uri;
    this.repair = status.repair ?? "";
  }
}

/** QMD's model cache folder for an environment (QMD reads it once, at import). */
export function qmdModelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, "qmd", "models");
  return join(env.HOME || homedir(), ".cache", "qmd", "models");
}

/**
 * Applies QMD's precedence (settings > `QMD_*_MODEL` > default) per role.
 * Relative paths resolve against `baseDir` (default: the working directory)
 * because QMD itself would resolve them against its cache folder.
 */
export function resolveModels(
  settings: ModelSettings | undefined = {},
  env: NodeJS.ProcessEnv = process.env,
  baseDir: string = process.cwd(),
): ResolvedModels {
  const one = (role: ModelRole): ResolvedModel => {
    const fromSettings = settings?.[role]?.trim();
    const fromEnv = env[MODEL_ENV_VARS[role]]?.trim();
    const [raw, source]: [string, ModelSource] = fromSettings
      ? [fromSettings, "settings"]
      : fromEnv
        ? [fromEnv, "env"]
        : [QMD_DEFAULT_MODELS[role], "default"];
    const kind = modelKind(raw);
    const uri = kind === "file" ? absolutePath(raw, baseDir, env) : raw;
    return { role, uri, source, kind };
  };
  return {
    embed: one("embed"),
    rerank: one("rerank"),
    generate: one("generate"),
    cacheDir: qmdModelCacheDir(env),
  };
}

/** Checks every role's model file against the file system; never touches the network. */
export function modelFileAvailability(resolved: ResolvedModels): ModelAvailability {
  return {
    embed: statusOf(resolved.embed, resolved.cacheDir),
    rerank: statusOf(resolved.rerank, resolved.cacheDir),
    generate: statusOf(resolved.generate, resolved.cacheDir),
  };
}

/**
 * Whether each role can run here: its model file (`modelFileAvailability`)
 * and the native runtime that loads it (model-runtime.ts). Without the
 * runtime (a lean install) every role is unavailable for that reason first,
 * since no model file can help then.
 */
export function modelAvailability(
  resolved: ResolvedModels,
  runtime: () => ModelRuntimeStatus = modelRuntime,
): ModelAvailability {
  const files = modelFileAvailability(resolved);
  const found = runtime();
  if (found.available) return files;
  const missing = (role: ModelRole): ModelStatus => ({
    role,
    uri: files[role].uri,
    available: false,
    ...(found.reason ? { reason: found.reason } : {}),
    ...(found.repair ? { repair: found.repair } : {}),
  });
  return { embed: missing("embed"), rerank: missing("rerank"), generate: missing("generate") };
}

/** Throws `ModelUnavailableError` for the first listed role that is unavailable. */
export function requireModels(availability: ModelAvailability, roles: readonly ModelRole[]): void {
  for (const role of roles) {
    const status = availability[role];
    if (!status.available) throw new ModelUnavailableError(status);
  }
}

function modelKind(uri: string): ModelKind {
  if (/^(hf|huggingface):/i.test(uri)) return "hf";
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri) || /^(hf\.co|huggingface\.co)\//i.test(uri)) {
    return "remote";
  }
  return "file";
}

function absolutePath(path: string, baseDir: string, env: NodeJS.ProcessEnv): string {
  if (path === "~" || path.startsWith("~/")) return join(env.HOME || homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

function statusOf(model: ResolvedModel, cacheDir: string): ModelStatus {
  const base = { role: model.role, uri: model.uri };
  const envVar = MODEL_ENV_VARS[model.role];
  const pointAtFile = `set the "models.${model.role}" setting or ${envVar} to a local .gguf file`;
  if (model.kind === "remote") {
    return {
      ...base,
      available: false,
      reason: "remote URLs are never downloaded by llm-wiki",
      repair: `Download the file yourself, then ${pointAtFile}`,
    };
  }
  if (model.kind === "file") {
    const problem = ggufProblem(model.uri);
    if (problem) {
      return { ...base, available: false, reason: problem, repair: `Fix the path: ${pointAtFile}` };
    }
    return { ...base, available: true, path: model.uri };
  }
  const names = hfCacheFileNames(model.uri);
  const pull = `llm-wiki models pull --role ${model.role}`;
  if (names.length === 0) {
    return {
      ...base,
      available: false,
      reason: "not a Hugging Face model URI QMD understands",
      repair: `Use hf:<user>/<repo>/<file>.gguf, or ${pointAtFile}`,
    };
  }
  let lastProblem = `not in the model cache ${cacheDir}`;
  for (const name of names) {
    const path = join(cacheDir, name);
    if (!existsSync(path)) continue;
    const missingPart = splitParts(path).find((part) => !existsSync(part));
    const problem = missingPart ? `split part missing: ${missingPart}` : ggufProblem(path);
    if (!problem) return { ...base, available: true, path };
    lastProblem = problem;
  }
  return {
    ...base,
    available: false,
    reason: lastProblem,
    repair: `With network access run: ${pull}  (or ${pointAtFile})`,
  };
}

/** Why a path is not a loadable GGUF file, or undefined when it is. */
function ggufProblem(path: string): string | undefined {
  let fd: number | undefined;
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return `file not found: ${path}`;
    if (!stat.isFile()) return `not a file: ${path}`;
    fd = openSync(path, "r");
    const magic = Buffer.alloc(4);
    const read = readSync(fd, magic, 0, 4, 0);
    // QMD deletes a cached file with a wrong magic and downloads it again: never let it try.
    if (read < 4 || magic.toString("latin1") !== "GGUF") return `not a GGUF file: ${path}`;
    return undefined;
  } catch (error) {
    return `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf$/;

/** All parts of a split GGUF (`x-00001-of-00003.gguf`, a path or a file name), or just the file. */
export function splitParts(path: string): string[] {
  const match = SPLIT_PART.exec(path);
  const parts = Number(match?.[2]);
  if (!match || !(parts > 0)) return [path];
  const stem = path.slice(0, path.length - match[0].length);
  const total = String(parts).padStart(5, "0");
  return Array.from(
    { length: parts },
    (_, i) => `${stem}-${String(i + 1).padStart(5, "0")}-of-${total}.gguf`,
  );
}

const QUANT_DEFAULT = "Q4_K_M";

/**
 * The file names node-llama-cpp 3.x (`resolveModelFile`, as QMD calls it)
 * looks for in the cache for an `hf:` URI, in its order. Ported from its
 * `parseModelUri`; test/models.test.ts checks the port against the original.
 * `hf:user/repo/path/file.gguf[#branch]` names one file; `hf:user/repo[:quant]`
 * names candidates (split-file guesses, which need a directory listing, are left out).
 */
export function hfCacheFileNames(uri: string): string[] {
  const body = uri.replace(/^(hf|huggingface):(\/\/)?/i, "");
  const [user, repo, ...pathParts] = body.split("/");
  if (!user || !repo) return [];
  let rest = pathParts.join("/");
  if (rest === "" || repo.includes(":")) {
    const [model = "", ...tagParts] = repo.split(":");
    if (!model) return [];
    const tag = tagParts.join(":").trimEnd();
    const base = filenamify(model.toLowerCase().endsWith("-gguf") ? model.slice(0, -5) : model);
    const prefix = hfFilePrefix(user, model, "main", [], `${base}.gguf`);
    const names =
      tag !== "" && tag !== "latest"
        ? [`${base}.${tag.toUpperCase()}.gguf`]
        : [`${base}.${QUANT_DEFAULT}.gguf`, `${base}.gguf`];
    return names.map((n) => prefix + n);
  }
  let branch = "main";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    branch = rest.slice(hash + 1) || "main";
    rest = rest.slice(0, hash);
  }
  const fileParts = rest.split("/");
  const last = fileParts.at(-1) ?? "";
  const ggufAt = last.toLowerCase().indexOf(".gguf");
  if (!rest || ggufAt < 0) return [];
  const filename = filenamify(last.slice(0, ggufAt + 5));
  return [hfFilePrefix(user, repo, branch, fileParts.slice(0, -1), filename) + filename];
}

function hfFilePrefix(
  user: string,
  model: string,
  branch: string,
  folders: string[],
  filename: string,
): string {
  const parts = ["hf", filenamify(user)];
  if (!filenameMatchesModel(filename, model) || branch !== "main") parts.push(filenamify(model));
  if (branch !== "main") parts.push(filenamify(branch));
  let dirs = folders;
  const folder = dirs.at(-1)?.toLowerCase();
  if (folder !== undefined && ggufStems(filename).includes(folder)) dirs = dirs.slice(0, -1);
  if (dirs.length > 0) parts.push(filenamify(dirs.join("__")));
  return `${parts.join("_")}_`;
}

/** Lower-cased name without `.gguf`, and without a split suffix when it has one. */
function ggufStems(filename: string): string[] {
  const lower = filename.toLowerCase();
  if (!lower.endsWith(".gguf")) return [];
  const stems = [lower.slice(0, -5)];
  const split = SPLIT_PART.exec(lower);
  if (split) stems.push(lower.slice(0, lower.length - split[0].length));
  return stems;
}

function filenameMatchesModel(filename: string, model: string): boolean {
  if (!model.toLowerCase().endsWith("-gguf")) return false;
  const wanted = model.slice(0, -5).toLowerCase();
  return ggufStems(filename).some((stem) => stem.startsWith(wanted));
}

// filenamify's character classes, as code points: a control character in a regex literal is a lint error.
const CONTROL = "\\u0000-\\u001F";
const RESERVED = new RegExp(`[<>:"/\\\\|?*${CONTROL}]`, "g");
const RESERVED_RUN = new RegExp(`([<>:"/\\\\|?*${CONTROL}]){2,}`, "g");
const CONTROLS = new RegExp(`[${CONTROL}\\u0080-\\u009F]`, "g");

/** Port of `filenamify` 6 (as node-llama-cpp uses it: replacement "!", max 100 chars). */
function filenamify(input: string): string {
  let s = input.replace(RESERVED_RUN, "$1").normalize("NFD");
  s = s.replace(/^\.+(\\|\/)|^\.+$/, "!");
  s = s.replace(RESERVED, "!").replace(CONTROLS, "!");
  s = s.replace(/\.+$/, "");
  if (s.endsWith(".")) s += "!";
  if (/^(con|prn|aux|nul|com\d|lpt\d)$/i.test(s)) s += "!";
  if (s.length > 100) {
    const dot = s.lastIndexOf(".");
    s =
      dot === -1 ? s.slice(0, 100) : s.slice(0, Math.max(1, 100 - (s.length - dot))) + s.slice(dot);
  }
  return s;
}
