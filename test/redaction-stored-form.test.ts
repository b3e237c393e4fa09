/**
 * Redaction judges the text as it will be stored and read: a secret split
 * by colour codes (`grep --color`, `bat`, `jq -C`), by a zero-width
 * character inside its value or key, or by other control bytes is found as
 * it reads once those are gone; a `.netrc` line inside a tool call's JSON
 * arguments does not swallow the next field; and `SECRET_KEY_BASE`,
 * `cookie`, `sessionid`, `connection_string` and `slack_webhook` keys lose
 * their values. Every shape is generated afresh on each run (random secrets,
 * random key casing and separators) and written through `page`,
 * `ensurePage`, `observe`, `logEvent`, a trajectory, `capture --text` and
 * the Stop hook's transcript; nothing under `.llm-wiki/`, read raw or with every invisible
 * character taken out, holds a secret.
 */
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: taking control characters out is the point.
import { randomBytes, randomInt } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { redactSecrets } from "../extensions/llm-wiki/lib/safety/redact.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCli } from "./helpers/cli.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

const services: WikiService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random machine-made value: letters and digits, both present. */
function randomSecret(length = 20 + randomInt(20)): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const b of bytes) out += ALNUM[b % ALNUM.length];
  return `${out.slice(0, -2)}${"abcdefgh"[randomInt(8)]}${randomInt(10)}`;
}

/** `words` joined the way some config spells keys: `_`, `-`, `.` or camelCase, in a random case. */
function keyName(words: readonly string[]): string {
  const style = randomInt(5);
  if (style === 0) return words.join("_").toUpperCase();
  if (style === 1) return words.join("_").toLowerCase();
  if (style === 2) return words.join("-").toLowerCase();
  if (style === 3)
    return words.map((w, i) => (i === 0 ? w : w[0]?.toUpperCase() + w.slice(1))).join("");
  return words.join(".").toLowerCase();
}

const PASSWORD_KEYS = [["db", "password"], ["smtp", "password"], ["password"], ["redis", "pass"]];
const ESC = "\u001b";

interface Shape {
  name: string;
  text: string;
  /** Every value that must not be found, raw or once invisible characters are gone. */
  secrets: string[];
}

/** A secret split at a random point by `mark`. */
function split(secret: string, mark: string): string {
  const at = 3 + randomInt(secret.length - 6);
  return `${secret.slice(0, at)}${mark}${secret.slice(at)}`;
}

const ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"];
const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)] as T;

function shapes(): Shape[] {
  const out: Shape[] = [];
  const pw = () => keyName(pick(PASSWORD_KEYS));
  // grep --color: the match highlighted, then `=value`.
  {
    const secret = randomSecret();
    out.push({
      name: "grep --color",
      text: `${randomWords(3)}\n.env:3:${ESC}[01;31m${ESC}[K${pw()}${ESC}[m${ESC}[K=${secret}\n`,
      secrets: [secret],
    });
  }
  // bat: every token coloured, the value too.
  {
    const secret = randomSecret();
    out.push({
      name: "bat",
      text: `${ESC}[38;5;231m${pw()}${ESC}[0m${ESC}[38;5;203m=${ESC}[0m${ESC}[38;5;186m${split(secret, `${ESC}[0m${ESC}[38;5;186m`)}${ESC}[0m\n`,
      secrets: [secret],
    });
  }
  // jq -C: a JSON key and value in colour.
  {
    const secret = randomSecret();
    out.push({
      name: "jq -C",
      text: `{\n  ${ESC}[1;34m"${pw()}"${ESC}[0m${ESC}[1;39m:${ESC}[0m ${ESC}[0;32m"${secret}"${ESC}[0m\n}\n`,
      secrets: [secret],
    });
  }
  // A zero-width character inside the value, and inside the key.
  for (const where of ["value", "key"] as const) {
    const secret = randomSecret();
    const key = pw();
    const zw = pick(ZERO_WIDTH);
    out.push({
      name: `zero-width in the ${where}`,
      text:
        where === "value"
          ? `${key}=${split(secret, zw)}\n`
          : `${split(key.length > 6 ? key : `${key}word`, zw)}=${secret}\n`,
      secrets: [secret],
    });
  }
  // Other control bytes inside a token (a backspace, a NUL, a C1 control).
  {
    const token = `ghp_${randomSecret(36).slice(0, 36)}`;
    out.push({
      name: "control bytes inside a token",
      text: `export GITHUB_TOKEN=${split(token, pick(["\u0000", "\u0008", "\u0085", "\u009b"]))}\n`,
      secrets: [token],
    });
  }
  // Two netrc lines as one tool call's JSON arguments.
  {
    const first = randomSecret();
    const second = randomSecret();
    out.push({
      name: "netrc lines inside JSON",
      text: JSON.stringify({
        a: `machine ${randomWord()}.example.com login ${randomWord()} password ${first}`,
        b: `machine ${randomWord()}.example.org login ${randomWord()} password ${second}`,
      }),
      secrets: [first, second],
    });
  }
  // Key names that used to keep their values.
  for (const words of [
    ["secret", "key", "base"],
    ["cookie"],
    ["sessionid"],
    ["session", "id"],
    ["connection", "string"],
    ["slack", "webhook"],
    ["webhook", "url"],
  ]) {
    const secret = randomSecret();
    const key = keyName(words);
    const form = randomInt(3);
    out.push({
      name: `key ${words.join("_")}`,
      text:
        form === 0
          ? `${key}=${secret}\n`
          : form === 1
            ? `${key}: "${secret}"\n`
            : `{"${key}": "${secret}"}\n`,
      secrets: [secret],
    });
  }
  return out;
}

/** What a reader sees: colour codes, zero-width characters and other controls gone (this spec's own rule). */
function visible(text: string): string {
  return text
    .replace(/\u001b\[[0-9;:?]*[ -/]*[@-~]/g, "")
    .replace(/\\u001b\[[0-9;:?]*[ -/]*[@-~]/g, "")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2060\ufeff]/g, "")
    .replace(/\\u(?:200[b-f]|2060|feff|00ad|00[01][0-9a-f]|009[0-9a-f])/gi, "");
}

/** Where under `dir` a secret is found, raw or visible; one line per leak, never the value. */
function leaks(dir: string, cases: readonly Shape[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = join(entry.parentPath, entry.name);
    const raw = readFileSync(abs).toString("utf8");
    for (const form of [raw, visible(raw)]) {
      for (const c of cases)
        for (const s of c.secrets)
          if (form.includes(s) || form.toLowerCase().includes(s.toLowerCase()))
            found.push(`${c.name} in ${abs.slice(dir.length)}`);
    }
  }
  return [...new Set(found)];
}

function service(root: string): WikiService {
  const s = createWikiService({
    cwd: root,
    vault: root,
    settings: { ...DEFAULT_SETTINGS, retrievalMode: "lexical" },
  });
  services.push(s);
  return s;
}

describe("redaction judges the text as it will be stored and read", () => {
  it("each shape, alone, comes out of redaction with no secret left, raw or visible", () => {
    for (const shape of shapes()) {
      const { text } = redactSecrets(shape.text);
      for (const s of shape.secrets) {
        expect(visible(text), `${shape.name}: ${JSON.stringify(shape.text)}`).not.toContain(s);
        expect(text, shape.name).not.toContain(s);
      }
    }
  });

  it("the netrc rule stops at JSON punctuation: the fields around the passwords stay readable", () => {
    const host = `${randomWord()}.example.com`;
    const text = JSON.stringify({
      a: `machine ${host} login bob password ${randomSecret()}`,
      b: "kept",
    });
    const { text: out } = redactSecrets(text);
    expect(() => JSON.parse(out)).not.toThrow();
    expect(JSON.parse(out)).toMatchObject({ b: "kept" });
    expect(out).toContain(host);
  });

  it("page, observe, log-event and a trajectory through the service write none of them", async () => {
    const cases = shapes();
    const vault = makeTempVault();
    const wiki = service(vault.root);
    const body = cases.map((c) => c.text).join("\n");
    const page = wiki.ensurePage({
      type: "concept",
      title: `Notes ${randomWord()}`,
      content: `# Notes\n\n${body}`,
    });
    expect(page.ok, JSON.stringify(page.diagnostics)).toBe(true);
    const observed = wiki.observe({ title: `Seen ${randomWord()}`, content: body });
    expect(observed.ok, JSON.stringify(observed.diagnostics)).toBe(true);
    const logged = wiki.logEvent({
      kind: "terminal_output",
      detail: Object.fromEntries(cases.map((c, i) => [`out${i}`, c.text])),
    });
    expect(logged.ok, JSON.stringify(logged.diagnostics)).toBe(true);
    const trajectory = await wiki.captureTrajectory({
      task: `Deploy ${randomWord()}`,
      steps: [
        { role: "user", text: "Deploy it" },
        ...cases.map((c) => ({ role: "tool" as const, tool: "bash", args: { command: c.text } })),
        ...cases.map((c) => ({ role: "tool" as const, tool: "bash", text: c.text })),
      ],
    });
    expect(trajectory.ok, JSON.stringify(trajectory.diagnostics)).toBe(true);
    await wiki.reindex();
    expect(leaks(vault.paths.dir, cases)).toEqual([]);
  });

  it("the CLI's page, capture of text and the Stop hook's transcript write none of them", () => {
    const cases = shapes();
    const home = makeTempDir("llm-wiki-redaction-home-");
    mkdirSync(join(home, ".config", "llm-wiki"), { recursive: true });
    writeFileSync(
      join(home, ".config", "llm-wiki", "settings.json"),
      JSON.stringify({ "llm-wiki": { trajectories: true } }),
    );
    const env = { HOME: home, WIKI_HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const vault = makeTempVault();
    const body = cases.map((c) => c.text).join("\n");
    const page = runCli(
      ["page", "--type", "concept", "--title", `Output ${randomWord()}`, "--content", "-"],
      { cwd: vault.root, env: { ...env }, input: body },
    );
    expect(page.status, page.stderr).toBe(0);
    const captured = runCli(["capture", "--text", "-", "--title", `Log ${randomWord()}`], {
      cwd: vault.root,
      env: { ...env },
      input: body,
    });
    // Capture refuses raw control bytes outright (nothing stored), or stores the text redacted.
    if (captured.status !== 0) expect(captured.stderr).toContain("nothing was stored");
    const transcript = join(makeTempDir("llm-wiki-redaction-transcript-"), "session.jsonl");
    const lines: unknown[] = [{ type: "user", message: { role: "user", content: "deploy" } }];
    cases.forEach((c, i) => {
      lines.push({
        type: "assistant",
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id: `t${i}`, name: "bash", input: { command: c.text } }],
        },
      });
      lines.push({
        type: "user",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: `t${i}`, content: c.text }],
        },
      });
    });
    lines.push({ type: "assistant", message: { role: "assistant", content: "done" } });
    writeFileSync(transcript, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const stop = runCli(["hook", "stop"], {
      cwd: vault.root,
      env,
      input: JSON.stringify({
        session_id: randomWord(),
        transcript_path: transcript,
        cwd: vault.root,
        hook_event_name: "Stop",
      }),
    });
    expect(stop.status, stop.stderr).toBe(0);
    expect(stop.stderr).toMatch(/trajectory created/);
    expect(leaks(vault.paths.dir, cases)).toEqual([]);
  });
});
