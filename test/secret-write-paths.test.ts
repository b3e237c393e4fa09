/**
 * No secret reaches a vault's derived or written files, whatever path writes
 * them and whichever host asks: a corpus of secrets (a fresh random value of
 * every kind on each run) is written through every write operation of the
 * service (page fields and titles, observe, retro, log-event, capture of
 * text, a file and a loopback URL, the ingest hand-off, a page written by
 * hand then indexed), through the CLI and the MCP server as child processes
 * and through a real Pi session; then every byte under `.llm-wiki/` is read
 * (file and folder names, events, manifests, the mirror, the SQLite index and
 * its write-ahead log, decoded through SQL too) and no secret may be found.
 * Only the files a person placed by hand are exempt: they are authoritative
 * and never rewritten.
 */
import { randomBytes, randomInt } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { redactedLine } from "../extensions/llm-wiki/lib/render-text.ts";
import { redactSecrets } from "../extensions/llm-wiki/lib/safety/redact.ts";
import { DEFAULT_SETTINGS } from "../extensions/llm-wiki/lib/settings.ts";
import { createWikiService, type WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCliAsync } from "./helpers/cli.ts";
import { SERVER } from "./helpers/mcp-child.ts";
import { type PiHarness, startPi, textOf, toolResults } from "./helpers/pi-session.ts";
import { corpusSeedNote, type SecretCase, secretCorpus } from "./helpers/secret-corpus.ts";
import { leaksUnder } from "./helpers/secret-scan.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

/** Random per run; `SECRET_CORPUS_SEED` replays a failed run's values. */
const SEED = Number(process.env.SECRET_CORPUS_SEED ?? randomInt(0, 2 ** 31));
const CORPUS = secretCorpus(SEED);
const NOTE = corpusSeedNote(SEED);
/** A hang guard for the child-process specs on a shared two-core machine, not a timing assertion. */
const HOST_GUARD_MS = 180_000;

type Counts = Record<string, number>;

const services: WikiService[] = [];
const clients: Client[] = [];
const sessions: PiHarness[] = [];
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const pi of sessions.splice(0)) await pi.close();
  await Promise.all(closers.splice(0).map((close) => close()));
  vi.unstubAllEnvs();
});

afterAll(removeTempDirs);

// --- the corpus, batched so each path takes many secrets in few writes ---

/** Every case's text, one after another: one body carries the whole corpus. */
const ALL_TEXT = CORPUS.map((c) => c.text).join("\n\n");

/** Cases that fit a one-line field (a title, a tag, a list item) as they are. */
const ONE_LINE = CORPUS.filter((c) => !/[\r\n]/.test(c.text) && c.text.length <= 280);

/** `n` distinct cases at random. */
function sample<T>(list: readonly T[], n: number): T[] {
  const pool = [...list];
  const out: T[] = [];
  while (out.length < n && pool.length > 0) out.push(...pool.splice(randomInt(pool.length), 1));
  return out;
}

/** Groups of case texts whose JSON stays under an event detail's size limit. */
function detailChunks(cases: readonly SecretCase[], maxBytes = 3_500): string[][] {
  const chunks: string[][] = [[]];
  for (const c of cases) {
    const last = chunks[chunks.length - 1] as string[];
    const notes = [...last, c.text];
    if (
      last.length > 0 &&
      Buffer.byteLength(JSON.stringify({ notes, first: notes[0] })) > maxBytes
    ) {
      chunks.push([c.text]);
    } else last.push(c.text);
  }
  return chunks;
}

/**
 * A secret that is recognisable alone (a prefixed token, not a password that
 * is a secret only next to its key) and fits a file name: for names derived
 * from a path, and a URL's path and query.
 */
function fileNameSecret(): SecretCase {
  const fit = CORPUS.filter(
    (c) => /^[A-Za-z0-9_-]{16,120}$/.test(c.secret) && redactSecrets(c.secret).text !== c.secret,
  );
  return sample(fit, 1)[0] as SecretCase;
}

/** A password as people make them: letters, a digit and a symbol, random per call. */
function randomPassword(): string {
  const letters = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";
  let out = "";
  for (let i = 0; i < 10 + randomInt(8); i += 1) out += letters[randomInt(letters.length)];
  return `${out}${randomInt(10, 99)}${"!#%*+?@^~"[randomInt(9)]}`;
}

/**
 * One map holding several secrets under their names (a password, an AWS
 * secret key, a token, a numeric PIN) among plain fields, random per call;
 * as fields and as the YAML lines of a front-matter block.
 */
function secretMap(): { fields: Record<string, string | number>; yaml: string; secrets: string[] } {
  const fields: Record<string, string | number> = {
    host: `db-${randomInt(100, 999)}.internal`,
    [passwordKey()]: randomPassword(),
    aws_secret_access_key: randomBytes(30).toString("base64"),
    api_token: `${randomBytes(16).toString("hex")}`,
    admin_password: randomInt(10_000_000, 99_999_999),
  };
  const yaml = Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}\n`)
    .join("");
  const secrets = Object.entries(fields)
    .filter(([k]) => k !== "host")
    .map(([, v]) => String(v));
  return { fields, yaml, secrets };
}

/** A password field's name in one of its spellings. */
function passwordKey(): string {
  const [key = "password"] = sample(
    ["password", "db_password", "PASSWORD", "smtp_pass", "passwd"],
    1,
  );
  return key;
}

function total(counts: Counts | undefined): number {
  return Object.values(counts ?? {}).reduce((n, k) => n + k, 0);
}

/** Every line of the event log, parsed. */
function events(dir: string): Array<Record<string, unknown>> {
  return readFileSync(join(dir, "meta", "events.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Redactions logged by events of `kind`, summed. */
function loggedRedactions(dir: string, kind: string): number {
  return events(dir)
    .filter((e) => e.kind === kind)
    .reduce((n, e) => n + total(e.redactions as Counts | undefined), 0);
}

// --- hosts ---

/** A home, settings and caches of the test's own; loopback capture allowed. */
function isolatedEnv(): Record<string, string> {
  const home = makeTempDir("llm-wiki-secrets-home-");
  const settings = join(home, "settings.json");
  writeFileSync(settings, JSON.stringify({ "llm-wiki": { captureAllowHosts: ["127.0.0.1"] } }));
  return {
    HOME: home,
    WIKI_HOME: home,
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? join(home, ".cache"),
    XDG_CONFIG_HOME: join(home, ".config"),
    LLM_WIKI_SETTINGS: settings,
    QMD_EMBED_MODEL: process.env.QMD_EMBED_MODEL ?? "",
    QMD_RERANK_MODEL: process.env.QMD_RERANK_MODEL ?? "",
    QMD_GENERATE_MODEL: process.env.QMD_GENERATE_MODEL ?? "",
  };
}

function service(root: string): WikiService {
  const env = isolatedEnv();
  const s = createWikiService({
    cwd: root,
    env,
    settings: { ...DEFAULT_SETTINGS, captureAllowHosts: ["127.0.0.1"] },
  });
  services.push(s);
  return s;
}

/** A loopback server answering every path with `body`; its base URL. */
async function serve(body: string, type: string): Promise<string> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": type }).end(body),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

/** A served page whose path, query and `<title>` carry secrets besides its text. */
async function secretUrl(): Promise<string> {
  const [titled] = sample(ONE_LINE, 1);
  const inPath = fileNameSecret();
  const inQuery = fileNameSecret();
  const html = `<html><head><title>${titled?.text ?? ""}</title></head><body><pre>${ALL_TEXT.replaceAll("&", "&amp;").replaceAll("<", "&lt;")}</pre></body></html>`;
  const base = await serve(html, "text/html; charset=utf-8");
  return `${base}/docs/${inPath.secret}?access_token=${encodeURIComponent(inQuery.secret)}`;
}

function expectClean(vaultDir: string, exempt?: ReadonlySet<string>): void {
  expect(leaksUnder(vaultDir, CORPUS, exempt), NOTE).toEqual([]);
}

// --- the specs ---

describe("secrets on every write path of the service", () => {
  it("page titles, bodies and every front-matter value are redacted before slugging and writing", async () => {
    const vault = makeTempVault();
    const wiki = service(vault.root);
    for (const c of ONE_LINE) {
      const titled = wiki.ensurePage({ type: "concept", title: c.text });
      expect(titled.ok, `${c.kind}: ${JSON.stringify(titled.diagnostics)}`).toBe(true);
      expect(total(titled.redactions), `${c.kind} in a title; ${NOTE}`).toBeGreaterThan(0);
    }
    const [title] = sample(ONE_LINE, 1);
    const keyed = sample(ONE_LINE, 5);
    // A password is a secret only next to its key: a front-matter field named so.
    const fieldPassword = randomPassword();
    const page = wiki.ensurePage({
      type: "concept",
      title: `Credentials ${title?.text ?? ""}`,
      content: ALL_TEXT,
      description: sample(ONE_LINE, 1)[0]?.text ?? "",
      tags: ONE_LINE.map((c) => c.text),
      aliases: ONE_LINE.map((c) => c.text),
      extra: {
        notes: {
          all: CORPUS.map((c) => c.text),
          byKind: Object.fromEntries(CORPUS.map((c) => [c.kind, c.text])),
        },
        ...Object.fromEntries(keyed.map((c) => [c.text, "a secret in a key"])),
        [passwordKey()]: fieldPassword,
      },
    });
    expect(page.ok).toBe(true);
    expect(total(page.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    const created = events(vault.paths.dir).find(
      (e) => e.kind === "page_created" && e.id === page.id,
    );
    expect(created?.redactions).toEqual(page.redactions);
    // The page's front matter still parses, with its fields in place.
    expect(readFileSync(join(vault.paths.dir, page.path ?? ""), "utf8")).toContain("[REDACTED:");
    expect(wiki.registry(vault.paths).pages.get(page.id ?? "")?.tags.length).toBeGreaterThan(0);

    const report = await wiki.reindex();
    expect(report.ok).toBe(true);
    expectClean(vault.paths.dir);
  });

  it("every secret-named key of one front-matter map is redacted, pasted or given, and the page keeps its keys", async () => {
    const vault = makeTempVault();
    const wiki = service(vault.root);
    const pasted = secretMap();
    const given = secretMap();
    const page = wiki.ensurePage({
      type: "concept",
      title: `Credentials ${randomInt(1000, 9999)}`,
      content: `---\n${pasted.yaml}---\nThe database notes.\n`,
      extra: { service: given.fields },
    });
    expect(page.ok, JSON.stringify(page.diagnostics)).toBe(true);
    const text = readFileSync(join(vault.paths.dir, page.path ?? ""), "utf8");
    for (const value of [...pasted.secrets, ...given.secrets]) {
      expect(text.includes(value), `${text}; ${NOTE}`).toBe(false);
    }
    // Still a page: every field in place, the secrets' keys included, parsed by the registry.
    const parsed = wiki.registry(vault.paths).pages.get(page.id ?? "");
    expect(parsed?.title).toMatch(/^Credentials /);
    for (const key of Object.keys(pasted.fields)) expect(text).toMatch(new RegExp(`^${key}:`, "m"));
    expect(total(page.redactions)).toBeGreaterThanOrEqual(6);
    await wiki.reindex();
    expectClean(vault.paths.dir);
  });

  it("an event detail and a trajectory's arguments lose every secret, JSON inside a string included", async () => {
    const vault = makeTempVault();
    const wiki = service(vault.root);
    const detail = secretMap();
    const logged = wiki.logEvent({
      kind: "deploy_failed",
      detail: { ...detail.fields, env: JSON.stringify(detail.fields) },
    });
    expect(logged.ok, JSON.stringify(logged.diagnostics)).toBe(true);
    const args = secretMap();
    const trajectory = await wiki.captureTrajectory({
      task: "Deploy the service",
      steps: [
        { role: "user", text: "Deploy the service" },
        // A tool's arguments as an agent sends them: a JSON document as a string argument.
        {
          role: "tool",
          tool: "bash",
          args: { command: "deploy", config: JSON.stringify(args.fields) },
        },
        { role: "tool", tool: "write", args: args.fields, text: "done" },
      ],
    });
    expect(trajectory.ok, JSON.stringify(trajectory.diagnostics)).toBe(true);
    const log = readFileSync(vault.paths.events, "utf8");
    const pageText = readFileSync(join(vault.paths.dir, trajectory.path ?? ""), "utf8");
    for (const value of [...detail.secrets, ...args.secrets]) {
      expect(log.includes(value) || log.includes(JSON.stringify(value).slice(1, -1)), NOTE).toBe(
        false,
      );
      expect(pageText.includes(value), NOTE).toBe(false);
    }
    // The log is still one JSON object a line, the detail's keys kept.
    const event = events(vault.paths.dir).find((e) => e.kind === "deploy_failed");
    expect(Object.keys(event?.detail ?? {})).toEqual([...Object.keys(detail.fields), "env"]);
  });

  it("observe, retro and log-event redact their text, lists and details and count it", async () => {
    const vault = makeTempVault();
    const wiki = service(vault.root);
    const lists = ONE_LINE.slice(0, 50).map((c) => c.text);
    const [t1, t2] = sample(ONE_LINE, 2);
    const observed = wiki.observe({
      title: t1?.text ?? "",
      content: ALL_TEXT,
      tags: lists,
      sources: lists,
    });
    expect(observed.ok, JSON.stringify(observed.diagnostics)).toBe(true);
    expect(total(observed.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    expect(loggedRedactions(vault.paths.dir, "observation_recorded")).toBe(
      total(observed.redactions),
    );

    const retro = wiki.retro({
      title: t2?.text ?? "",
      context: ALL_TEXT,
      lessons: lists,
      went_well: lists,
      went_badly: lists,
      tags: lists,
    });
    expect(retro.ok, JSON.stringify(retro.diagnostics)).toBe(true);
    expect(total(retro.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);

    let logged = 0;
    for (const chunk of detailChunks(CORPUS)) {
      const result = wiki.logEvent({
        kind: "credentials_seen",
        detail: { notes: chunk, first: chunk[0] },
      });
      expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
      expect(total(result.redactions), NOTE).toBeGreaterThanOrEqual(chunk.length);
      expect(redactedLine(result.redactions)).toMatch(/^redacted \d+ secret\(s\) before writing: /);
      logged += total(result.redactions);
    }
    expect(loggedRedactions(vault.paths.dir, "credentials_seen")).toBe(logged);
    // A password is a secret only next to its key: a detail field named so.
    const password = randomPassword();
    const keyed = wiki.logEvent({ kind: "login_tried", detail: { [passwordKey()]: password } });
    expect(total(keyed.redactions), `a detail's password; ${NOTE}`).toBe(1);
    expect(readFileSync(vault.paths.events, "utf8")).not.toContain(password);

    await wiki.reindex();
    expectClean(vault.paths.dir);
  });

  it("capture of text, a file and a loopback URL, and the ingest hand-off, write no secret", async () => {
    const vault = makeTempVault();
    const wiki = service(vault.root);
    const text = await wiki.captureSource({ text: ALL_TEXT });
    expect(text.ok, JSON.stringify(text.diagnostics)).toBe(true);
    expect(total(text.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);

    const named = fileNameSecret();
    const file = join(vault.root, `notes-${named.secret}.md`);
    // Other content than the pasted text: the same would be that capture again (deduplicated).
    writeFileSync(file, `${ALL_TEXT}\nFrom a file.\n`);
    const fromFile = await wiki.captureSource({ file });
    expect(fromFile.ok, JSON.stringify(fromFile.diagnostics)).toBe(true);
    expect(fromFile.manifest?.title).not.toContain(named.secret);

    const fromUrl = await wiki.captureSource({ url: await secretUrl() });
    expect(fromUrl.ok, JSON.stringify(fromUrl.diagnostics)).toBe(true);
    expect(total(fromUrl.redactions), NOTE).toBeGreaterThan(CORPUS.length);
    const captured = events(vault.paths.dir).filter((e) => e.kind === "source_captured");
    // A capture of content already captured (the page's <pre> may extract to
    // the pasted text) stores and logs nothing: one event per packet.
    const stored = [text, fromFile, fromUrl].filter((r) => r.deduplicated !== true);
    expect(captured.map((e) => e.redactions)).toEqual(stored.map((r) => r.redactions));

    // A packet placed by hand (not redacted: authoritative, exempt from the
    // scan) is handed to the agent redacted; what the agent writes from it is
    // redacted again, and marking it ingested logs no secret.
    const packet = "raw/sources/SRC-2026-11-30-900/source.md";
    mkdirSync(join(vault.paths.dir, "raw/sources/SRC-2026-11-30-900"), { recursive: true });
    writeFileSync(join(vault.paths.dir, packet), ALL_TEXT);
    vault.writePage(
      "sources/hand-packet",
      pageText(
        {
          type: "source",
          title: "Hand packet",
          status: "skeleton",
          source_id: "SRC-2026-11-30-900",
        },
        "# Hand packet\n\n## Summary\n\n_Skeleton._\n",
      ),
    );
    const step = wiki.ingest({ source: "SRC-2026-11-30-900" });
    expect(step.ok, JSON.stringify(step.diagnostics)).toBe(true);
    const handed = step.part?.text ?? "";
    for (const c of CORPUS) expect(handed.includes(c.secret), `${c.kind}; ${NOTE}`).toBe(false);
    const written = wiki.ensurePage({
      type: "synthesis",
      title: "What the hand packet says",
      content: `${handed}\n\nThe agent also pasted:\n\n${ALL_TEXT}`,
      sources: ["SRC-2026-11-30-900"],
    });
    expect(total(written.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    expect(wiki.ingest({ source: "SRC-2026-11-30-900", markIngested: true }).ok).toBe(true);

    await wiki.reindex();
    expectClean(vault.paths.dir, new Set([packet]));
  });

  it("a page written by hand stays as written, is indexed and recalled redacted, and lint names each line", async () => {
    const vault = makeTempVault();
    const marker = `zebraharbour${randomInt(1e6)}`;
    const body = `# Deploy notes ${marker}\n\n${ALL_TEXT}\n`;
    const text = pageText({ type: "concept", title: `Deploy notes ${marker}` }, body);
    vault.writePage("concepts/deploy-notes", text);
    const wiki = service(vault.root);
    const report = await wiki.reindex();
    expect(report.ok).toBe(true);
    expectClean(vault.paths.dir, new Set(["wiki/concepts/deploy-notes.md"]));
    // The page itself is authoritative: left exactly as written.
    expect(vault.readPage("concepts/deploy-notes")).toBe(text);

    const recalled = await wiki.recall({ query: marker });
    expect(recalled.results.map((r) => r.id)).toContain("concepts/deploy-notes");
    const shown = JSON.stringify(recalled);
    for (const c of CORPUS) expect(shown.includes(c.secret), `${c.kind}; ${NOTE}`).toBe(false);

    const lint = await wiki.lint();
    expect(lint.ok).toBe(false);
    const findings = lint.vaults[0]?.findings.filter((f) => f.code === "secret_in_page") ?? [];
    const lines = text.split("\n");
    for (const c of CORPUS) {
      const first = (c.pieces?.[0] ?? c.secret).split("\n")[0] ?? c.secret;
      const line = lines.findIndex((l) => l.includes(first)) + 1;
      expect(
        findings.some((f) => f.line !== undefined && f.line <= line && line - f.line < 40),
        `${c.kind} on line ${line}; ${NOTE}`,
      ).toBe(true);
    }
    for (const f of findings) {
      expect(f).toMatchObject({ severity: "error", path: "wiki/concepts/deploy-notes.md" });
      for (const c of CORPUS) expect(f.message.includes(c.secret)).toBe(false);
    }
  });
});

describe("secrets in a hand-written page's front matter", () => {
  it("reach neither the registry cache nor a search or recall result", async () => {
    const vault = makeTempVault();
    const marker = `quayside${randomInt(1e6)}`;
    const cases = sample(ONE_LINE, 12);
    const [title, description, ...rest] = cases;
    const yaml = (v: string) => JSON.stringify(v);
    const text = [
      "---",
      "type: concept",
      `title: ${yaml(`${marker} ${title?.text ?? ""}`)}`,
      `description: ${yaml(description?.text ?? "")}`,
      `aliases: [${rest
        .slice(0, 5)
        .map((c) => yaml(c.text))
        .join(", ")}]`,
      `tags: [${rest
        .slice(5)
        .map((c) => yaml(c.text))
        .join(", ")}]`,
      "---",
      `Notes about ${marker}.`,
      "",
    ].join("\n");
    vault.writePage("concepts/hand-written", text);
    const wiki = service(vault.root);
    expect((await wiki.reindex()).ok).toBe(true);
    // Every derived file, the registry cache included: only the page itself holds them.
    expectClean(vault.paths.dir, new Set(["wiki/concepts/hand-written.md"]));
    const found = JSON.stringify(wiki.search({ query: marker }));
    const recalled = JSON.stringify(await wiki.recall({ query: marker }));
    expect(found).toContain("concepts/hand-written");
    for (const c of cases) {
      expect(found.includes(c.secret), `${c.kind} in search; ${NOTE}`).toBe(false);
      expect(recalled.includes(c.secret), `${c.kind} in recall; ${NOTE}`).toBe(false);
    }
    expect(vault.readPage("concepts/hand-written")).toBe(text);
  });
});

describe("a page edited by hand to hold a secret", () => {
  it("is mirrored redacted after an incremental reindex, and clean again once the secret is gone", async () => {
    const vault = makeTempVault();
    const marker = `wharfside${randomInt(1e6)}`;
    const clean = pageText(
      { type: "concept", title: `Runbook ${marker}` },
      `Steps for ${marker}.\n`,
    );
    vault.writePage("concepts/runbook", clean);
    const wiki = service(vault.root);
    expect((await wiki.reindex()).ok).toBe(true);
    const cases = sample(CORPUS, 8);
    const dirty = pageText(
      { type: "concept", title: `Runbook ${marker}` },
      `Steps for ${marker}.\n\n${cases.map((c) => c.text).join("\n\n")}\n`,
    );
    vault.writePage("concepts/runbook", dirty);
    expect((await wiki.reindex({ paths: [vault.pageFile("concepts/runbook")] })).ok).toBe(true);
    const leaks = leaksUnder(vault.paths.dir, cases, new Set(["wiki/concepts/runbook.md"]));
    expect(leaks, NOTE).toEqual([]);
    const recalled = JSON.stringify(await wiki.recall({ query: marker }));
    expect(recalled).toContain("concepts/runbook");
    for (const c of cases) expect(recalled.includes(c.secret), `${c.kind}; ${NOTE}`).toBe(false);
  });
});

describe("a page edited by hand after it was indexed", () => {
  it("shows its new secret redacted in recall even before any reindex", async () => {
    const vault = makeTempVault();
    const marker = `quaywall${randomInt(1e6)}`;
    const title = `Skill ${marker}`;
    vault.writePage("skills/deploy", pageText({ type: "skill", title }, `Run ${marker}.\n`));
    const wiki = service(vault.root);
    expect((await wiki.reindex()).ok).toBe(true);
    // Warm the registry, then change the file behind its back.
    await wiki.recall({ query: marker, refreshIndex: false });
    const cases = sample(ONE_LINE, 6);
    vault.writePage(
      "skills/deploy",
      pageText(
        { type: "skill", title },
        `Run ${marker}.\n\n${cases.map((c) => c.text).join("\n")}\n`,
      ),
    );
    const recalled = await wiki.recall({ query: marker, refreshIndex: false });
    expect(recalled.results.map((r) => r.id)).toContain("skills/deploy");
    // Skills are rendered with their whole body: the freshest text there is.
    const shown = `${JSON.stringify(recalled.results)}${recalled.rendered}`;
    for (const c of cases) expect(shown.includes(c.secret), `${c.kind}; ${NOTE}`).toBe(false);
  });
});

describe("secrets in a vault's own settings", () => {
  it("bootstrap redacts a name and topic before writing the config and its event", () => {
    const root = makeTempDir("llm-wiki-secrets-init-");
    const [name, topic] = sample(ONE_LINE, 2);
    const made = service(root).bootstrap({
      root,
      name: name?.text ?? "",
      topic: topic?.text ?? "",
    });
    expect(made.created).toBe(true);
    expect(readFileSync(made.vault.config, "utf8")).toContain("[REDACTED:");
    expectClean(made.vault.dir);
  });
});

describe("secrets through every host", () => {
  it("the CLI (page, observe, retro, log-event, capture --text and --url) writes no secret", {
    timeout: HOST_GUARD_MS,
  }, async () => {
    const vault = makeTempVault();
    const env = isolatedEnv();
    const cli = async (args: string[], input?: string) => {
      const run = await runCliAsync([...args, "--json"], {
        cwd: vault.root,
        env,
        ...(input !== undefined ? { input } : {}),
      });
      expect(run.status, `${args[0]}: ${run.stderr}`).toBe(0);
      return JSON.parse(run.stdout) as { ok: boolean; redactions?: Counts };
    };
    const few = sample(ONE_LINE, 6);
    const tags = few.flatMap((c) => ["--tag", c.text]);
    const [t1, t2, t3] = few;
    const page = await cli(
      [
        "page",
        "--type",
        "concept",
        "--title",
        t1?.text ?? "",
        "--content",
        "-",
        "--description",
        t2?.text ?? "",
        ...tags,
        ...few.flatMap((c) => ["--alias", c.text]),
      ],
      ALL_TEXT,
    );
    expect(total(page.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    const observed = await cli(
      ["observe", "--title", t2?.text ?? "", "--content", "-", ...tags],
      ALL_TEXT,
    );
    expect(total(observed.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    const retro = await cli(
      [
        "retro",
        "--title",
        t3?.text ?? "",
        "--context",
        "-",
        ...few.flatMap((c) => ["--lesson", c.text]),
      ],
      ALL_TEXT,
    );
    expect(total(retro.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    // One process per command is costly: one event carries a random share of the corpus.
    const [chunk = []] = detailChunks(sample(CORPUS, CORPUS.length));
    const logged = await cli([
      "log-event",
      "credentials_seen",
      "--detail",
      JSON.stringify({ notes: chunk }),
    ]);
    expect(total(logged.redactions), NOTE).toBeGreaterThanOrEqual(chunk.length);
    const text = await cli(["capture", "--text", "-"], ALL_TEXT);
    expect(total(text.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    const url = await cli(["capture", "--url", await secretUrl()]);
    expect(total(url.redactions), NOTE).toBeGreaterThan(CORPUS.length);
    await cli(["reindex"]);
    expectClean(vault.paths.dir);
  });

  it("the MCP server (ensure page, observe, retro, log event, capture, reindex) writes no secret", {
    timeout: HOST_GUARD_MS,
  }, async () => {
    const vault = makeTempVault();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", vault.root],
      env: isolatedEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-secrets-test", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const [first] = result.content;
      expect(result.isError, `${name}: ${first?.type === "text" ? first.text : ""}`).not.toBe(true);
      return {
        text: first?.type === "text" ? first.text : "",
        result: result.structuredContent as { redactions?: Counts },
      };
    };
    const few = sample(ONE_LINE, 6);
    const [t1, t2, t3] = few;
    const page = await call("wiki_ensure_page", {
      type: "concept",
      title: t1?.text,
      content: ALL_TEXT,
      description: t2?.text,
      tags: few.map((c) => c.text),
      aliases: few.map((c) => c.text),
    });
    expect(total(page.result.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    expect(page.text).toMatch(/redacted \d+ secret\(s\) before writing: /);
    const observed = await call("wiki_observe", {
      title: t2?.text,
      content: ALL_TEXT,
      tags: few.map((c) => c.text),
    });
    expect(total(observed.result.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    const retro = await call("wiki_retro", {
      title: t3?.text,
      context: ALL_TEXT,
      lessons: few.map((c) => c.text),
    });
    expect(total(retro.result.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    for (const chunk of detailChunks(CORPUS)) {
      const logged = await call("wiki_log_event", {
        kind: "credentials_seen",
        detail: { notes: chunk },
      });
      expect(total(logged.result.redactions), NOTE).toBeGreaterThanOrEqual(chunk.length);
    }
    const text = await call("wiki_capture_source", { text: ALL_TEXT });
    expect(total(text.result.redactions), NOTE).toBeGreaterThanOrEqual(CORPUS.length);
    const url = await call("wiki_capture_source", { url: await secretUrl() });
    expect(total(url.result.redactions), NOTE).toBeGreaterThan(CORPUS.length);
    await call("wiki_reindex", {});
    await client.close();
    expectClean(vault.paths.dir);
  });

  it("a Pi session's tools (ensure page, observe, retro, log event, capture) write no secret", {
    timeout: HOST_GUARD_MS,
  }, async () => {
    const vault = makeTempVault();
    const env = isolatedEnv();
    const scratch = makeTempDir("llm-wiki-secrets-pi-");
    const agentDir = join(scratch, "agent");
    mkdirSync(agentDir);
    vi.stubEnv("HOME", env.HOME);
    vi.stubEnv("WIKI_HOME", env.WIKI_HOME);
    vi.stubEnv("PI_CODING_AGENT_DIR", agentDir);
    const pi = await startPi({ root: scratch, agentDir, project: vault.root });
    sessions.push(pi);
    const few = sample(ONE_LINE, 6);
    const [t1, t2, t3] = few;
    const calls = [
      fauxToolCall("wiki_ensure_page", {
        type: "concept",
        title: t1?.text ?? "",
        content: ALL_TEXT,
        tags: few.map((c) => c.text),
        aliases: few.map((c) => c.text),
      }),
      fauxToolCall("wiki_observe", { title: t2?.text ?? "", content: ALL_TEXT }),
      fauxToolCall("wiki_retro", {
        title: t3?.text ?? "",
        context: ALL_TEXT,
        lessons: few.map((c) => c.text),
      }),
      ...detailChunks(CORPUS).map((chunk) =>
        fauxToolCall("wiki_log_event", { kind: "credentials_seen", detail: { notes: chunk } }),
      ),
      fauxToolCall("wiki_capture_source", { text: ALL_TEXT }),
    ];
    pi.script(...calls.map((c) => [c]), "done");
    await pi.session.prompt("remember these credentials");
    const results = toolResults(pi.session);
    expect(results).toHaveLength(calls.length);
    for (const r of results) {
      expect(r.isError, textOf(r)).toBe(false);
      expect(
        total((r.details as { redactions?: Counts }).redactions),
        `${textOf(r)}; ${NOTE}`,
      ).toBeGreaterThan(0);
      expect(textOf(r)).toMatch(/redacted \d+ secret\(s\)/);
    }
    await pi.close();
    sessions.splice(0);
    expect(pi.errors).toEqual([]);
    // Whatever the session's background indexing did, a full index now.
    await service(vault.root).reindex();
    expectClean(vault.paths.dir);
  });
});
