/**
 * The lifecycle the specs that drive all three hosts share: every test gets
 * a fresh home (no personal vault, cache or Pi agent folder leaks from one
 * test to the next), and the MCP clients and Pi sessions it opened are
 * closed after it, each Pi session having reported no extension error.
 */
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, beforeEach, expect, vi } from "vitest";
import type { PiHarness } from "./pi-session.ts";
import { makeTempDir, removeTempDirs } from "./temp-vault.ts";

/** What a test opened; closed after it. */
export interface OpenHosts {
  clients: Client[];
  sessions: PiHarness[];
}

/**
 * Registers the per-test home and clean-up (`closeFirst` runs before the
 * hosts close, e.g. the spec's own services); returns the lists a test adds
 * its hosts to.
 */
export function isolatedHosts(homePrefix: string, closeFirst?: () => Promise<void>): OpenHosts {
  const open: OpenHosts = { clients: [], sessions: [] };
  beforeEach(() => {
    const home = makeTempDir(homePrefix);
    vi.stubEnv("HOME", home);
    vi.stubEnv("WIKI_HOME", home);
    vi.stubEnv("XDG_CACHE_HOME", join(home, ".cache"));
    vi.stubEnv("PI_CODING_AGENT_DIR", join(home, "agent"));
  });
  afterEach(async () => {
    await closeFirst?.();
    await Promise.all(open.clients.splice(0).map((c) => c.close()));
    for (const pi of open.sessions.splice(0)) {
      await pi.close();
      expect(pi.errors).toEqual([]);
    }
    vi.unstubAllEnvs();
    removeTempDirs();
  });
  return open;
}
