/**
 * `llm-wiki init --vault P` on a place that cannot hold a vault ends, at
 * once, with one structured `vault_path_unusable` error: under `/proc` (where
 * Node's recursive mkdir used to spin at 100 % CPU forever), through a file,
 * in a folder the user may not write. Nothing is created anywhere.
 */
import { randomBytes, randomInt } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeDirs } from "../extensions/llm-wiki/lib/vault/fs-safe.ts";
import { type CliRun, runCli } from "./helpers/cli.ts";
import { childEnv } from "./helpers/index-services.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";
import {
  makeWritable,
  openToEveryone,
  runCliUnprivileged,
  unprivilegedHome,
} from "./helpers/unprivileged.ts";

afterEach(() => removeTempDirs());

/** A random folder name, in a random spelling (letters, digits, dots, dashes, non-ASCII). */
function randomName(): string {
  const alphabets = ["abcxyz", "ABCXYZ", "0123456789", "._-", "éüøñ", "記憶庫"];
  let name = "";
  for (let i = randomInt(3, 12); i > 0; i--) {
    const letters = alphabets[randomInt(alphabets.length)] ?? "x";
    name += letters[randomInt(letters.length)];
  }
  // Never `.`, `..` or hidden-only: a name that is a real new folder.
  return `v${name}`;
}

/** The JSON document of a finished run, which must have ended by itself (not by the timeout). */
function finished(run: CliRun): { ok: boolean; diagnostics: Array<Record<string, unknown>> } {
  expect(run.signal, "the command did not end by itself").toBeNull();
  expect(run.status).toBe(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  return JSON.parse(run.stdout);
}

/** Generous: a hang fails the test; a slow machine does not. */
const HANG = 60_000;

describe("init on a path that cannot hold a vault", () => {
  const procPaths = () => [
    "/proc/self",
    `/proc/self/${randomName()}`,
    `/proc/${randomName()}/${randomName()}`,
    `/proc/self/fd/${randomName()}`,
  ];

  it("under /proc ends with vault_path_unusable", { timeout: 4 * HANG }, () => {
    for (const path of procPaths()) {
      const run = runCli(["init", "--vault", path, "--json"], { env: childEnv(), timeout: HANG });
      const out = finished(run);
      expect(out.ok).toBe(false);
      expect(out.diagnostics).toContainEqual(
        expect.objectContaining({ code: "vault_path_unusable", severity: "error" }),
      );
    }
  });

  it("through a file ends with vault_path_unusable and creates nothing", () => {
    const dir = makeTempDir("llm-wiki-init-");
    const file = join(dir, randomName());
    writeFileSync(file, randomBytes(16));
    const path = join(file, randomName(), randomName());
    const run = runCli(["init", "--vault", path, "--json"], { env: childEnv(), timeout: HANG });
    const out = finished(run);
    expect(out.diagnostics).toContainEqual(
      expect.objectContaining({ code: "vault_path_unusable", repair: expect.any(String) }),
    );
    expect(existsSync(path)).toBe(false);
  });

  it("in a folder the user may not write ends with vault_path_unusable", () => {
    const dir = makeTempDir("llm-wiki-init-");
    const locked = join(dir, randomName());
    mkdirSync(locked);
    openToEveryone(dir);
    const path = join(locked, randomName());
    const run = runCliUnprivileged(["init", "--vault", path, "--json"], {
      env: { HOME: unprivilegedHome() },
      timeout: HANG,
    });
    makeWritable(dir);
    const out = finished(run);
    expect(out.diagnostics).toContainEqual(
      expect.objectContaining({ code: "vault_path_unusable" }),
    );
    expect(existsSync(path)).toBe(false);
  });

  it("makeDirs creates missing folders and refuses /proc without looping", () => {
    const dir = makeTempDir("llm-wiki-init-");
    const deep = join(dir, randomName(), randomName(), randomName());
    makeDirs(deep);
    expect(existsSync(deep)).toBe(true);
    makeDirs(deep);
    for (const path of procPaths()) expect(() => makeDirs(join(path, ".llm-wiki"))).toThrow();
  });
});
