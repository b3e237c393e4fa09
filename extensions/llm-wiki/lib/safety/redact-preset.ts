/**
 * Runs secretlint's recommended rule preset synchronously over a text.
 *
 * `@secretlint/core`'s `lintSource` is async, but every write operation of
 * the service is synchronous and every host depends on that. The preset's
 * rules are written against the public rule API of `@secretlint/types`
 * (`create(context, options)` → handlers with `file(source)`), and their text
 * handlers are synchronous, so this small driver provides that context and
 * calls each `file()` directly:
 *
 * - a handler that returns a promise is dropped (its reports are discarded):
 *   only the PKCS#12 handler is async, it applies to `.p12` binaries, never to
 *   text, and it would read the file at `filePath` — which is never given here;
 * - filter rules (`meta.type: "filter"`, `context.ignore`) are not run: they
 *   honour `secretlint-disable` comments, and a hostile text must not be able
 *   to switch its own redaction off;
 * - message texts are never built (they quote the secret); only the message
 *   id is kept, to name the kind.
 *
 * The preset (~230 KB) is loaded once per process, on the first redaction
 * that a rule of it could report in, so hosts that never write do not pay
 * for it, and neither does a process whose writes hold none of the rules'
 * literals (an MCP server's first recall logs what it showed: loading the
 * preset was ~25 ms of its answer).
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type {
  SecretLintRuleContext,
  SecretLintRuleCreator,
  SecretLintRuleLocalizeMessages,
  SecretLintRuleMessageTranslate,
  SecretLintRulePresetContext,
  SecretLintRulePresetCreator,
  SecretLintRuleReportDescriptor,
  SecretLintSourceCode,
  SecretLintSourceNodeLocation,
  SecretLintSourceNodePosition,
  SecretLintSourceNodeRange,
} from "@secretlint/types";
import { diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { presetKind, type SecretSpan } from "./redact-kinds.ts";
import type { FoundLiterals } from "./redact-literals.ts";
import { HINTED_PRESET_VERSION, PRESET_HINTS, presetRuledOut } from "./redact-preset-hints.ts";

const PRESET = "@secretlint/secretlint-rule-preset-recommend";

/** Options given to single rules, as a secretlint config would. */
const RULE_OPTIONS: Record<string, object> = {
  // Off by default in the preset (noisy in code review); an access key id in
  // a memory vault is still a credential half worth hiding.
  "@secretlint/secretlint-rule-aws": { enableIDScanRule: true },
};

interface LoadedRule {
  id: string;
  create: (context: SecretLintRuleContext) => ReturnType<SecretLintRuleCreator["create"]>;
}

let loaded: LoadedRule[] | undefined;

/** Whether this process has loaded the preset yet (it loads on the first redaction). */
export function isPresetLoaded(): boolean {
  return loaded !== undefined;
}

let hintsCover: boolean | undefined;

/**
 * Whether the installed preset is the version the hints were read from,
 * whose every scanner rule has a hint (a spec checks it): then a text that
 * rules out every hinted rule needs no rule of the preset. Another version
 * may have rules without hints, so it is always loaded. Read once (its
 * package.json, not the preset).
 */
function hintsCoverPreset(): boolean {
  if (hintsCover !== undefined) return hintsCover;
  try {
    const require = createRequire(import.meta.url);
    const manifest = JSON.parse(
      readFileSync(require.resolve(`${PRESET}/package.json`), "utf8"),
    ) as {
      version?: unknown;
    };
    hintsCover = manifest.version === HINTED_PRESET_VERSION;
  } catch {
    hintsCover = false;
  }
  return hintsCover;
}

/** Loads the preset's scanner rules once (synchronously: the preset is an ES module without top-level await). */
function presetRules(): LoadedRule[] {
  if (loaded !== undefined) return loaded;
  let preset: SecretLintRulePresetCreator;
  try {
    const require = createRequire(import.meta.url);
    const mod = require(PRESET) as { creator: SecretLintRulePresetCreator };
    preset = mod.creator;
  } catch (error) {
    // Fail closed: writing without the detector would let secrets through.
    throw new WikiError(
      diagnostic(
        "secret_detector_unavailable",
        "error",
        `The secret detector (${PRESET}) could not be loaded: ${errorMessage(error)}. Nothing was written.`,
        { repair: "pnpm install" },
      ),
    );
  }
  const rules: LoadedRule[] = [];
  const presetContext: SecretLintRulePresetContext = {
    sharedOptions: {},
    registerRule(rule, defaults) {
      if (rule.meta.type !== "scanner") return;
      if (!rule.meta.supportedContentTypes.some((t) => t === "text" || t === "all")) return;
      const options = { ...(defaults?.options ?? {}), ...(RULE_OPTIONS[rule.meta.id] ?? {}) };
      rules.push({
        id: rule.meta.id,
        create: (context) => (rule as SecretLintRuleCreator<object>).create(context, options),
      });
    },
  };
  preset.create(presetContext, {});
  loaded = rules;
  return rules;
}

/** A translator that never formats the message (it would quote the secret). */
function createTranslator<T extends SecretLintRuleLocalizeMessages>(
  _messages: T,
): SecretLintRuleMessageTranslate<T> {
  return (messageId) => ({ message: "", messageId: String(messageId), data: undefined });
}

/** The minimal source the rules read: the text, no file (so no rule reads the disk). */
function sourceOf(text: string): SecretLintSourceCode {
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const indexToPosition = (index: number): SecretLintSourceNodePosition => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= index) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: index - (lineStarts[lo] ?? 0) };
  };
  const positionToIndex = (pos: SecretLintSourceNodePosition): number =>
    (lineStarts[pos.line - 1] ?? 0) + pos.column;
  return {
    hasBOM: text.charCodeAt(0) === 0xfeff,
    content: text,
    filePath: undefined,
    physicalFilePath: undefined,
    contentType: "text",
    ext: "",
    getFilePath: () => undefined,
    getPhysicalFilePath: () => undefined,
    indexToPosition,
    positionToIndex,
    rangeToLocation: (range: SecretLintSourceNodeRange): SecretLintSourceNodeLocation => ({
      start: indexToPosition(range[0]),
      end: indexToPosition(range[1]),
    }),
    locationToRange: (loc: SecretLintSourceNodeLocation): SecretLintSourceNodeRange => [
      positionToIndex(loc.start),
      positionToIndex(loc.end),
    ],
  };
}

function isPromise(value: unknown): value is Promise<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** A key and its connector at the start of a report: `"aws_secret_access_key": "`, `AWS_ACCOUNT_ID=`. */
const KEY_PREFIX = /^["']?[A-Za-z_][A-Za-z0-9_.-]*["']?[ \t]*(?::|=>|=)[ \t]*["']?/;

/**
 * The value's own range for a report that starts at its key. The AWS rules
 * report from the start of `aws_secret_access_key: …` (for the secret key,
 * as long as the value: the end falls inside it). A mark over the key breaks
 * the text's structure (a YAML or JSON field loses its name and no longer
 * parses) and leaves the value's tail in the clear; the value alone, to the
 * end of its run, is what is secret.
 */
function valueRange(text: string, range: readonly [number, number]): [number, number] {
  const [start, end] = range;
  const prefix = KEY_PREFIX.exec(text.slice(start, end));
  if (prefix === null || prefix[0].length >= end - start) return [start, end];
  const from = start + prefix[0].length;
  const run = /^[A-Za-z0-9/+=_-]+/.exec(text.slice(from, from + 4096));
  return [from, Math.max(end, from + (run?.[0].length ?? 0))];
}

/**
 * Every secret the preset reports in `text`, as spans with short kinds.
 * With `literals` (those of redact-preset-hints.ts found in `text`), the
 * rules `text` has none of the literals of are skipped; without, every rule
 * runs, for the spec.
 */
export function presetSpans(text: string, literals?: FoundLiterals): SecretSpan[] {
  if (
    loaded === undefined &&
    literals !== undefined &&
    [...PRESET_HINTS.keys()].every((id) => presetRuledOut(id, literals)) &&
    hintsCoverPreset()
  )
    return [];
  const rules = presetRules();
  // Made for the first rule that runs: on most texts the literals rule out every one.
  let source: SecretLintSourceCode | undefined;
  const spans: SecretSpan[] = [];
  for (const rule of rules) {
    if (literals !== undefined && presetRuledOut(rule.id, literals)) continue;
    source ??= sourceOf(text);
    const found: SecretSpan[] = [];
    const context: SecretLintRuleContext = {
      sharedOptions: {},
      createTranslator,
      report(descriptor: SecretLintRuleReportDescriptor) {
        const [start, end] = valueRange(text, descriptor.range);
        if (end > start) {
          found.push({ start, end, kind: presetKind(rule.id, descriptor.message.messageId) });
        }
      },
      // Only filter rules ignore, and they are not run (see above).
      ignore() {},
    };
    try {
      const result = rule.create(context).file?.(source);
      if (isPromise(result)) {
        // Async handlers are binary-only; silence a late rejection and keep nothing from it.
        result.catch(() => {});
        continue;
      }
    } catch {
      // A rule that throws on odd input reports nothing; the generic rules still run.
      continue;
    }
    spans.push(...found);
  }
  return spans;
}
