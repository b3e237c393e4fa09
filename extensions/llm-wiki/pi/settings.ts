/**
 * The extension's settings, later sources winning: the `llm-wiki` section
 * of Pi's global settings file; of the project's `.pi/settings.json`, only
 * in a trusted project (settings written there before); and of the
 * extension's own file for the project (`lib/pi-settings-files.ts`), read
 * whatever the project's trust, since the user wrote it outside the
 * repository. Each file is validated on its own, so a bad project value falls
 * back to the global one, and a file's problems name that file.
 */

import { join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import type { Diagnostic } from "../lib/diagnostics.ts";
import { piLegacyProjectSettingsPath, piProjectSettingsPath } from "../lib/pi-settings-files.ts";
import { readSettingsSection, resolveSettings, type WikiSettings } from "../lib/settings.ts";

export interface PiSettingsLocation {
  /** Pi's agent folder (holds the global `settings.json`). */
  agentDir: string;
  cwd: string;
  /** Whether the project's `.pi/settings.json` may be read (`ctx.isProjectTrusted()`). */
  projectTrusted: boolean;
}

/** Settings files in the order they apply; Pi's project file only when trusted. */
function piSettingsFiles(location: PiSettingsLocation): string[] {
  const files = [join(location.agentDir, "settings.json")];
  if (location.projectTrusted) files.push(piLegacyProjectSettingsPath(location.cwd));
  files.push(piProjectSettingsPath(location.agentDir, location.cwd));
  return files;
}

/** Reads and validates the `llm-wiki` settings (agent folder: Pi's own unless given); never throws. */
export function loadPiSettings(location: {
  cwd: string;
  projectTrusted: boolean;
  agentDir?: string;
}): { settings: WikiSettings; diagnostics: Diagnostic[] } {
  const files = piSettingsFiles({ ...location, agentDir: location.agentDir ?? getAgentDir() });
  const diagnostics: Diagnostic[] = [];
  const sources = files.map((path) => {
    const read = readSettingsSection(path);
    diagnostics.push(...read.diagnostics);
    return { label: path, section: read.section };
  });
  const resolved = resolveSettings(sources);
  return { settings: resolved.settings, diagnostics: [...diagnostics, ...resolved.diagnostics] };
}
