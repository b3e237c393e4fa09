/**
 * `llm-wiki` and `llm-wiki-mcp` as an install puts them on PATH: a folder
 * holding one small shell script per command that runs the given entry with
 * this test's Node (the project's Node 22; the machine's PATH may hold an
 * older one). What a project's shared config names resolves through it.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { shellWord } from "../../extensions/llm-wiki/lib/setup/launch-command.ts";
import { makeTempDir } from "./temp-vault.ts";

/** The entries the two commands run (a bin, a bundled entry or a source). */
export interface CommandEntries {
  cli: string;
  mcp: string;
}

/** A fresh folder with `llm-wiki` and `llm-wiki-mcp` running `entries`; put it first on PATH. */
export function commandsOnPath(entries: CommandEntries): string {
  const dir = makeTempDir("llm-wiki-path-");
  for (const [name, entry] of [
    ["llm-wiki", entries.cli],
    ["llm-wiki-mcp", entries.mcp],
  ] as const) {
    const file = join(dir, name);
    writeFileSync(
      file,
      `#!/bin/sh\nexec ${shellWord(process.execPath)} ${shellWord(entry)} "$@"\n`,
    );
    chmodSync(file, 0o755);
  }
  return dir;
}
