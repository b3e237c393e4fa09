/**
 * Text renderings of service results, shared by every host (CLI output, Pi
 * tool content, MCP text content), so the same operation reads the same
 * everywhere. Structured output is the result object itself.
 */
import type { Diagnostic } from "./diagnostics.ts";
import type { RecallResult } from "./recall-operation.ts";
import type {
  BootstrapOpResult,
  EnsurePageOpResult,
  ReindexResult,
  SearchResult,
  StatusResult,
} from "./wiki-service.ts";

/** One line per diagnostic (a failure reads as one line), with its repair command when there is one. */
export function renderDiagnostics(diagnostics: Diagnostic[]): string {
  return diagnostics
    .map((d) => `${d.severity}: ${d.message}${d.repair ? ` (fix: ${d.repair})` : ""}`)
    .join("\n");
}

export function renderStatus(result: StatusResult): string {
  const v = result.vault;
  if (!v) return "";
  const lines = [
    `vault   ${v.name ?? "(unnamed)"} (${v.kind}) at ${v.root}`,
    v.config.topic ? `topic   ${v.config.topic}` : undefined,
    `pages   ${v.pages} (${v.byRole.canonical} canonical, ${v.byRole.evidence} evidence)${v.malformed ? `, ${v.malformed} malformed` : ""}`,
    `types   ${
      Object.entries(v.byType)
        .map(([t, n]) => `${t} ${n}`)
        .join(", ") || "none"
    }`,
    `links   ${v.links.resolved} resolved, ${v.links.missing} missing, ${v.links.ambiguous} ambiguous`,
    `index   ${v.index.state}, ${v.index.documents} documents${v.index.pending ? `, ${v.index.pending} pending` : ""}; vectors ${v.index.vectors.present ? `yes (${v.index.vectors.model ?? "unknown model"})` : "none"}${v.index.repair && v.index.state !== "ready" ? ` (fix: ${v.index.repair})` : ""}`,
    `mode    ${result.retrieval.mode}; models ${Object.entries(result.retrieval.models)
      .map(([role, m]) => `${role} ${m.available ? "available" : "unavailable"}`)
      .join(", ")}`,
  ];
  return lines.filter((l) => l !== undefined).join("\n");
}

export function renderSearch(result: SearchResult): string {
  if (result.hits.length === 0) return `no page matches "${result.query}"`;
  return result.hits
    .map((h) => `${h.id}  ${h.title}  [${h.match}${h.vault === "personal" ? ", personal" : ""}]`)
    .join("\n");
}

export function renderReindex(result: ReindexResult): string {
  return result.reports
    .map((r) => {
      const failed = r.diagnostics.some((d) => d.severity === "error");
      const what = failed
        ? "not updated"
        : r.action === "none"
          ? "already up to date"
          : `${r.action}: ${r.written} page(s) indexed, ${r.removed} removed${r.embedded ? `, ${r.embedded} embedded` : ""}`;
      return `${r.vault}: ${what} in ${r.durationMs} ms (index ${r.status.state}, ${r.status.documents} documents)${r.recovered ? " [recovered an interrupted run]" : ""}`;
    })
    .join("\n");
}

export function renderRecallResult(result: RecallResult): string {
  const head = `${result.results.length} page(s) for "${result.query}" (mode ${result.modeUsed}${result.modeUsed !== result.requestedMode ? `, asked ${result.requestedMode}` : ""})`;
  if (result.results.length === 0) return `${head}: no reliable memory found.`;
  const lines = result.results.map(
    (r, i) =>
      `${i + 1}. ${r.id}  ${r.title}  [${r.type}${r.vault === "personal" ? ", personal" : ""}] score ${r.score.toFixed(2)}\n   ${r.file}`,
  );
  return `${head}\n${lines.join("\n")}\n\n${result.rendered}`;
}

export function renderBootstrap(result: BootstrapOpResult): string {
  return result.created
    ? `created vault at ${result.vault.dir}`
    : `vault already exists at ${result.vault.dir}${result.createdPaths.length ? ` (completed: ${result.createdPaths.join(", ")})` : ""}`;
}

export function renderEnsurePage(result: EnsurePageOpResult): string {
  if (!result.ok) return "";
  const where = `${result.id} (.llm-wiki/${result.path})`;
  return result.created
    ? `created ${where}`
    : `a page with this title exists: ${where}; nothing overwritten`;
}
