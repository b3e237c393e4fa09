/**
 * The service with its generated views following its writes: every
 * operation that may write a vault's pages or events tells the follower
 * (views-follow.ts) which vault and which files, once it has returned;
 * `close` flushes what is pending first, so a one-shot CLI and a host
 * shutting down leave the views current. Reads are passed through as they are.
 */
import type { VaultKind, VaultPaths, VaultSelector } from "../vault/paths.ts";
import type { WikiService } from "../wiki-service-api.ts";
import type { ViewsFollower } from "./views-follow.ts";

/** The files a write's result names (paths, or a page id), for the registry to look at. */
function namedFiles(result: unknown): string[] {
  if (result === null || typeof result !== "object") return [];
  const r = result as Record<string, unknown>;
  const out: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === "string" && value !== "") out.push(value);
  };
  add(r.path);
  for (const key of ["marked", "correction"]) {
    const nested = r[key];
    if (nested !== null && typeof nested === "object") add((nested as { path?: unknown }).path);
  }
  // A capture names its skeleton source page by id.
  if (typeof r.page === "string" && r.page !== "") add(`wiki/${r.page}.md`);
  return out;
}

/**
 * False when the result says nothing was written: a refusal, a page or
 * resolution already there, a capture already captured, a date already set.
 */
function wroteSomething(result: unknown): boolean {
  if (result === null || typeof result !== "object") return false;
  const r = result as Record<string, unknown>;
  return r.ok !== false && r.created !== false && r.deduplicated !== true && r.changed !== false;
}

/** `service` with `follower` told of each write; `close` flushes before closing. */
export function followWrites(service: WikiService, follower: ViewsFollower): WikiService {
  const vaultOf = (selector: VaultSelector | undefined): VaultPaths | undefined =>
    service.resolveVaults(selector ?? "active")[0];
  const ofKind = (kind: VaultKind | undefined): VaultPaths | undefined =>
    kind === undefined
      ? vaultOf("active")
      : service.resolveVaults(kind).find((v) => v.kind === kind);
  /**
   * Tells the follower of a write that wrote something; `all` when it cannot
   * name every file it changed (and may have written part of its work before failing).
   */
  const note = (vault: VaultPaths | undefined, result: unknown, all = false): void => {
    if (vault === undefined || (!all && !wroteSomething(result))) return;
    follower.noteWrite(vault, all ? undefined : namedFiles(result));
  };
  /** `call`, then the follower told of what it wrote in the vault its input names. */
  const noting =
    <I extends { vault?: VaultSelector }, R>(call: (input: I) => R) =>
    (input: I): R => {
      const result = call(input);
      note(vaultOf(input.vault), result);
      return result;
    };
  const notingAsync =
    <I extends { vault?: VaultSelector }, R>(call: (input: I) => Promise<R>) =>
    async (input: I): Promise<R> => {
      const result = await call(input);
      note(vaultOf(input.vault), result);
      return result;
    };

  return {
    ...service,
    recallSkills(input) {
      return service.recallSkills(input);
    },
    ensurePage: noting((input) => service.ensurePage(input)),
    observe: noting((input) => service.observe(input)),
    retro: noting((input) => service.retro(input)),
    logEvent: noting((input) => service.logEvent(input)),
    ingest(input = {}) {
      const result = service.ingest(input);
      // Handing out a part writes nothing; marking a source ingested edits its page.
      if (result.marked?.changed) note(vaultOf(input.vault), result);
      return result;
    },
    captureSource: notingAsync((input) => service.captureSource(input)),
    async resolveConflict(input) {
      const result = await service.resolveConflict(input);
      note(ofKind(result.vault), result);
      return result;
    },
    verifyPage: notingAsync((input) => service.verifyPage(input)),
    async recallFeedback(session, input) {
      const result = await service.recallFeedback(session, input);
      // Feedback events are internal, yet `meta/log.md` counts them.
      const vault = result.vault ? session.vaultPaths(result.vault) : undefined;
      note(vault, result);
      return result;
    },
    captureTrajectory: notingAsync((input) => service.captureTrajectory(input)),
    async markDistilled(input) {
      const result = await service.markDistilled(input);
      if (result.ok && result.changed) note(vaultOf(input.vault), result, true);
      return result;
    },
    async okfImport(input) {
      const result = await service.okfImport(input);
      // A dry run writes nothing; an import writes pages it lists by id only.
      if (input.apply) note(vaultOf(input.vault), result, true);
      return result;
    },
    async lint(input = {}) {
      const result = await service.lint(input);
      // Fixing rewrites the pages it repairs.
      if (input.fix)
        for (const v of service.resolveVaults(input.vault ?? "active")) note(v, result, true);
      return result;
    },
    async close() {
      await follower.flush();
      await service.close();
    },
  };
}
