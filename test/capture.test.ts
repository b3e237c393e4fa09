import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import matter from "gray-matter";
import { afterEach, describe, expect, it } from "vitest";
import { captureSource } from "../extensions/llm-wiki/lib/capture/capture-source.ts";
import { type SourceManifest, writePacket } from "../extensions/llm-wiki/lib/capture/packet.ts";
import { allocateSourceId } from "../extensions/llm-wiki/lib/capture/source-id.ts";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { DEFAULT_SETTINGS, type WikiSettings } from "../extensions/llm-wiki/lib/settings.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { runCli } from "./helpers/cli.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import {
  makeTempDir,
  makeTempVault,
  readEvents,
  removeTempDirs,
  snapshotFiles,
  type TempVault,
} from "./helpers/temp-vault.ts";

const REPO = join(import.meta.dirname, "..");
const CAPTURE_MODULE = join(REPO, "extensions", "llm-wiki", "lib", "capture", "capture-source.ts");
const SOURCE_ID_MODULE = join(REPO, "extensions", "llm-wiki", "lib", "capture", "source-id.ts");
const PATHS_MODULE = join(REPO, "extensions", "llm-wiki", "lib", "vault", "paths.ts");

const servers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await closeServices();
  await Promise.all(servers.splice(0).map((close) => close()));
  removeTempDirs();
});

interface Project {
  vault: TempVault;
  home: string;
  service: WikiService;
}

/**
 * The test servers listen on loopback, which captures refuse by default: they
 * are allowed as a user allows an internal server (see capture-ssrf.test.ts).
 */
const LOOPBACK_ALLOWED: WikiSettings = { ...DEFAULT_SETTINGS, captureAllowHosts: ["127.0.0.1"] };

/** A project vault, a separate empty home folder, and a service working in the project. */
function project(): Project {
  const vault = makeTempVault();
  const home = makeTempDir("llm-wiki-home-");
  const settings = LOOPBACK_ALLOWED;
  return { vault, home, service: serviceFor(vault.root, { home, discover: true, settings }) };
}

type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A local HTTP server on 127.0.0.1 answering `routes` by path; closed after each test. */
async function serve(routes: Record<string, Route>): Promise<string> {
  const server = createServer((req, res) => {
    const route = routes[new URL(req.url ?? "/", "http://x").pathname];
    if (route) route(req, res);
    else res.writeHead(404).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function packetDir(vault: TempVault, id: string): string {
  return join(vault.paths.raw, "sources", id);
}

function manifestOf(vault: TempVault, id: string): SourceManifest {
  return JSON.parse(readFileSync(join(packetDir(vault, id), "manifest.json"), "utf8"));
}

function packetFile(vault: TempVault, id: string, name: string): string {
  return readFileSync(join(packetDir(vault, id), name), "utf8");
}

function packets(vault: TempVault): string[] {
  const dir = join(vault.paths.raw, "sources");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** Every file of the vault, as text, for "is this string anywhere on disk" checks. */
function vaultText(vault: TempVault): string {
  return [...snapshotFiles(vault.paths.dir).entries()]
    .map(([path, bytes]) => `${path}\n${bytes.toString("utf8")}`)
    .join("\n");
}

/** The vault wrote nothing at all: no packet, no page, no event. */
function expectNothingWritten(vault: TempVault): void {
  expect(packets(vault)).toEqual([]);
  expect(existsSync(join(vault.paths.wiki, "sources"))).toBe(false);
  expect(readEvents(vault.paths)).toEqual([]);
}

const ID = /^SRC-\d{4}-\d{2}-\d{2}-\d{3,}$/;

describe("capture: pasted text", () => {
  it("writes a packet (manifest, source.md), a skeleton source page and a source_captured event", async () => {
    const { vault, service } = project();
    const text = "# Retrieval notes\n\nBM25 ranks by term frequency.\nVectors rank by meaning.\n";
    const result = await service.captureSource({ text, title: "Retrieval notes" });

    expect(result.ok).toBe(true);
    expect(result.diagnostics).toEqual([]);
    const id = result.id ?? "";
    expect(id).toMatch(ID);
    expect(id.endsWith("-001")).toBe(true);
    expect(result.packet).toBe(`raw/sources/${id}`);
    expect(result.page).toBe("sources/retrieval-notes");
    expect(result.redactions).toEqual({});
    expect(packets(vault)).toEqual([id]);
    expect(readdirSync(packetDir(vault, id)).sort()).toEqual(["manifest.json", "source.md"]);
    expect(packetFile(vault, id, "source.md")).toBe(text);

    const manifest = manifestOf(vault, id);
    expect(manifest).toMatchObject({
      id,
      kind: "text",
      origin: null,
      title: "Retrieval notes",
      format: "markdown",
      mime: "text/markdown",
      extractor: "passthrough",
      files: { source: "source.md" },
      sizes: { input: Buffer.byteLength(text), source: Buffer.byteLength(text) },
      hashes: { source: sha256(text) },
      redactions: {},
    });
    expect(new Date(manifest.capturedAt).toISOString()).toBe(manifest.capturedAt);
    expect(id.slice(4, 14)).toBe(manifest.captured);
    expect(manifest.capturedAt.slice(0, 10)).toBe(manifest.captured);

    const page = matter(vault.readPage("sources/retrieval-notes"));
    expect(page.data).toMatchObject({
      type: "source",
      title: "Retrieval notes",
      status: "skeleton",
      sources: [`raw/sources/${id}`],
      source_id: id,
      raw_path: `raw/sources/${id}/source.md`,
      aliases: [id],
    });
    expect(page.content).toContain("> BM25 ranks by term frequency.\n> Vectors rank by meaning.");

    const logged = readEvents(vault.paths);
    expect(logged.map((e) => e.kind)).toEqual(["page_created", "source_captured"]);
    expect(logged[1]).toMatchObject({
      id,
      source_kind: "text",
      packet: `raw/sources/${id}`,
      page: "sources/retrieval-notes",
    });
    // Counts by kind are logged only when a secret was taken out.
    expect(logged[1]).not.toHaveProperty("redactions");
  });

  it("titles untitled text by its first line and gives a second capture of a title its own page", async () => {
    const { vault, service } = project();
    const first = await service.captureSource({ text: "\n## Meeting notes\nWe chose BM25.\n" });
    const second = await service.captureSource({ text: "Meeting notes\nWe revisited it." });
    expect(first.ok && second.ok).toBe(true);
    expect(manifestOf(vault, first.id ?? "").title).toBe("Meeting notes");
    expect(first.page).toBe("sources/meeting-notes");
    expect(second.page).toBe(`sources/meeting-notes-${(second.id ?? "").toLowerCase()}`);
    expect(matter(vault.readPage(second.page ?? "")).data.sources).toEqual([
      `raw/sources/${second.id}`,
    ]);
    // The first page still points at the first packet.
    expect(matter(vault.readPage("sources/meeting-notes")).data.source_id).toBe(first.id);
  });

  it("refuses no input, two inputs, text over 1 MB and a missing vault, writing nothing", async () => {
    const { vault, service } = project();
    const none = await service.captureSource({ title: "nothing" });
    const two = await service.captureSource({ text: "a", url: "https://example.com/" });
    const big = await service.captureSource({ text: "x".repeat(1024 * 1024 + 1) });
    expect(none.diagnostics.map((d) => d.code)).toEqual(["capture_invalid_input"]);
    expect(two.diagnostics.map((d) => d.code)).toEqual(["capture_invalid_input"]);
    expect(big.diagnostics.map((d) => d.code)).toEqual(["capture_too_large"]);
    expect([none.ok, two.ok, big.ok]).toEqual([false, false, false]);
    expectNothingWritten(vault);

    const elsewhere = serviceFor(makeTempDir(), { discover: true });
    const missing = await elsewhere.captureSource({ text: "hello" });
    expect(missing.ok).toBe(false);
    expect(missing.diagnostics.map((d) => d.code)).toEqual(["vault_not_found"]);
  });
});

describe("capture: files", () => {
  it("captures a Markdown file: original kept byte for byte, origin is its real path", async () => {
    const { vault, service } = project();
    const text = "# Design\n\nThe index is rebuilt on demand.\n";
    const file = join(vault.root, "docs", "design.md");
    mkdirSync(join(vault.root, "docs"));
    writeFileSync(file, text);

    const result = await service.captureSource({ file: "docs/design.md" });
    expect(result.ok).toBe(true);
    const id = result.id ?? "";
    expect(readdirSync(packetDir(vault, id)).sort()).toEqual([
      "manifest.json",
      "original.md",
      "source.md",
    ]);
    expect(packetFile(vault, id, "original.md")).toBe(text);
    expect(packetFile(vault, id, "source.md")).toBe(text);
    expect(manifestOf(vault, id)).toMatchObject({
      kind: "file",
      origin: file,
      file_path: file,
      title: "Design",
      format: "markdown",
      files: { source: "source.md", original: "original.md" },
      hashes: { source: sha256(text), original: sha256(text) },
    });
    expect(result.page).toBe("sources/design");
  });

  it("converts an HTML file and a JSON file to Markdown", async () => {
    const { vault, service } = project();
    writeFileSync(
      join(vault.root, "page.html"),
      "<html><head><title>Caching</title></head><body><h2>Why</h2><p>It is <em>fast</em>.</p></body></html>",
    );
    writeFileSync(join(vault.root, "data.json"), '{"a": 1, "b": [true, null]}\n');

    const html = await service.captureSource({ file: "page.html" });
    expect(html.ok).toBe(true);
    expect(packetFile(vault, html.id ?? "", "source.md")).toBe("## Why\n\nIt is _fast_.\n");
    expect(manifestOf(vault, html.id ?? "")).toMatchObject({
      title: "Caching",
      format: "html",
      mime: "text/html",
      extractor: "node-html-markdown",
      files: { original: "original.html" },
    });

    const json = await service.captureSource({ file: join(vault.root, "data.json") });
    expect(json.ok).toBe(true);
    expect(packetFile(vault, json.id ?? "", "source.md")).toBe(
      "## a\n\n1\n\n## b\n\n- true\n- null\n",
    );
    expect(manifestOf(vault, json.id ?? "")).toMatchObject({
      title: "data.json",
      format: "json",
      extractor: "json-markdown",
    });
  });

  it("refuses a symlink that leads out of the allowed roots, unless the caller allows that root", async () => {
    const { vault, service } = project();
    const outside = makeTempDir("llm-wiki-outside-");
    writeFileSync(join(outside, "notes.txt"), "private notes\n");
    symlinkSync(join(outside, "notes.txt"), join(vault.root, "link.txt"));

    const refused = await service.captureSource({ file: "link.txt" });
    expect(refused.ok).toBe(false);
    expect(refused.diagnostics.map((d) => d.code)).toEqual(["capture_path_outside"]);
    expect(refused.diagnostics[0]?.message).toContain(`a link to ${join(outside, "notes.txt")}`);
    const direct = await service.captureSource({ file: join(outside, "notes.txt") });
    expect(direct.diagnostics.map((d) => d.code)).toEqual(["capture_path_outside"]);
    expectNothingWritten(vault);

    const allowed = await service.captureSource({ file: "link.txt", allowedRoots: [outside] });
    expect(allowed.ok).toBe(true);
    expect(packetFile(vault, allowed.id ?? "", "source.md")).toBe("private notes\n");
  });

  it("accepts files under the home folder", async () => {
    const { vault, home, service } = project();
    writeFileSync(join(home, "todo.txt"), "buy milk\n");
    const result = await service.captureSource({ file: join(home, "todo.txt") });
    expect(result.ok).toBe(true);
    expect(manifestOf(vault, result.id ?? "")).toMatchObject({
      format: "text",
      mime: "text/plain",
    });
    expect(packetFile(vault, result.id ?? "", "original.txt")).toBe("buy milk\n");
  });

  it("refuses binary, missing, non-regular and oversized files with a diagnostic each", async () => {
    const { vault, service } = project();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    writeFileSync(join(vault.root, "image.png"), png);
    writeFileSync(join(vault.root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    mkdirSync(join(vault.root, "folder"));
    writeFileSync(join(vault.root, "big.txt"), Buffer.alloc(5 * 1024 * 1024 + 1, "a"));

    const codes = async (file: string) =>
      (await service.captureSource({ file })).diagnostics.map((d) => d.code);
    expect(await codes("image.png")).toEqual(["capture_binary"]);
    expect(await codes("latin1.txt")).toEqual(["capture_binary"]);
    expect(await codes("nope.md")).toEqual(["capture_not_found"]);
    expect(await codes("folder")).toEqual(["capture_not_a_file"]);
    expect(await codes("big.txt")).toEqual(["capture_too_large"]);
    expectNothingWritten(vault);
  });

  it("refuses a file whose extracted text is over 1 MB though the original is under 5 MB", async () => {
    const { vault, service } = project();
    writeFileSync(join(vault.root, "long.md"), `${"word ".repeat(250_000)}\n`);
    const result = await service.captureSource({ file: "long.md" });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["capture_too_large"]);
    expect(result.diagnostics[0]?.message).toContain("extracted text");
    expectNothingWritten(vault);
  });
});

const ARTICLE = `<!doctype html>
<html><head><title>Hybrid search &amp; you</title><style>body { color: red }</style>
<script>var tracking = "do-not-capture";</script></head>
<body><nav><a href="/">Home</a> | <a href="/blog">Blog</a></nav>
<h1>Hybrid search</h1>
<p>Combine <strong>BM25</strong> with <a href="https://example.com/vectors">vectors</a>.</p>
<ul><li>fast</li><li>robust</li></ul>
</body></html>`;

describe("capture: URLs", () => {
  it("fetches an HTML page from a local server and stores it as Markdown", async () => {
    const { vault, service } = project();
    const base = await serve({
      "/article": (_req, res) =>
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ARTICLE),
    });
    const result = await service.captureSource({ url: `${base}/article` });
    expect(result.ok).toBe(true);
    const id = result.id ?? "";
    const markdown = packetFile(vault, id, "source.md");
    expect(markdown).toBe(
      "# Hybrid search\n\nCombine **BM25** with [vectors](https://example.com/vectors).\n\n* fast\n* robust\n",
    );
    expect(packetFile(vault, id, "original.html")).toBe(ARTICLE);
    expect(manifestOf(vault, id)).toMatchObject({
      kind: "url",
      origin: `${base}/article`,
      url: `${base}/article`,
      title: "Hybrid search & you",
      format: "html",
      mime: "text/html",
      extractor: "node-html-markdown",
      sizes: { input: Buffer.byteLength(ARTICLE) },
    });
    expect(manifestOf(vault, id).final_url).toBeUndefined();
    const page = matter(vault.readPage(result.page ?? ""));
    expect(page.data).toMatchObject({ title: "Hybrid search & you", url: `${base}/article` });
    expect(page.content).toContain("> # Hybrid search");
  });

  it("follows a few redirects, records where it landed, and stops at a loop", async () => {
    const { vault, service } = project();
    const base = await serve({
      "/old": (_req, res) => res.writeHead(301, { location: "/article" }).end(),
      "/article": (_req, res) =>
        res.writeHead(200, { "content-type": "text/markdown" }).end("# Moved\n\nHere now.\n"),
      "/loop": (_req, res) => res.writeHead(302, { location: "/loop" }).end(),
      "/to-file": (_req, res) => res.writeHead(302, { location: "file:///etc/passwd" }).end(),
    });
    const moved = await service.captureSource({ url: `${base}/old` });
    expect(moved.ok).toBe(true);
    expect(manifestOf(vault, moved.id ?? "")).toMatchObject({
      origin: `${base}/old`,
      final_url: `${base}/article`,
      format: "markdown",
      title: "Moved",
    });

    const loop = await service.captureSource({ url: `${base}/loop` });
    expect(loop.diagnostics.map((d) => d.code)).toEqual(["capture_redirects"]);
    const toFile = await service.captureSource({ url: `${base}/to-file` });
    expect(toFile.diagnostics.map((d) => d.code)).toEqual(["capture_url_scheme"]);
    expect(packets(vault)).toEqual([moved.id]);
  });

  it("gives up on a server that never answers after the timeout, writing nothing", async () => {
    const { vault, service } = project();
    const base = await serve({ "/slow": () => {} });
    const result = await service.captureSource({ url: `${base}/slow`, timeoutMs: 300 });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["capture_timeout"]);
    expect(result.diagnostics[0]?.message).toContain("300 ms");
    expectNothingWritten(vault);
  });

  it("stops a body that streams past the size cap, declared or not", async () => {
    const { vault } = project();
    const chunk = "a".repeat(16 * 1024);
    const base = await serve({
      // No content-length: the cap must hold while the body streams in.
      "/stream": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        let sent = 0;
        const more = () => {
          while (sent < 64 && res.write(chunk)) sent += 1;
          if (sent < 64) res.once("drain", more);
          else res.end();
        };
        more();
      },
      "/declared": (_req, res) =>
        res
          .writeHead(200, { "content-type": "text/plain", "content-length": String(200_000) })
          .end("a".repeat(200_000)),
    });
    const options = {
      cwd: vault.root,
      home: vault.root,
      // The text cap is out of the way: only the download cap can stop these.
      limits: { maxOriginalBytes: 100_000, maxTextBytes: 10 * 1024 * 1024 },
      network: { allowHosts: LOOPBACK_ALLOWED.captureAllowHosts },
    };
    const streamed = await captureSource(vault.paths, { url: `${base}/stream` }, options);
    const declared = await captureSource(vault.paths, { url: `${base}/declared` }, options);
    expect(streamed.diagnostics.map((d) => d.code)).toEqual(["capture_too_large"]);
    expect(declared.diagnostics.map((d) => d.code)).toEqual(["capture_too_large"]);
    for (const result of [streamed, declared]) {
      expect(result.diagnostics[0]?.message).toContain(
        "larger than the capture limit of 100000 bytes",
      );
    }
    expectNothingWritten(vault);
  });

  it("refuses non-http schemes, credentials, bad URLs, HTTP errors and binary bodies", async () => {
    const { vault, service } = project();
    const base = await serve({
      "/image": (_req, res) =>
        res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50])),
    });
    const codes = async (url: string) =>
      (await service.captureSource({ url })).diagnostics.map((d) => d.code);
    expect(await codes("file:///etc/passwd")).toEqual(["capture_url_scheme"]);
    expect(await codes("ftp://example.com/file.txt")).toEqual(["capture_url_scheme"]);
    expect(await codes("javascript:alert(1)")).toEqual(["capture_url_scheme"]);
    expect(await codes("https://alice:hunter2x@example.com/")).toEqual(["capture_url_credentials"]);
    expect(await codes("not a url")).toEqual(["capture_url_invalid"]);
    expect(await codes(`${base}/missing`)).toEqual(["capture_fetch_failed"]);
    expect(await codes(`${base}/image`)).toEqual(["capture_binary"]);
    expectNothingWritten(vault);
  });
});

// Test fixtures shaped like real secrets (not real credentials).
const SECRETS: Record<string, string[]> = {
  openai_key: ["sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"],
  anthropic_key: ["sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1"],
  github_token: [
    "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "github_pat_11AAAAAAA0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789",
  ],
  aws_access_key: ["AKIAQ3EXAMPLE7TEST42"],
  slack_token: ["xoxb-1234567890-0987654321-AbCdEfGhIjKl"],
  google_api_key: ["AIzaSyD4-abcdefghijklmnopqrstuvwxyz1234"],
  jwt: [
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2lnbmF0dXJlLWJ5dGVzLTEyMzQ",
  ],
  bearer_token: ["t0k3n-Abc123Def456Ghi789"],
  basic_auth: ["YWxpY2U6czNjcjN0UGFzcw=="],
  private_key: ["MIIEpAIBAAKCAQEA7vKp9Q2hZx1mT4sR8yLwJc3nB6dF0gH5jK2lM9pN4qS7uV1xY3zA"],
  url_password: ["Pa55w0rd-Correct-Horse"],
  secret_assignment: ["9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c", "Hunter2!secret"],
};

const SECRET_TEXT = `# Deployment notes

OpenAI: ${SECRETS.openai_key?.[0]} and Claude: ${SECRETS.anthropic_key?.[0]}
GitHub: ${SECRETS.github_token?.[0]} (fine-grained: ${SECRETS.github_token?.[1]})
AWS key id ${SECRETS.aws_access_key?.[0]}; Slack ${SECRETS.slack_token?.[0]}
Maps: ${SECRETS.google_api_key?.[0]}
Session: ${SECRETS.jwt?.[0]}
curl -H "Authorization: Bearer ${SECRETS.bearer_token?.[0]}" https://api.example.com
Proxy header: "Authorization: Basic ${SECRETS.basic_auth?.[0]}"
Mirror: https://deploy:${SECRETS.url_password?.[0]}@git.example.com/app.git

-----BEGIN RSA PRIVATE KEY-----
${SECRETS.private_key?.[0]}
-----END RSA PRIVATE KEY-----

api_key = ${SECRETS.secret_assignment?.[0]}
DB_PASSWORD: ${SECRETS.secret_assignment?.[1]}

The rest of the notes stay as written.
`;

const EXPECTED_COUNTS = {
  anthropic_key: 1,
  aws_access_key: 1,
  basic_auth: 1,
  bearer_token: 1,
  github_token: 2,
  google_api_key: 1,
  jwt: 1,
  openai_key: 1,
  private_key: 1,
  secret_assignment: 2,
  slack_token: 1,
  url_password: 1,
};

function expectNoSecretOnDisk(vault: TempVault): void {
  const all = vaultText(vault);
  for (const [kind, values] of Object.entries(SECRETS)) {
    for (const value of values) expect(all.includes(value), `${kind} ${value}`).toBe(false);
  }
}

describe("capture: secret redaction", () => {
  it("redacts every kind of secret in pasted text, counts them in the manifest, and writes none", async () => {
    const { vault, service } = project();
    const result = await service.captureSource({ text: SECRET_TEXT });
    expect(result.ok).toBe(true);
    expect(result.redactions).toEqual(EXPECTED_COUNTS);
    const id = result.id ?? "";
    expect(manifestOf(vault, id).redactions).toEqual(EXPECTED_COUNTS);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["capture_redacted"]);

    const source = packetFile(vault, id, "source.md");
    for (const kind of Object.keys(EXPECTED_COUNTS)) {
      expect(source).toContain(`[REDACTED:${kind}]`);
    }
    expect(source).toContain("Authorization: Bearer [REDACTED:bearer_token]");
    expect(source).toContain("https://deploy:[REDACTED:url_password]@git.example.com/app.git");
    expect(source).toContain("The rest of the notes stay as written.");
    expect(readEvents(vault.paths).find((e) => e.kind === "source_captured")?.redactions).toEqual(
      EXPECTED_COUNTS,
    );
    expectNoSecretOnDisk(vault);
  });

  it("redacts the original of a file and of a URL too, including entity-escaped and query secrets", async () => {
    const { vault, service } = project();
    writeFileSync(join(vault.root, "notes.txt"), SECRET_TEXT);
    const file = await service.captureSource({ file: "notes.txt" });
    expect(file.ok).toBe(true);
    expect(file.redactions).toEqual(EXPECTED_COUNTS);
    expect(packetFile(vault, file.id ?? "", "original.txt")).toBe(
      packetFile(vault, file.id ?? "", "source.md"),
    );

    // `&#65;` hides the key from a scan of the HTML; the Markdown shows it.
    const hidden = "sk-&#65;b3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
    const base = await serve({
      "/page": (_req, res) =>
        res
          .writeHead(200, { "content-type": "text/html" })
          .end(`<html><body><p>key ${hidden}</p></body></html>`),
    });
    const token = "q1w2e3r4t5y6u7i8o9p0asdf";
    const url = await service.captureSource({ url: `${base}/page?access_token=${token}` });
    expect(url.ok).toBe(true);
    expect(url.redactions).toEqual({ openai_key: 1, secret_assignment: 1 });
    expect(manifestOf(vault, url.id ?? "").origin).toBe(
      `${base}/page?access_token=[REDACTED:secret_assignment]`,
    );
    expect(packetFile(vault, url.id ?? "", "source.md")).toBe("key [REDACTED:openai_key]\n");

    const all = vaultText(vault);
    expect(all.includes(token)).toBe(false);
    expect(all.includes("sk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z")).toBe(false);
    expectNoSecretOnDisk(vault);
  });

  it("redacts a secret in the title", async () => {
    const { vault, service } = project();
    const result = await service.captureSource({
      text: "body",
      title: `Rotate ${SECRETS.github_token?.[0]}`,
    });
    expect(result.redactions).toEqual({ github_token: 1 });
    expect(manifestOf(vault, result.id ?? "").title).toBe("Rotate [REDACTED:github_token]");
    expectNoSecretOnDisk(vault);
  });

  it("leaves an ordinary technical paragraph, with words and hashes, exactly as written", async () => {
    const { vault, service } = project();
    const prose = `# Post-mortem

The skeleton task-force reviewed commit 3f2a9c1e4b5d6f708192a3b4c5d6e7f8a9b0c1d2 and the
sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 of the build.
A token: a short-lived credential. Password: required. The bearer of this note uses Basic
English. Settings: max_tokens: 4096, tokenizer: bert-base-uncased-v2-12345, secret_santa = yes.
We use sk-learn-style pipelines, read api_key = process.env.OPENAI_API_KEY and
password = os.environ; see https://example.com/a?b=1&page=2 and ssh://git@github.com/org/repo.
The AKIA prefix and eyJ headers are documented; UUID 123e4567-e89b-12d3-a456-426614174000.
`;
    const result = await service.captureSource({ text: prose });
    expect(result.ok).toBe(true);
    expect(result.redactions).toEqual({});
    expect(result.diagnostics).toEqual([]);
    expect(packetFile(vault, result.id ?? "", "source.md")).toBe(prose);
    expect(manifestOf(vault, result.id ?? "").redactions).toEqual({});
  });
});

interface ChildCapture {
  ok: boolean;
  id: string;
  text: string;
}

/** Captures `perProcess` texts in a row in each of `processes` concurrent child processes. */
async function captureInProcesses(
  root: string,
  processes: number,
  perProcess: number,
): Promise<ChildCapture[]> {
  return inProcesses<ChildCapture>(
    root,
    processes,
    perProcess,
    `
    const result = await captureSource(vault, { text: name + " capture " + i }, { cwd: root, home: root });
    out.push({ ok: result.ok, id: result.id, text: name + " capture " + i });
  `,
  );
}

/**
 * Runs \`processes\` child processes that each run \`step\` \`perProcess\` times
 * (with \`captureSource\`, \`allocateSourceId\`, \`vault\`, \`name\`, \`i\` and \`out\`
 * in scope) and print \`out\` as JSON. Each child loads the code and reports
 * ready first; all are released together, so their work really overlaps.
 */
async function inProcesses<T>(
  root: string,
  processes: number,
  perProcess: number,
  step: string,
): Promise<T[]> {
  const script = `
    const [capture, sourceId, paths, root, name, count] = process.argv.slice(1);
    const { captureSource } = await import(capture);
    const { allocateSourceId } = await import(sourceId);
    const { vaultPaths } = await import(paths);
    process.stdout.write("ready\\n");
    await new Promise((resolve) => process.stdin.once("data", resolve));
    const vault = vaultPaths(root, "project");
    const out = [];
    for (let i = 0; i < Number(count); i += 1) {
      ${step}
    }
    process.stdout.write(JSON.stringify(out));
  `;
  const children = Array.from({ length: processes }, (_, i) =>
    spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        script,
        CAPTURE_MODULE,
        SOURCE_ID_MODULE,
        PATHS_MODULE,
        root,
        `process-${i + 1}`,
        String(perProcess),
      ],
      { env: { PATH: process.env.PATH ?? "", HOME: root }, stdio: ["pipe", "pipe", "pipe"] },
    ),
  );
  let ready = 0;
  const release = () => {
    for (const child of children) child.stdin.end("go\n");
  };
  const runs = children.map(
    (child) =>
      new Promise<T[]>((resolve, reject) => {
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => {
          const before = out;
          out += d.toString();
          if (!before.startsWith("ready\n") && out.startsWith("ready\n")) {
            ready += 1;
            if (ready === children.length) release();
          }
        });
        child.stderr.on("data", (d: Buffer) => {
          err += d.toString();
        });
        child.on("error", reject);
        child.on("close", (code) =>
          code === 0
            ? resolve(JSON.parse(out.slice("ready\n".length)) as T[])
            : reject(new Error(`child exited ${code}: ${err}`)),
        );
      }),
  );
  return (await Promise.all(runs)).flat();
}

describe("capture: exclusive ids", () => {
  it("never reuses or overwrites an existing packet folder", async () => {
    const { vault } = project();
    const now = new Date("2026-03-04T10:00:00Z");
    const taken = join(vault.paths.raw, "sources", "SRC-2026-03-04-001");
    mkdirSync(taken, { recursive: true });
    writeFileSync(join(taken, "manifest.json"), '{"id":"SRC-2026-03-04-001","note":"older"}\n');
    const before = snapshotFiles(taken);

    const options = { cwd: vault.root, home: vault.root, now };
    const first = await captureSource(vault.paths, { text: "first" }, options);
    const second = await captureSource(vault.paths, { text: "second" }, options);
    expect([first.id, second.id]).toEqual(["SRC-2026-03-04-002", "SRC-2026-03-04-003"]);
    expect(snapshotFiles(taken)).toEqual(before);
    expect(packetFile(vault, "SRC-2026-03-04-002", "source.md")).toBe("first\n");

    // A new day starts again at 001.
    const next = await captureSource(
      vault.paths,
      { text: "third" },
      { ...options, now: new Date("2026-03-05T00:00:01Z") },
    );
    expect(next.id).toBe("SRC-2026-03-05-001");
  });

  it("takes back only its own files when a packet cannot be written, leaving what it found", async () => {
    const { vault } = project();
    const now = new Date("2026-03-04T10:00:00Z");
    const options = { cwd: vault.root, home: vault.root, now };
    const { manifest } = await captureSource(vault.paths, { text: "first" }, options);
    if (!manifest) throw new Error("the first capture failed");
    const slot = allocateSourceId(vault.paths, now);
    // Someone else writes into the folder this capture has just claimed.
    writeFileSync(join(slot.dir, "source.md"), "not mine\n");
    const content = {
      source: "mine\n",
      original: { name: "original.html", text: "<p>mine</p>\n" },
    };

    let thrown: unknown;
    try {
      writePacket(slot, content, { ...manifest, id: slot.id });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WikiError);
    expect((thrown as WikiError).diagnostic.code).toBe("capture_packet_exists");
    // Its own original.html is gone; the file it found is as it was.
    expect(readdirSync(slot.dir)).toEqual(["source.md"]);
    expect(readFileSync(join(slot.dir, "source.md"), "utf8")).toBe("not mine\n");
  });

  it.each([2, 5])(
    "gives captures from %i concurrent processes distinct ids, each packet whole",
    async (processes) => {
      const { vault } = project();
      const captures = await captureInProcesses(vault.root, processes, 8);
      const ids = captures.map((c) => c.id);

      expect(captures.every((c) => c.ok)).toBe(true);
      expect(new Set(ids).size).toBe(processes * 8);
      for (const id of ids) expect(id).toMatch(ID);
      expect(packets(vault)).toEqual([...ids].sort());
      for (const { id, text } of captures) {
        expect(packetFile(vault, id, "source.md")).toBe(`${text}\n`);
        expect(manifestOf(vault, id).id).toBe(id);
      }
      const captured = readEvents(vault.paths).filter((e) => e.kind === "source_captured");
      expect(captured.map((e) => e.id).sort()).toEqual([...ids].sort());
    },
  );

  it("hands out distinct ids to processes that allocate as fast as they can", async () => {
    // Nothing but allocation in the loop: the processes contend on every id.
    const { vault } = project();
    const ids = await inProcesses<string>(
      vault.root,
      5,
      60,
      "out.push(allocateSourceId(vault).id);",
    );
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    expect(packets(vault)).toEqual([...ids].sort());
  });
});

describe("llm-wiki capture", () => {
  const run = (cwd: string, args: string[], home: string, input?: string) =>
    runCli(args, { cwd, env: { HOME: home }, input });

  it("captures --text (and --text - from stdin) and prints the packet and page", () => {
    const { vault, home } = project();
    const out = run(
      vault.root,
      ["capture", "--text", "CLI note body", "--title", "CLI note"],
      home,
    );
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(
      /^captured SRC-\d{4}-\d{2}-\d{2}-001 \(\.llm-wiki\/raw\/sources\/SRC-[-\d]+\/\)\npage {5}sources\/cli-note \(skeleton: summarise it\)\n$/,
    );
    const piped = run(vault.root, ["capture", "--text", "-", "--json"], home, "from stdin\n");
    expect(piped.status).toBe(0);
    const result = JSON.parse(piped.stdout) as { ok: boolean; id: string };
    expect(result.ok).toBe(true);
    expect(packetFile(vault, result.id, "source.md")).toBe("from stdin\n");
  });

  it("exits 2 on a usage error and 1 with one readable line on a refused capture", () => {
    const { vault, home } = project();
    const usage = run(vault.root, ["capture", "--text", "a", "--url", "https://x.test/"], home);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("exactly one of --text, --file or --url");

    const refused = run(vault.root, ["capture", "--url", "ftp://example.com/x"], home);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr.trim().split("\n")).toEqual([
      "error: only http and https URLs can be captured, not ftp:",
    ]);
    expect(packets(vault)).toEqual([]);
  });
});
