/**
 * `digest`: what changed in a vault over a day or a week (sources captured,
 * pages created or updated, sources ingested) and how its lint counts moved
 * since the previous digest, written as a new Markdown file under
 * `.llm-wiki/outputs/` (never over an existing one) and logged as a
 * `digest_generated` event. Every title is shown neutralised and the whole
 * file passes the secret detector, as every write does.
 */
import { type PeriodActivity, periodActivity } from "../dashboard/period-activity.ts";
import { vaultOverview } from "../dashboard/vault-overview.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { IndexStatus } from "../index/index-state.ts";
import type { LintCounts } from "../lint/types.ts";
import { redactSecrets } from "../safety/redact.ts";
import { neutraliseLine } from "../safety/text.ts";
import { whoPhrase } from "../temporal/recent.ts";
import { recordEvents } from "../vault/events.ts";
import { writeFrontmatter } from "../vault/frontmatter.ts";
import type { VaultPaths } from "../vault/paths.ts";
import type { Registry } from "../vault/registry.ts";
import { type PreviousDigest, previousDigest, writeDigestFile } from "./digest-file.ts";

export const DIGEST_PERIODS = ["daily", "weekly"] as const;
export type DigestPeriod = (typeof DIGEST_PERIODS)[number];

const PERIOD_DAYS: Record<DigestPeriod, number> = { daily: 1, weekly: 7 };
/** Most items listed per section of the file; the count above the list is whole. */
const MAX_LISTED = 50;
const DAY_MS = 86_400_000;

export interface DigestInput {
  period?: DigestPeriod;
  now?: Date;
}

/** Lint now against the previous digest's counts. */
export interface LintTrend {
  now: LintCounts;
  previous?: PreviousDigest;
  /** Errors plus warnings against the previous digest's; "first" without one. */
  trend: "first" | "improved" | "unchanged" | "worse";
}

export interface DigestResult {
  ok: boolean;
  period?: DigestPeriod;
  /** The file written, relative to `.llm-wiki/` (`outputs/digest-2026-06-14.md`). */
  path?: string;
  activity?: PeriodActivity;
  lint?: LintTrend;
  /** Captured sources still waiting for ingest, and pages nothing links to, at `until`. */
  queue?: number;
  orphans?: number;
  diagnostics: Diagnostic[];
}

/** What the digest is made from: the caller refreshes the registry and runs lint. */
export interface DigestSources {
  registry: Registry;
  index: IndexStatus;
  lint: LintCounts;
}

function trendOf(now: LintCounts, previous: PreviousDigest | undefined): LintTrend["trend"] {
  if (!previous) return "first";
  const a = now.error + now.warning;
  const b = previous.lint.error + previous.lint.warning;
  return a < b ? "improved" : a > b ? "worse" : "unchanged";
}

/** A title or id for a Markdown list: one neutral line that cannot open a link, tag or code span. */
function md(text: string): string {
  return neutraliseLine(text).replace(/[[\]<>`*_|\\]/g, (c) => `\\${c}`);
}

function list<T>(items: readonly T[], line: (item: T) => string): string[] {
  if (items.length === 0) return ["- none"];
  const shown = items.slice(0, MAX_LISTED).map((item) => `- ${line(item)}`);
  if (items.length > MAX_LISTED) shown.push(`- … and ${items.length - MAX_LISTED} more`);
  return shown;
}

const counts = (c: LintCounts) => `${c.error} error(s), ${c.warning} warning(s), ${c.info} info`;

/** Ids come from file names and the log: shown as a wikilink only when they look like a page id. */
const pageLink = (id: string) => (/^[\w.-]+(\/[\w.-]+)+$/u.test(id) ? `[[${id}]]` : md(id));

function digestText(result: Required<Omit<DigestResult, "path" | "diagnostics" | "ok">>): string {
  const a = result.activity;
  const title = (t: string | undefined) => (t === undefined ? "" : ` ${md(t)}`);
  // Who created it, as its event recorded.
  const who = (p: { by?: string; agent?: string }) => {
    const phrase = whoPhrase(p).trim();
    return phrase === "" ? "" : ` — ${md(phrase)}`;
  };
  const source = (s: { id?: string; page?: string; title?: string }) =>
    [s.id ? md(s.id) : undefined, s.page ? pageLink(s.page) : undefined]
      .filter((x) => x !== undefined)
      .join(" ") + title(s.title);
  const lint = result.lint;
  const previous = lint.previous
    ? `previous digest (${lint.previous.path}): ${counts(lint.previous.lint)}; ${lint.trend}`
    : "first digest: no previous counts to compare";
  const body = [
    `# Wiki digest (${result.period}): ${a.since.slice(0, 10)} to ${a.until.slice(0, 10)}`,
    "",
    `## Sources captured (${a.sourcesCaptured.length})`,
    ...list(a.sourcesCaptured, source),
    "",
    `## Pages created (${a.pagesCreated.length})`,
    ...list(a.pagesCreated, (p) => `${pageLink(p.id)}${title(p.title)}${who(p)}`),
    "",
    `## Pages updated (${a.pagesUpdated.length})`,
    ...list(a.pagesUpdated, (p) => `${pageLink(p.id)}${title(p.title)}`),
    "",
    `## Sources ingested (${a.sourcesIngested.length})`,
    ...list(a.sourcesIngested, source),
    "",
    "## Health",
    `- lint now: ${counts(lint.now)}`,
    `- ${previous}`,
    `- ingest queue: ${result.queue} source(s) waiting`,
    `- orphans: ${result.orphans} page(s) nothing links to`,
    "",
  ].join("\n");
  return writeFrontmatter(body, {
    type: "digest",
    period: result.period,
    since: a.since,
    until: a.until,
    lint: { ...lint.now },
  });
}

/** Writes the digest of the period ending at `now` and logs it; the result says what it holds. */
export function writeDigest(
  vault: VaultPaths,
  sources: DigestSources,
  input: DigestInput = {},
): DigestResult {
  const period = input.period ?? "weekly";
  const now = input.now ?? new Date();
  const since = new Date(now.getTime() - PERIOD_DAYS[period] * DAY_MS);
  const activity = periodActivity(vault, sources.registry, since, now);
  const overview = vaultOverview(vault, sources.registry, sources.index, now);
  const previous = previousDigest(vault);
  const lint: LintTrend = { now: sources.lint, trend: trendOf(sources.lint, previous) };
  if (previous) lint.previous = previous;
  const content = {
    period,
    activity,
    lint,
    queue: overview.queue.pending,
    orphans: overview.orphans.count,
  };
  const text = redactSecrets(digestText(content)).text;
  const path = writeDigestFile(vault, now.toISOString().slice(0, 10), text);
  // The digest file is written; a log that cannot take the event is a warning.
  const logged = recordEvents(
    vault,
    [
      {
        kind: "digest_generated",
        path,
        period,
        since: activity.since,
        until: activity.until,
        lint: { ...lint.now },
      },
    ],
    now,
  );
  return { ok: true, path, ...content, diagnostics: logged.diagnostics };
}

/** The digest as a few lines for a terminal or a tool result (the file has the lists). */
export function renderDigest(result: DigestResult): string {
  if (!result.ok || !result.activity || !result.lint || !result.path) return "";
  const a = result.activity;
  const l = result.lint;
  return [
    `digest (${result.period}) written to .llm-wiki/${result.path}`,
    `period   ${a.since.slice(0, 16)}Z to ${a.until.slice(0, 16)}Z, ${a.events} event(s)`,
    `sources  ${a.sourcesCaptured.length} captured, ${a.sourcesIngested.length} ingested, ${result.queue} waiting`,
    `pages    ${a.pagesCreated.length} created, ${a.pagesUpdated.length} updated`,
    `lint     ${counts(l.now)}${l.previous ? ` (was ${counts(l.previous.lint)}: ${l.trend})` : " (first digest)"}`,
  ].join("\n");
}
