/**
 * Text renderings of service results, shared by every host (CLI output, Pi
 * tool content, MCP text content), so the same operation reads the same
 * everywhere. Structured output is the result object itself.
 */

import { withinBudget } from "./answer-budget.ts";
import type { CaptureSourceResult } from "./capture/capture-source.ts";
import { commitLine } from "./code-refs/recall-code.ts";
import { overviewLines } from "./dashboard/render-overview.ts";
import type { Diagnostic } from "./diagnostics.ts";
import type { JudgeResult } from "./feedback/feedback-session.ts";
import type { LintResult } from "./lint/types.ts";
import { datePhrase, declaredByPhrase, relationPhrase } from "./recall/recall-block.ts";
import type { RecallResult } from "./recall-operation.ts";
import { BUDGET_DIAGNOSTIC } from "./retrieval/turn-budget.ts";
import { neutraliseLine, terminalSafe } from "./safety/text.ts";
import type {
  BootstrapOpResult,
  EnsurePageOpResult,
  ReindexResult,
  SearchResult,
  StatusResult,
} from "./wiki-service.ts";
import type { IngestResult } from "./writing/ingest.ts";
import type { SourceRef } from "./writing/ingest-sources.ts";
import type { LogEventResult } from "./writing/log-event.ts";
import type { ResolveConflictResult } from "./writing/record-resolution.ts";
import type { WrittenPageResult } from "./writing/unique-page.ts";
import type { VerifyPageResult } from "./writing/verify-page.ts";

/** One line per diagnostic (a failure reads as one line), with its repair command when there is one. */
export function renderDiagnostics(diagnostics: Diagnostic[]): string {
  return diagnostics
    .map(
      (d) =>
        `${d.severity}: ${neutraliseLine(d.message)}${d.repair ? ` (fix: ${neutraliseLine(d.repair)})` : ""}`,
    )
    .join("\n");
}

/**
 * The diagnostics a reader of an operation's answer needs: all of them, but
 * info-level ones only when the operation failed (e.g. "used lexical" is
 * noise when recall worked).
 */
export function shownDiagnostics(ok: boolean, diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((d) => d.severity !== "info" || !ok);
}

/**
 * An operation's whole text answer in a host that shows one block (a Pi or
 * MCP tool result): its rendering, then the diagnostics `shownDiagnostics`
 * keeps, never empty, free of control sequences (`terminalSafe`: Pi shows it
 * in a terminal UI, an MCP client may print it). The CLI splits the two
 * between stdout and stderr.
 */
export function renderAnswer(ok: boolean, text: string, diagnostics: Diagnostic[]): string {
  const body = [text, renderDiagnostics(shownDiagnostics(ok, diagnostics))]
    .filter((t) => t !== "")
    .join("\n\n");
  return body === "" ? "(nothing to report)" : terminalSafe(body);
}

/**
 * Info diagnostics a status shows as lines of its own, though it succeeded:
 * what chose the vault (`WIKI_ROOT`) and how it stands with the older system.
 */
const STATUS_NOTES: ReadonlySet<string> = new Set([
  "vault_root_from_wiki_root",
  "wiki_root_ignored",
  "older_system_meta_kept",
  "older_system_handback",
]);

export function renderStatus(result: StatusResult): string {
  const v = result.vault;
  if (!v) return "";
  const notes = result.diagnostics
    .filter((d) => d.severity === "info" && STATUS_NOTES.has(d.code))
    .map((d) => `note    ${neutraliseLine(d.message)}`);
  const lines = [
    `vault   ${v.name ? neutraliseLine(v.name) : "(unnamed)"} (${v.kind}) at ${neutraliseLine(v.root)}`,
    v.config.topic ? `topic   ${neutraliseLine(v.config.topic)}` : undefined,
    `pages   ${v.pages} (${v.byRole.canonical} canonical, ${v.byRole.evidence} evidence)${v.malformed ? `, ${v.malformed} malformed` : ""}`,
    v.mergeConflicts
      ? `merge   ${v.mergeConflicts.length} page(s) git left unmerged, both versions kept: ${v.mergeConflicts.slice(0, 5).map(neutraliseLine).join(", ")}${v.mergeConflicts.length > 5 ? ", …" : ""} (resolve and commit)`
      : undefined,
    `types   ${
      Object.entries(v.byType)
        .map(([t, n]) => `${t} ${n}`)
        .join(", ") || "none"
    }`,
    `links   ${v.links.resolved} resolved, ${v.links.missing} missing, ${v.links.ambiguous} ambiguous`,
    `index   ${v.index.state}, ${v.index.documents} documents${v.index.pending ? `, ${v.index.pending} pending` : ""}; vectors ${v.index.vectors.present ? `yes (${v.index.vectors.model ?? "unknown model"})` : "none"}${v.index.repair && v.index.state !== "ready" ? ` (fix: ${v.index.repair})` : ""}`,
    ...overviewLines(v),
    v.lastCommit
      ? `commit  ${neutraliseLine(commitLine(v.lastCommit))} names ${neutraliseLine(v.lastCommit.page)}`
      : undefined,
    `mode    ${result.retrieval.mode}; models ${Object.entries(result.retrieval.models)
      .map(([role, m]) => `${role} ${m.available ? "available" : "unavailable"}`)
      .join(", ")}`,
    ...notes,
  ];
  return lines.filter((l) => l !== undefined).join("\n");
}

export function renderSearch(result: SearchResult): string {
  if (result.hits.length === 0) return `no page matches "${neutraliseLine(result.query)}"`;
  return result.hits
    .map(
      (h) =>
        `${neutraliseLine(h.id)}  ${neutraliseLine(h.title)}  [${h.match}${h.vault === "personal" ? ", personal" : ""}]`,
    )
    .join("\n");
}

export function renderReindex(result: ReindexResult): string {
  return result.reports
    .map((r) => {
      // The error's code says why; its message and repair follow with the diagnostics.
      const failed = r.diagnostics.find((d) => d.severity === "error");
      const what = failed
        ? `not updated (${failed.code})`
        : r.action === "none"
          ? "already up to date"
          : `${r.action}: ${r.written} page(s) indexed, ${r.removed} removed${r.embedded ? `, ${r.embedded} embedded` : ""}`;
      return `${r.vault}: ${what} in ${r.durationMs} ms (index ${r.status.state}, ${r.status.documents} documents)${r.recovered ? " [recovered an interrupted run]" : ""}`;
    })
    .join("\n");
}

const percent = (share: number) =>
  share >= 0.01 ? `${(share * 100).toFixed(0)}%` : `${(share * 100).toFixed(2)}%`;

/**
 * `--explain`: the name match, then each matched term with its occurrences
 * (path/title/body), what it added to the score, and its evidence (share of
 * the vault's pages against general software English).
 */
function renderWhy(why: NonNullable<RecallResult["results"][number]["why"]>): string {
  const out: string[] = [];
  if (why.name) out.push(`   the query ${why.name === "exact" ? "is" : "contains"} its name`);
  if (why.order !== undefined) {
    const parts = [
      `standing ${(why.standing ?? 0).toFixed(2)}`,
      why.about ? `subject in its names and description ${percent(why.about)}` : undefined,
      why.intent ? `answers a "${why.intent}" question` : undefined,
    ].filter(Boolean);
    out.push(`   order ${why.order.toFixed(2)}: ${parts.join(", ")}`);
  }
  if (why.evidence) {
    out.push(`   evidence ${why.evidence.total.toFixed(2)}:`);
    for (const t of why.evidence.terms) {
      out.push(
        `     ${neutraliseLine(t.term)}  ×${t.counts.join("/")}  +${t.score.toFixed(2)}  evidence ${t.evidence.toFixed(2)} (vault ${percent(t.vaultShare)}, background ${percent(t.backgroundShare)})`,
      );
    }
  }
  if (why.time) {
    const t = why.time;
    const where =
      t.inside === "undated"
        ? "no date known"
        : `dated ${t.date} (${t.dateSource}), ${t.inside ? "inside" : "outside"} the window`;
    out.push(`   time: ${where}  ×${t.multiplier.toFixed(2)}`);
  }
  return out.join("\n");
}

/** `since 2026-06-08 until 2026-06-14 ("last week")`. */
export function renderWindow(window: NonNullable<RecallResult["window"]>): string {
  const ends = [
    window.since ? `since ${window.since}` : undefined,
    window.until ? `until ${window.until}` : undefined,
  ].filter(Boolean);
  return `${ends.join(" ")}${window.phrase ? ` ("${neutraliseLine(window.phrase)}")` : ""}`;
}

/**
 * `--explain`'s last line: each stage of the recall pipeline and its time,
 * then the search steps retrieval ran (recall-operation.ts names them).
 */
export function renderStages(result: Pick<RecallResult, "stages" | "trace">): string {
  const stages = result.stages
    .map((s) => {
      const parts = s.parts?.map((p) => `${p.stage} ${p.ms.toFixed(2)}`).join(", ");
      return `${s.stage} ${s.ms.toFixed(2)} ms${parts ? ` (${parts})` : ""}`;
    })
    .join(" · ");
  const steps = result.trace
    .map(
      (t) =>
        `${t.step}${t.vault ? ` (${t.vault})` : ""} ${t.ms} ms${t.hits === undefined ? "" : `, ${t.hits} hits`}${t.note ? `, ${neutraliseLine(t.note)}` : ""}`,
    )
    .join(" · ");
  return `pipeline: ${stages}${steps ? `\nsearch steps: ${steps}` : ""}`;
}

/**
 * A reason's message without its closing "; used lexical" (the fallback
 * line says so), and without its "personal vault: " when the line names
 * the vault already.
 */
function reasonText(d: Diagnostic, vault?: string): string {
  let text = d.message.replace(
    /;\s*used (?:lexical|hybrid|adaptive|quality)(?:, a partial answer)?$/,
    "",
  );
  if (vault !== undefined && text.startsWith(`${vault} vault: `)) {
    text = text.slice(`${vault} vault: `.length);
  }
  return neutraliseLine(text);
}

/** Whether the vaults a recall searched answered in different modes (then each is named). */
export function modesDiffer(result: Pick<RecallResult, "vaultModes">): boolean {
  return new Set((result.vaultModes ?? []).map((v) => v.mode)).size > 1;
}

/** A fallback for want of a model file or the model runtime, nothing broken. */
function isModelMissing(d: Diagnostic): boolean {
  return d.code === "model_unavailable";
}

/**
 * The mode part of a recall's header and a line for each fallback, so the
 * text answer says why a model mode was not used, as `--json` does:
 * `mode lexical, asked hybrid` then `hybrid fell back to lexical: <why>;
 * repair: <command>`. When the vaults answered in different modes each is
 * named (a personal vault without vectors does not make the project's
 * hybrid answer lexical).
 */
export function recallModeLines(
  result: Pick<RecallResult, "requestedMode" | "modeUsed" | "vaultModes" | "diagnostics">,
): { mode: string; lines: string[] } {
  const asked = result.requestedMode;
  const vaults = result.vaultModes ?? [];
  const mixed = modesDiffer(result);
  const mode = mixed
    ? `mode ${vaults.map((v) => `${v.mode} in the ${v.vault} vault`).join(", ")}, asked ${asked}`
    : `mode ${result.modeUsed}${result.modeUsed !== asked ? `, asked ${asked}` : ""}`;
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const v of vaults) {
    if (v.mode === asked) continue;
    // A read-only index answers lexically without a search diagnostic: its note says why.
    const reasons = v.reasons?.length
      ? v.reasons
      : result.diagnostics.filter(
          (d) => d.code === "index_read_only" && d.message.startsWith(`${v.vault} vault: `),
        );
    const where = mixed ? ` in the ${v.vault} vault` : "";
    // Adaptive is the default: with no local model (the lean install has
    // none) it is lexical by design, not a failure to repair on every
    // answer. One short line; --json keeps the reason and its repair.
    if (asked === "adaptive" && reasons.length > 0 && reasons.every(isModelMissing)) {
      const line = `adaptive answered ${v.mode}${where}: no local vector model here (\`llm-wiki models\` tells how to add one)`;
      if (!seen.has(line)) lines.push(line);
      seen.add(line);
      continue;
    }
    for (const d of reasons) {
      const line = `${asked} fell back to ${v.mode}${where}: ${reasonText(d, mixed ? v.vault : undefined)}${d.repair ? `; repair: ${neutraliseLine(d.repair)}` : ""}`;
      if (seen.has(line)) continue;
      seen.add(line);
      lines.push(line);
    }
  }
  return { mode, lines };
}

/**
 * Whether an answer holds pages but none reached the floor: the closest
 * pages, said to be weak. A page of an evidence type (a pi-llm-wiki
 * `decision`, a hand-written runbook) that reached it answers as surely as
 * a card; the pages a card brings along (its evidence, what it supersedes)
 * do not answer by themselves.
 */
export function onlyWeak(results: RecallResult["results"]): boolean {
  return (
    results.length > 0 &&
    results.every((r) => r.weak === true || (r.part !== "card" && r.part !== "unpromoted"))
  );
}

/** A recall's text answer; `explain` adds the pipeline's stages and their times at the end. */
export function renderRecallResult(
  result: RecallResult,
  options: { explain?: boolean; maxChars?: number } = {},
): string {
  const tail = options.explain ? `\n\n${renderStages(result)}` : "";
  const modes = recallModeLines(result);
  const fellBack = modes.lines.map((l) => `\n${l}`).join("");
  // The query is echoed too: an agent may pass on words it read in a page.
  const weak = onlyWeak(result.results);
  // A word searched as another spelling is said: the list answers that word.
  const read = (result.respelled ?? [])
    .map((r) => `; read "${neutraliseLine(r.from)}" as "${neutraliseLine(r.to)}"`)
    .join("");
  const head = `${result.results.length} page(s) for "${neutraliseLine(result.query)}" (${modes.mode}${read}${result.window ? `; preferring pages dated ${renderWindow(result.window)}${result.window.pagesInside === 0 && result.results.length > 0 ? ", and none of these is" : ""}` : ""})${weak ? ": no page reached the confidence floor; the closest matches, weak" : ""}`;
  if (result.results.length === 0) {
    // A search the turn budget cut found nothing because it did not look.
    const cut = result.diagnostics.some((d) => d.code === BUDGET_DIAGNOSTIC);
    const none = cut
      ? "not searched in time (turn budget), which is not the same as no memory"
      : result.trace.some((t) => t.conversation === true)
        ? "a turn of conversation, with nothing in it to recall (an asked recall searches it)"
        : result.window
          ? "no page dated in that time answers it"
          : "no reliable memory found";
    return `${head}: ${none}.${fellBack}${tail}`;
  }
  const lines = result.results.map((r, i) => {
    // A card opens its bundle; what its relations brought in is indented under it.
    const part =
      r.part === "card" ? "" : ` ${r.part}${r.relation ? ` (${relationPhrase(r.relation)})` : ""}`;
    const labels = [
      r.weak ? "weak match" : undefined,
      // As the recall block says DEPRECATED, so does the line a person reads.
      r.status === "deprecated" ? "deprecated" : undefined,
      r.freshness !== "current"
        ? r.staleReason && r.freshness === "stale"
          ? `stale: ${neutraliseLine(r.staleReason)}`
          : r.freshness
        : undefined,
      r.lastCommit ? `last commit ${neutraliseLine(commitLine(r.lastCommit))}` : undefined,
      r.successor ? `superseded by ${neutraliseLine(r.successor)}` : undefined,
      r.proposes?.length && r.part !== "proposed"
        ? `proposed replacement for ${r.proposes.map(neutraliseLine).join(", ")}, not yet accepted`
        : undefined,
      r.declaredBy ? declaredByPhrase(r.declaredBy) : undefined,
      r.scope ? `scope: ${neutraliseLine(r.scope)}` : undefined,
      r.trust,
      r.sources?.length ? `sources: ${r.sources.map(neutraliseLine).join(", ")}` : undefined,
    ].filter(Boolean);
    const indent =
      r.part === "card" || (i > 0 && result.results[i - 1]?.bundle !== r.bundle) ? "" : "  ";
    return `${indent}${i + 1}. ${neutraliseLine(r.id)}  ${neutraliseLine(r.title)}  [${neutraliseLine(r.type)}${r.vault === "personal" ? ", personal" : ""}]${part} score ${r.score.toFixed(2)}${labels.length ? ` · ${labels.join(" · ")}` : ""}\n${indent}   ${neutraliseLine(r.file)}${r.why ? `\n${renderWhy(r.why)}` : ""}`;
  });
  const conflicts = result.conflicts.map(
    (c) =>
      `conflict, unresolved: ${neutraliseLine(c.a.id)}${c.a.date ? ` (${datePhrase(c.a)})` : ""} and ${neutraliseLine(c.b.id)}${c.b.date ? ` (${datePhrase(c.b)})` : ""}; resolve with \`llm-wiki resolve-conflict --selected ID --other ID --relation …\``,
  );
  const listed = listedWithin(
    lines,
    options.maxChars,
    (kept) =>
      `${head}${fellBack}\n${[...kept, ...conflicts].join("\n")}\n\n${result.rendered}${tail}`,
  );
  const whole = `${head}${fellBack}\n${[...listed, ...conflicts].join("\n")}\n\n${result.rendered}${tail}`;
  // The block was fitted alone; with the listing before it the answer may
  // still be over: cut the block's tail, keeping its fence closed.
  return options.maxChars === undefined ? whole : withinBudget(whole, options.maxChars);
}

/**
 * The listing lines that keep the whole answer within `maxChars`: the last
 * ones give way first (the recalled text itself is fitted by recall), and a
 * line says how many pages went unlisted.
 */
function listedWithin(
  lines: string[],
  maxChars: number | undefined,
  whole: (kept: string[]) => string,
): string[] {
  if (maxChars === undefined || whole(lines).length <= maxChars) return lines;
  for (let keep = lines.length - 1; keep >= 0; keep -= 1) {
    const kept = [
      ...lines.slice(0, keep),
      `… ${lines.length - keep} more page(s) not listed (answer budget)`,
    ];
    if (whole(kept).length <= maxChars || keep === 0) return kept;
  }
  return lines;
}

export function renderBootstrap(result: BootstrapOpResult): string {
  if (!result.ok) return "";
  return result.created
    ? `created vault at ${result.vault.dir}`
    : `vault already exists at ${result.vault.dir}${result.createdPaths.length ? ` (completed: ${result.createdPaths.join(", ")})` : ""}`;
}

/**
 * `redacted N secret(s) before writing: kind n, …`, so the agent knows its
 * text was changed (counts only, never a value); undefined when none was.
 */
export function redactedLine(redactions: Record<string, number> | undefined): string | undefined {
  const entries = Object.entries(redactions ?? {}).filter(([, n]) => n > 0);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return undefined;
  return `redacted ${total} secret(s) before writing: ${entries.map(([kind, n]) => `${kind} ${n}`).join(", ")}`;
}

function withRedacted(text: string, redactions: Record<string, number> | undefined): string {
  const line = redactedLine(redactions);
  return line === undefined ? text : `${text}\n${line}`;
}

/** Relations as `supersedes decisions/old-cache, applies_under x (scope)`. */
function relationList(relations: ReadonlyArray<{ type: string; target: string; scope?: string }>) {
  return relations
    .map((r) => neutraliseLine(`${r.type} ${r.target}${r.scope ? ` (${r.scope})` : ""}`))
    .join(", ");
}

/** What became of the relations and sources given: added, already present, linked in the body. */
function additionLines(result: EnsurePageOpResult): string[] {
  const lines: string[] = [];
  const { relations, sources } = result;
  if (relations?.added.length) lines.push(`relations added: ${relationList(relations.added)}`);
  if (relations?.present.length) {
    lines.push(`relations already present: ${relationList(relations.present)}`);
  }
  if (sources?.added.length)
    lines.push(`sources added: ${sources.added.map(neutraliseLine).join(", ")}`);
  if (sources?.present.length) {
    lines.push(`sources already present: ${sources.present.map(neutraliseLine).join(", ")}`);
  }
  if (result.linksAdded?.length) {
    lines.push(
      `body links added: ${result.linksAdded.map((t) => `[[${neutraliseLine(t)}]]`).join(", ")}`,
    );
  }
  return lines;
}

export function renderEnsurePage(result: EnsurePageOpResult): string {
  if (!result.ok) return "";
  const where = `${result.id} (.llm-wiki/${result.path})`;
  const head = result.created
    ? withRedacted(`created ${where}`, result.redactions)
    : result.updated
      ? withRedacted(
          `a page with this title exists: ${where}; added to its front matter, its text kept`,
          result.redactions,
        )
      : `a page with this title exists: ${where}; nothing overwritten`;
  return [head, ...additionLines(result)].join("\n");
}

/** Lint findings one per line (severity, code, message, repair), then what `--fix` did. */
export function renderLint(result: LintResult): string {
  const lines: string[] = [];
  for (const v of result.vaults) {
    const { error, warning, info } = v.counts;
    const total = v.findings.length;
    lines.push(
      `${neutraliseLine(v.root)} (${v.kind}): ${total === 0 ? "no findings" : `${total} finding(s): ${error} error(s), ${warning} warning(s), ${info} info`}`,
    );
    for (const f of v.findings) {
      const also = f.pages?.length ? ` [${f.pages.map(neutraliseLine).join(", ")}]` : "";
      lines.push(
        `  ${f.severity} ${f.code}: ${neutraliseLine(f.message)}${also}${f.repair ? ` (fix: ${neutraliseLine(f.repair)})` : ""}`,
      );
    }
    for (const fix of v.fixed) {
      lines.push(
        `  fixed: created stub ${neutraliseLine(fix.path ?? "")} (linked from ${fix.linkedFrom.map(neutraliseLine).join(", ")})`,
      );
    }
    for (const fix of v.skipped) {
      lines.push(`  not fixed: [[${neutraliseLine(fix.target)}]]: ${fix.reason ?? "skipped"}`);
    }
  }
  return lines.join("\n");
}

export function renderCapture(result: CaptureSourceResult): string {
  if (!result.ok) return "";
  if (result.deduplicated) {
    return [
      `already captured as ${result.id} (.llm-wiki/${result.packet}/); nothing written`,
      result.page ? `page     ${result.page}` : undefined,
    ]
      .filter((l) => l !== undefined)
      .join("\n");
  }
  const total = Object.values(result.redactions).reduce((n, k) => n + k, 0);
  const lines = [
    `captured ${result.id} (.llm-wiki/${result.packet}/)`,
    result.page ? `page     ${result.page} (skeleton: summarise it)` : undefined,
    total > 0 ? redactedLine(result.redactions) : undefined,
  ];
  return lines.filter((l) => l !== undefined).join("\n");
}

function renderRecorded(what: string, result: WrittenPageResult): string {
  if (!result.ok) return "";
  const where = `${result.id} (.llm-wiki/${result.path})`;
  return result.created
    ? withRedacted(`recorded ${what} ${where}`, result.redactions)
    : `the same ${what} is already recorded at ${where}; nothing written`;
}

export function renderObservation(result: WrittenPageResult): string {
  return renderRecorded("observation", result);
}

export function renderRetro(result: WrittenPageResult): string {
  return renderRecorded("retro", result);
}

/** What a recorded (or repeated) conflict resolution says: the page, the decision, what it replaced. */
export function renderResolveConflict(result: ResolveConflictResult): string {
  const r = result.resolution;
  if (!result.ok || !r) return "";
  const where = `${result.id} (.llm-wiki/${result.path})`;
  const decision = `${r.selected} ${r.relation} ${r.other}${r.scope !== undefined ? ` under "${r.scope}"` : ""}`;
  if (!result.created)
    return `this resolution is already recorded and in force: ${where}; nothing written`;
  const lines = [
    `recorded resolution ${r.id}: ${decision}`,
    `page     ${where}`,
    r.replaces !== undefined ? `replaces ${r.replaces}` : undefined,
    redactedLine(result.redactions),
  ];
  return neutraliseLines(lines.filter((l): l is string => l !== undefined));
}

function neutraliseLines(lines: string[]): string {
  return lines.map(neutraliseLine).join("\n");
}

export function renderLogEvent(result: LogEventResult): string {
  return result.ok
    ? withRedacted(`logged event ${result.kind} in .llm-wiki/${result.path}`, result.redactions)
    : "";
}

/** How a source is named to a reader: its id, else its page, else its title. */
export function sourceName(ref: SourceRef): string {
  return neutraliseLine(ref.sourceId ?? ref.page ?? ref.title);
}

/** `waiting N more skeleton source(s): …` (the first ten named), or undefined when none waits. */
export function waitingLine(pending: SourceRef[]): string | undefined {
  if (pending.length === 0) return undefined;
  const shown = pending.slice(0, 10).map(sourceName).join(", ");
  return `waiting ${pending.length} more skeleton source(s): ${shown}${pending.length > 10 ? ", …" : ""}`;
}

/** The arguments of the next ingest call, as a host's user makes it. */
export type IngestStep = NonNullable<IngestResult["next"]>;

/** The next ingest call as a tool call (Pi and MCP): `wiki_ingest {"source": …, "part": 2}`. */
function ingestToolCall(next: IngestStep): string {
  return `wiki_ingest ${JSON.stringify(next)}`;
}

/**
 * One ingest step: where the source is, which part this is and what to call
 * next (written by `step`: a tool call unless the host says otherwise), then
 * the part's text between tags (the source's words, not instructions to
 * follow), then the page schema.
 */
export function renderIngest(
  result: IngestResult,
  step: (next: IngestStep) => string = ingestToolCall,
): string {
  if (!result.ok) return "";
  const waiting = waitingLine(result.pending);
  const ref = result.source;
  if (result.marked) {
    const head = result.marked.changed
      ? `marked ${result.marked.page} ingested (.llm-wiki/${result.marked.path}; backup .llm-wiki/${result.marked.backup ?? "?"})`
      : `${result.marked.page} was already marked ingested; nothing changed`;
    return [head, waiting].filter((l) => l !== undefined).join("\n");
  }
  const part = result.part;
  if (!ref || !part) {
    return ["no skeleton source is waiting to be ingested", waiting]
      .filter((l) => l !== undefined)
      .join("\n");
  }
  const name = sourceName(ref);
  const next = result.next
    ? result.next.mark_ingested
      ? `last part; once the pages are written: ${step(result.next)}`
      : step(result.next)
    : "last part";
  const lines = [
    `source  ${name} "${neutraliseLine(ref.title)}"${ref.page ? ` · page ${ref.page} (.llm-wiki/${ref.pagePath})` : " · no source page yet"}${ref.textPath ? ` · text .llm-wiki/${ref.textPath}` : ""}`,
    `part    ${part.index} of ${part.count} (characters ${part.total === 0 ? 0 : part.start + 1}–${part.end} of ${part.total})`,
    `next    ${next}`,
    waiting,
    "",
    `<source-text source="${name}" part="${part.index}" of="${part.count}">`,
    part.text,
    "</source-text>",
    "",
    result.schema,
  ];
  return lines.filter((l) => l !== undefined).join("\n");
}

/** `wiki_verify_page`: which page, the date now recorded, and whether anything changed. */
export function renderVerifyPage(result: VerifyPageResult): string {
  if (!result.ok || result.id === undefined) return "";
  const page = neutraliseLine(result.id);
  if (!result.changed)
    return `${page} is already verified ${result.verified ?? ""}; nothing written`;
  const was = result.previous ? ` (was ${neutraliseLine(result.previous)})` : "";
  return `${page} verified ${result.verified ?? ""}${was}`;
}

/** `wiki_recall_feedback`: the judgment recorded, and for a correction its observation page. */
export function renderRecallFeedback(result: JudgeResult): string {
  if (!result.ok || result.page === undefined) return "";
  const page = neutraliseLine(result.page);
  const c = result.correction;
  if (c === undefined) return `recorded ${page} as ${result.judgment ?? "judged"}`;
  const where = `${neutraliseLine(c.id)} (.llm-wiki/${neutraliseLine(c.path)})`;
  return c.created
    ? `recorded correction of ${page}: ${where}`
    : `the same correction of ${page} is already recorded at ${where}; nothing written`;
}
