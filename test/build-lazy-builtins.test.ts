/**
 * The bundled bins load the built-ins only some commands use on first call
 * (scripts/build-lazy-builtins.ts): a probe built as the bins are does not
 * load them when imported, gets the real function's result when it calls
 * one, and a value that cannot be offered lazily fails the build.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binBuildOptions } from "../scripts/build.ts";
import { randomWord } from "./helpers/random-text.ts";

const REPO = join(import.meta.dirname, "..");
let work = "";

beforeAll(() => {
  // Inside the repository, as the project's own sources are.
  mkdirSync(join(REPO, ".cache"), { recursive: true });
  work = mkdtempSync(join(REPO, ".cache", "lazy-builtins-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Builds `source` as the bins are built; the entry's path. */
async function buildProbe(name: string, source: string): Promise<string> {
  const file = join(work, `${name}.ts`);
  writeFileSync(file, source);
  const out = join(work, `out-${name}`);
  await build({ ...binBuildOptions(out), entryPoints: { [name]: file } });
  return join(out, `${name}.js`);
}

describe("lazily loaded built-ins in the bundle", () => {
  it("are not loaded at import, and load and answer on first call", async () => {
    const word = randomWord();
    const entry = await buildProbe(
      "probe",
      [
        'import { createHash } from "node:crypto";',
        'import { execFileSync } from "node:child_process";',
        "const loaded = (m: string) => process.moduleLoadList.includes(['NativeModule', m].join(' '));",
        "const before = { crypto: loaded('crypto'), child_process: loaded('child_process') };",
        `const hash = createHash("sha256").update(${JSON.stringify(word)}).digest("hex");`,
        `const echoed = execFileSync(process.execPath, ["-e", "process.stdout.write('ok')"], { encoding: "utf8" });`,
        "const after = { crypto: loaded('crypto'), child_process: loaded('child_process') };",
        "process.stdout.write(JSON.stringify({ before, after, hash, echoed }));",
        "",
      ].join("\n"),
    );
    const run = spawnSync(process.execPath, [entry], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const seen = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(seen.before).toEqual({ crypto: false, child_process: false });
    expect(seen.after).toEqual({ crypto: true, child_process: true });
    expect(seen.hash).toBe(createHash("sha256").update(word).digest("hex"));
    expect(seen.echoed).toBe("ok");
  });

  it("fail the build for a value that cannot load lazily", async () => {
    await expect(
      buildProbe(
        "constant",
        'import { constants } from "node:zlib";\nprocess.stdout.write(String(constants.Z_OK));\n',
      ),
    ).rejects.toThrow(/constants/);
  });
});
