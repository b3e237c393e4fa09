/**
 * One trajectory per agent session, kept current as the session goes on:
 * `llm-wiki hook stop` runs after every turn, so the session's page is
 * found by its hashed session key (`session:` in its frontmatter) and
 * replaced with the longer record, never duplicated. A page is replaced only
 * while it is still exactly what this path wrote (`session_body`, the hash
 * of its body, matches) and not yet distilled; otherwise it is kept as it
 * is. The page is drafted by capture.ts (same redaction, bounds, naming) and
 * a new one is placed by its write path; a replacement is written
 * atomically, never through a link, and logged as `trajectory_updated`.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { appendEvents } from "../vault/events.ts";
import { readFrontmatter } from "../vault/frontmatter.ts";
import { writeFileAtomic } from "../vault/fs-safe.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { redactPage } from "../writing/page-redact.ts";
import { renderPage } from "../writing/page-render.ts";
import { withWriter } from "../writing/write-page-pipeline.ts";
import {
  type CaptureTrajectoryInput,
  draftTrajectory,
  placeTrajectory,
  TRAJECTORY_FOLDER,
  type TrajectoryDraft,
} from "./capture.ts";

/** Most trajectory files looked at when finding a session's page. */
const MAX_SCANNED = 5_000;
/** A trajectory file larger than this is not one this path wrote. */
const MAX_PAGE_BYTES = 1024 * 1024;

export type SessionRecordAction = "created" | "updated" | "unchanged" | "kept";

export interface SessionRecordResult {
  action: SessionRecordAction;
  /** The page id, `trajectories/TRJ-…`. */
  id?: string;
  /** Why a page was kept as it is. */
  reason?: string;
}

/** The key a session's page is found by: a hash, so the client's session id is never written. */
export function sessionKey(sessionId: string): string {
  return createHash("sha256").update(`llm-wiki-session\0${sessionId}`).digest("hex").slice(0, 24);
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

interface Found {
  id: string;
  file: string;
  text: string;
  data: Record<string, unknown>;
}

function findSessionPage(vault: VaultPaths, key: string): Found | undefined {
  const dir = join(vault.wiki, TRAJECTORY_FOLDER);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  for (const name of names.filter((n) => /^TRJ-.*\.md$/.test(n)).slice(0, MAX_SCANNED)) {
    const file = join(dir, name);
    try {
      const stat = lstatSync(file);
      if (!stat.isFile() || stat.size > MAX_PAGE_BYTES) continue;
      const text = readFileSync(file, "utf8");
      if (!text.includes(key)) continue;
      const data = readFrontmatter(text).data;
      if (data === null || typeof data !== "object") continue;
      const record = data as Record<string, unknown>;
      if (record.session === key)
        return { id: `${TRAJECTORY_FOLDER}/${name.slice(0, -3)}`, file, text, data: record };
    } catch {
      // An unreadable or malformed page is not the session's.
    }
  }
  return undefined;
}

/** A frontmatter date as written (YAML reads an unquoted timestamp as a Date). */
function dateText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return undefined;
}

/** The draft with `session_body`: the hash of the body as it will be written. */
function sealed(draft: TrajectoryDraft, id: string): TrajectoryDraft {
  const rendered = renderPage(redactPage(draft), id);
  const body = readFrontmatter(rendered.text).content;
  return { ...draft, data: { ...draft.data, session_body: hashOf(body) } };
}

/**
 * Records the session's trajectory: creates its page, replaces it with the
 * longer record, or leaves it (`unchanged`, or `kept` with the reason).
 * Throws `WikiError` when the steps hold no tool call.
 */
export function recordSessionTrajectory(
  vault: VaultPaths,
  input: CaptureTrajectoryInput & { session: { key: string; client: string } },
  now: Date = new Date(),
): SessionRecordResult {
  const found = findSessionPage(vault, input.session.key);
  if (!found) {
    const draft = sealed(draftTrajectory(input, now), `${TRAJECTORY_FOLDER}/new`);
    const placed = placeTrajectory(vault, draft, now);
    return { action: "created", id: placed.id };
  }
  const { data } = found;
  if (data.distilled !== undefined && data.distilled !== null)
    return { action: "kept", id: found.id, reason: "already distilled" };
  const body = readFrontmatter(found.text).content;
  if (data.session_body !== hashOf(body))
    return { action: "kept", id: found.id, reason: "edited since it was recorded" };
  const captured = dateText(data.captured);
  const created = dateText(data.created)?.slice(0, 10);
  const session = {
    ...input.session,
    ...(captured !== undefined ? { captured } : {}),
    ...(created !== undefined ? { created } : {}),
  };
  const draft = sealed(draftTrajectory({ ...input, session }, now), found.id);
  // Named as a new page is (write-page-pipeline.ts), so an unchanged session compares equal.
  const rendered = renderPage(redactPage(withWriter(draft, vault.writer?.())), found.id);
  // Compared as the bytes written: a lone surrogate in a step is written as U+FFFD.
  if (Buffer.from(rendered.text, "utf8").equals(Buffer.from(found.text, "utf8")))
    return { action: "unchanged", id: found.id };
  writeFileAtomic(found.file, rendered.text, vault.wiki);
  try {
    appendEvents(
      vault,
      [
        {
          kind: "trajectory_updated",
          id: found.id,
          title: draft.title,
          outcome: draft.outcome,
          step_count: draft.stepCount,
          tool_call_count: draft.toolCallCount,
        },
      ],
      now,
    );
  } catch {
    // The page stands; a log that cannot take the event loses only the event.
  }
  return { action: "updated", id: found.id };
}

/** Trajectory pages with no `distilled:` mark (at most `MAX_SCANNED` files looked at). */
export function undistilledCount(vault: VaultPaths): number {
  const dir = join(vault.wiki, TRAJECTORY_FOLDER);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let count = 0;
  for (const name of names.filter((n) => n.endsWith(".md")).slice(0, MAX_SCANNED)) {
    try {
      const file = join(dir, name);
      const stat = lstatSync(file);
      if (!stat.isFile() || stat.size > MAX_PAGE_BYTES) continue;
      const data = readFrontmatter(readFileSync(file, "utf8")).data as Record<string, unknown>;
      if (data?.type === "trajectory" && (data.distilled === undefined || data.distilled === null))
        count += 1;
    } catch {
      // A malformed page is not counted.
    }
  }
  return count;
}
