/**
 * Which model the ingest and distill sub-agents run on: the `subagentModel`
 * setting (`provider/id`, or `session` for the session's own model),
 * resolved through the session's model registry when a pass starts, so a
 * change made with `/wiki-model` applies at once. A chosen model the
 * registry does not know, or whose provider has no credentials, is not
 * used: the pass falls back to the session's model and says so in a
 * warning diagnostic of its result, never silently.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type Diagnostic, diagnostic } from "../lib/diagnostics.ts";
import { neutraliseLine } from "../lib/safety/text.ts";
import { loadPiSettings } from "./settings.ts";

type Model = NonNullable<ExtensionContext["model"]>;
type Registry = ExtensionContext["modelRegistry"];

/** The setting's value naming the session's model. */
export const SESSION_MODEL = "session";

/** The model a pass uses, and why it is not the one chosen when it is not. */
export interface SubagentModelChoice {
  /** Undefined when neither the chosen model nor a session model can run the pass. */
  model: Model | undefined;
  /** `provider/id` of the setting, or `session`. */
  chosen: string;
  diagnostics: Diagnostic[];
}

/** `provider/id` of a model. */
export function modelRef(model: Pick<Model, "provider" | "id">): string {
  return `${model.provider}/${model.id}`;
}

/** `provider/id` split at its first slash (ids may hold slashes: `openrouter/vendor/model`). */
export function parseModelRef(ref: string): { provider: string; id: string } | undefined {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { provider: ref.slice(0, slash), id: ref.slice(slash + 1) };
}

/** Chat models whose provider has working credentials now (Pi's own test of "available"). */
export async function availableModels(registry: Registry, provider?: string): Promise<Model[]> {
  return [...(await registry.getAvailableOfType("chat", provider))];
}

/**
 * Why `ref` cannot run a pass in this session (`subagent_model_invalid`,
 * `subagent_model_unknown`, `subagent_model_no_auth`), or the model.
 */
export async function lookUpModel(
  registry: Registry,
  ref: string,
): Promise<{ model: Model } | { code: string; why: string }> {
  const parsed = parseModelRef(ref);
  const shown = `"${neutraliseLine(ref)}"`;
  if (!parsed) {
    return { code: "subagent_model_invalid", why: `${shown} is not of the form provider/id` };
  }
  const model = registry.find(parsed.provider, parsed.id);
  if (!model) {
    return {
      code: "subagent_model_unknown",
      why: `${shown} is not a model this session's model registry knows`,
    };
  }
  const usable = await availableModels(registry, parsed.provider);
  if (!usable.some((m) => m.id === model.id)) {
    return {
      code: "subagent_model_no_auth",
      why: `${shown} has no credentials: provider "${neutraliseLine(parsed.provider)}" is not configured (log in or set its API key)`,
    };
  }
  return { model };
}

/** Resolves `chosen` (a setting value, or a call's `model`: `origin`) against the session's registry, falling back to its model. */
export async function resolveSubagentModel(
  ctx: Pick<ExtensionContext, "model" | "modelRegistry">,
  chosen: string,
  origin = "the subagentModel setting",
): Promise<SubagentModelChoice> {
  if (chosen === SESSION_MODEL) return { model: ctx.model, chosen, diagnostics: [] };
  const found = await lookUpModel(ctx.modelRegistry, chosen);
  if ("model" in found) return { model: found.model, chosen, diagnostics: [] };
  const instead = ctx.model
    ? `the sub-agent used the session's model ${neutraliseLine(modelRef(ctx.model))} instead`
    : "and this session has no model to use instead";
  return {
    model: ctx.model,
    chosen,
    diagnostics: [
      diagnostic(found.code, "warning", `${origin}: ${found.why}; ${instead}`, {
        repair:
          "/wiki-model lists the models this session can use; /wiki-model <provider/id> chooses one, /wiki-model session the session's model",
      }),
    ],
  };
}

/** The `subagentModel` setting as the settings files say now (not the session's first read). */
export function subagentModelSetting(ctx: { cwd: string; isProjectTrusted(): boolean }): string {
  return loadPiSettings({ cwd: ctx.cwd, projectTrusted: ctx.isProjectTrusted() }).settings
    .subagentModel;
}

/** The model the session's passes use now: the setting, resolved. */
export function chooseSubagentModel(
  ctx: Pick<ExtensionContext, "model" | "modelRegistry" | "cwd" | "isProjectTrusted">,
): Promise<SubagentModelChoice> {
  return resolveSubagentModel(ctx, subagentModelSetting(ctx));
}
