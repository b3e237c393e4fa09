/**
 * The operations every host offers (Pi tools, MCP tools, CLI commands). A
 * host parses its input, calls one of these and renders the structured
 * result, so the three hosts cannot drift apart.
 */
import { type Diagnostic, diagnostic } from "./diagnostics.ts";
import { DEFAULT_SETTINGS, type WikiSettings } from "./settings.ts";
import { type BootstrapResult, bootstrapVault } from "./vault/bootstrap.ts";
import { readVaultConfig, type VaultConfig } from "./vault/config.ts";
import { type LookupHit, lookupPages } from "./vault/lookup.ts";
import { type EnsurePageInput, type EnsurePageResult, ensurePage } from "./vault/page-write.ts";
import {
  type DiscoveryEnv,
  findPersonalVault,
  findProjectVault,
  rootFromArg,
  type VaultPaths,
  vaultExists,
  vaultFromArg,
} from "./vault/paths.ts";
import { type Registry, refreshRegistry } from "./vault/registry.ts";

/** Which vault an operation acts on. */
export type VaultSelector = "active" | "project" | "personal" | "all";

export interface WikiServiceOptions {
  cwd: string;
  env?: DiscoveryEnv;
  settings?: WikiSettings;
  /** An explicit vault (`--vault DIR`): a folder holding `.llm-wiki/`, or that folder itself. */
  vault?: string;
}

export interface VaultSummary {
  kind: VaultPaths["kind"];
  root: string;
  name?: string;
}

export interface StatusResult {
  ok: boolean;
  vault?: VaultSummary & {
    config: VaultConfig;
    pages: number;
    byType: Record<string, number>;
    byRole: { canonical: number; evidence: number };
    malformed: number;
    links: { resolved: number; missing: number; ambiguous: number };
  };
  diagnostics: Diagnostic[];
}

export interface SearchResult {
  ok: boolean;
  query: string;
  hits: Array<LookupHit & { vault: VaultPaths["kind"] }>;
  diagnostics: Diagnostic[];
}

export interface EnsurePageOpResult extends Partial<EnsurePageResult> {
  ok: boolean;
  diagnostics: Diagnostic[];
}

/** The shared service; one per host process, holding no process-wide state. */
export interface WikiService {
  readonly settings: WikiSettings;
  /** Vaults this service acts on, discovered from the working directory or `--vault`. */
  resolveVaults(selector?: VaultSelector): VaultPaths[];
  bootstrap(input: {
    root?: string;
    name?: string;
    topic?: string;
    mode?: string;
  }): BootstrapResult & {
    ok: true;
    diagnostics: Diagnostic[];
  };
  ensurePage(input: EnsurePageInput & { vault?: VaultSelector }): EnsurePageOpResult;
  search(input: { query: string; limit?: number; vault?: VaultSelector }): SearchResult;
  status(input?: { vault?: VaultSelector }): StatusResult;
  /** The up-to-date registry of a vault (incremental refresh). */
  registry(vault: VaultPaths): Registry;
}

/** Diagnostic for an operation that needs a vault and found none. */
export function noVaultDiagnostic(explicit?: string): Diagnostic {
  return explicit
    ? diagnostic("vault_not_found", "error", `no .llm-wiki vault at ${explicit}`, {
        repair: `llm-wiki init --vault ${explicit}`,
      })
    : diagnostic(
        "vault_not_found",
        "error",
        "no .llm-wiki vault in this folder or any parent, and no personal vault",
        {
          repair: "llm-wiki init",
        },
      );
}

/** Creates the service for a host. */
export function createWikiService(options: WikiServiceOptions): WikiService {
  const env = options.env ?? process.env;
  const settings = options.settings ?? DEFAULT_SETTINGS;

  const explicit = (): VaultPaths | undefined =>
    options.vault === undefined ? undefined : vaultFromArg(options.vault, env);

  const resolveVaults = (selector: VaultSelector = "active"): VaultPaths[] => {
    if (options.vault !== undefined) {
      const v = explicit();
      return v ? [v] : [];
    }
    const project = findProjectVault(options.cwd, env);
    const personal = findPersonalVault(env);
    switch (selector) {
      case "project":
        return project ? [project] : [];
      case "personal":
        return personal ? [personal] : [];
      case "all":
        return [project, personal].filter((v): v is VaultPaths => v !== undefined);
      case "active":
        return project ? [project] : personal ? [personal] : [];
    }
  };

  const missing = (): Diagnostic[] => [noVaultDiagnostic(options.vault)];

  const registry = (vault: VaultPaths): Registry => refreshRegistry(vault);

  return {
    settings,
    resolveVaults,
    registry,

    bootstrap(input) {
      const root =
        input.root ?? (options.vault !== undefined ? rootFromArg(options.vault) : options.cwd);
      const result = bootstrapVault({ ...input, root });
      const diagnostics = result.created
        ? []
        : [
            diagnostic(
              "vault_exists",
              "info",
              `a vault already exists at ${result.vault.dir}; nothing overwritten`,
            ),
          ];
      return { ...result, ok: true, diagnostics };
    },

    ensurePage(input) {
      const [vault] = resolveVaults(input.vault ?? "active");
      if (!vault || !vaultExists(vault)) return { ok: false, diagnostics: missing() };
      try {
        const result = ensurePage(vault, input);
        return { ok: true, ...result };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { ok: false, diagnostics: [diagnostic("page_invalid_input", "error", message)] };
      }
    },

    search({ query, limit = 10, vault = "all" }) {
      const vaults = resolveVaults(vault);
      if (vaults.length === 0) return { ok: false, query, hits: [], diagnostics: missing() };
      const hits: SearchResult["hits"] = [];
      const diagnostics: Diagnostic[] = [];
      for (const v of vaults) {
        const reg = registry(v);
        for (const hit of lookupPages(reg.pages.values(), query, limit))
          hits.push({ ...hit, vault: v.kind });
      }
      return { ok: true, query, hits: hits.slice(0, limit), diagnostics };
    },

    status({ vault = "active" } = {}) {
      const [v] = resolveVaults(vault);
      if (!v) return { ok: false, diagnostics: missing() };
      const { config, diagnostics } = readVaultConfig(v);
      const reg = registry(v);
      const byType: Record<string, number> = {};
      const byRole = { canonical: 0, evidence: 0 };
      for (const page of reg.pages.values()) {
        byType[page.type] = (byType[page.type] ?? 0) + 1;
        byRole[page.role] += 1;
      }
      const resolved = [...reg.links.values()].reduce((n, l) => n + l.length, 0);
      const malformed = reg.diagnostics.filter((d) => d.severity === "error").length;
      const summary: NonNullable<StatusResult["vault"]> = {
        kind: v.kind,
        root: v.root,
        config,
        pages: reg.pages.size,
        byType: Object.fromEntries(Object.entries(byType).sort(([a], [b]) => (a < b ? -1 : 1))),
        byRole,
        malformed,
        links: {
          resolved,
          missing: reg.linkProblems.filter((p) => p.status === "missing").length,
          ambiguous: reg.linkProblems.filter((p) => p.status === "ambiguous").length,
        },
      };
      if (config.name) summary.name = config.name;
      return { ok: true, vault: summary, diagnostics: [...diagnostics, ...reg.diagnostics] };
    },
  };
}
