/**
 * Server-side request forgery: `capture --url` reaches only public addresses
 * unless the user's `captureAllowHosts` names a host or range. Every hop is
 * checked, every address a name resolves to must pass, and the connection
 * goes to the address that was checked (no second lookup to rebind).
 *
 * The servers that "would answer" all listen on loopback addresses chosen at
 * random, and count what reaches them: a refusal must leave them untouched.
 * Internal addresses off this machine (10/8, 169.254.169.254, …) are checked
 * at the address check only, which never opens a socket, so no test can send
 * a packet anywhere but loopback even if the check regressed.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CaptureSourceResult,
  captureSource,
} from "../extensions/llm-wiki/lib/capture/capture-source.ts";
import {
  checkedAddresses,
  type LookupHost,
  type ResolvedAddress,
} from "../extensions/llm-wiki/lib/capture/pinned-request.ts";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { compileAllowList } from "../extensions/llm-wiki/lib/safety/address-policy.ts";
import { DEFAULT_SETTINGS, resolveSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { CLI } from "./helpers/cli.ts";
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
const MCP_SERVER = join(REPO, "mcp", "index.ts");
/** A self-signed certificate for `localhost` only (test use, valid until 2126), and its key. */
const TLS_CERT = join(import.meta.dirname, "fixtures", "tls", "localhost.pem");
const TLS_KEY = join(import.meta.dirname, "fixtures", "tls", "localhost.key");

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await closeServices();
  await Promise.all(cleanups.splice(0).map((close) => close()));
  removeTempDirs();
});

// ---------------------------------------------------------------- random values

function int(below: number): number {
  return Math.floor(Math.random() * below);
}

function pick<T>(values: readonly T[]): T {
  const value = values[int(values.length)];
  if (value === undefined) throw new Error("pick from an empty list");
  return value;
}

function randomCase(text: string): string {
  return [...text].map((c) => (Math.random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join("");
}

/** A random name of letters and digits. */
function label(): string {
  return Array.from({ length: 4 + int(8) }, () =>
    pick([..."abcdefghijklmnopqrstuvwxyz0123456789"]),
  ).join("");
}

/** A random loopback address other than 127.0.0.1, in dotted decimal. */
function randomLoopback(): string {
  return `127.${1 + int(254)}.${int(256)}.${1 + int(254)}`;
}

function octets(address: string): number[] {
  return address.split(".").map(Number);
}

/** One number written in decimal, octal or hex, as WHATWG URL host parsing reads them. */
function spellNumber(n: number): string {
  switch (int(3)) {
    case 0:
      return String(n);
    case 1:
      return `0${"0".repeat(int(3))}${n.toString(8)}`;
    default:
      return `${pick(["0x", "0X"])}${randomCase(n.toString(16))}`;
  }
}

function hex4(n: number): string {
  return randomCase(n.toString(16).padStart(int(2) === 0 ? 1 : 4, "0"));
}

/** A random spelling of an IPv4 address that URL parsing turns back into it. */
function spellIPv4(address: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = octets(address);
  const full = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  switch (int(7)) {
    case 0:
      return spellNumber(full);
    case 1:
      return `${spellNumber(a)}.${spellNumber((b << 16) + (c << 8) + d)}`;
    case 2:
      return `${spellNumber(a)}.${spellNumber(b)}.${spellNumber((c << 8) + d)}`;
    case 3:
      return [a, b, c, d].map(spellNumber).join(".");
    case 4:
      return `[${randomCase(pick(["::ffff:", "0:0:0:0:0:ffff:", "::FFFF:"]))}${address}]`;
    case 5:
      return `[::ffff:${hex4((a << 8) + b)}:${hex4((c << 8) + d)}]`;
    default:
      return `${address}.`; // a trailing dot is the same host
  }
}

/** A random address inside an IPv4 CIDR range, in dotted decimal. */
function inRange(cidr: string): string {
  const [base = "", bits = "32"] = cidr.split("/");
  const [a = 0, b = 0, c = 0, d = 0] = octets(base);
  const start = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  const size = 2 ** (32 - Number(bits));
  const n = start + int(size);
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

// ---------------------------------------------------------------- servers and vaults

interface Listening {
  /** `http://host:port` as a URL names it. */
  base: string;
  port: number;
  /** Requests received so far. */
  hits: number;
  /** The Host header of each request. */
  hosts: string[];
}

/** A server on `host` (and `port`, default any) that answers every path with a small page. */
async function listen(
  host: string,
  body = "# Reached\n\nThe server answered.\n",
  port = 0,
): Promise<Listening> {
  const state: Listening = { base: "", port: 0, hits: 0, hosts: [] };
  const server = createServer((req, res) => {
    state.hits += 1;
    state.hosts.push(hostHeader(req.headers));
    res.writeHead(200, { "content-type": "text/markdown" }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  state.port = (server.address() as AddressInfo).port;
  state.base = `http://${host.includes(":") ? `[${host}]` : host}:${state.port}`;
  return state;
}

function hostHeader(headers: IncomingHttpHeaders): string {
  return headers.host ?? "";
}

/** A redirecting server on `host`: every request is sent on to `target`. */
async function redirector(host: string, target: string): Promise<Listening> {
  const state: Listening = { base: "", port: 0, hits: 0, hosts: [] };
  const server = createServer((req, res) => {
    state.hits += 1;
    state.hosts.push(hostHeader(req.headers));
    res.writeHead(302, { location: target }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  state.port = (server.address() as AddressInfo).port;
  state.base = `http://${host}:${state.port}`;
  return state;
}

/** Two servers on different loopback addresses and the same port (a rebinding pair). */
async function samePortPair(): Promise<[Listening, Listening]> {
  for (;;) {
    const first = await listen(randomLoopback(), "# Checked\n\nFrom the checked address.\n");
    try {
      const second = await listen(
        randomLoopback(),
        "# Rebound\n\nFrom the rebound address.\n",
        first.port,
      );
      return [first, second];
    } catch {
      // That port is taken on the second address; another pair.
    }
  }
}

/** The vault wrote nothing at all: no packet, no page, no event. */
function expectNothingWritten(vault: TempVault): void {
  const files = [...snapshotFiles(vault.paths.dir).keys()];
  expect(files.filter((f) => f.startsWith("raw/") || f.startsWith("wiki/sources/"))).toEqual([]);
  expect(readEvents(vault.paths)).toEqual([]);
}

function expectInternal(result: CaptureSourceResult, host: string, range: string): void {
  expect(result.ok).toBe(false);
  expect(result.diagnostics).toHaveLength(1);
  const [refusal] = result.diagnostics;
  expect(refusal).toMatchObject({ code: "capture_url_internal", severity: "error" });
  expect(refusal?.message).toContain(host);
  expect(refusal?.message).toContain(range);
  expect(refusal?.repair).toContain("captureAllowHosts");
}

/** A resolver that must not be asked (for address literals). */
const noLookup: LookupHost = () => {
  throw new Error("a literal address was looked up");
};

/** A resolver answering each listed name with its addresses, counting the questions. */
function fakeResolver(
  answers: Record<string, () => ResolvedAddress[]>,
): LookupHost & { asked: string[] } {
  const asked: string[] = [];
  const lookup = async (hostname: string) => {
    asked.push(hostname);
    const answer = answers[hostname.toLowerCase()];
    if (!answer)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer();
  };
  return Object.assign(lookup, { asked });
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });

async function refusalOf(
  url: string,
  lookup: LookupHost,
  allow: string[] = [],
): Promise<WikiError> {
  const signal = new AbortController().signal;
  try {
    await checkedAddresses(new URL(url), compileAllowList(allow), lookup, signal);
  } catch (error) {
    if (error instanceof WikiError) return error;
    throw error;
  }
  throw new Error(`${url} was not refused`);
}

// ---------------------------------------------------------------- the address check

describe("capture SSRF: the address check", () => {
  const INTERNAL_V4: Array<[string, string]> = [
    ["127.0.0.0/8", "loopback"],
    ["10.0.0.0/8", "private"],
    ["172.16.0.0/12", "private"],
    ["192.168.0.0/16", "private"],
    ["169.254.0.0/16", "linkLocal"],
    ["100.64.0.0/10", "carrierGradeNat"],
    ["0.0.0.0/8", "unspecified"],
    ["224.0.0.0/4", "multicast"],
    ["240.0.0.0/5", "reserved"],
    ["198.18.0.0/15", "reserved"],
    ["192.0.2.0/24", "reserved"],
    ["203.0.113.0/24", "reserved"],
  ];

  it("refuses an address literal of every internal IPv4 range, in any spelling, without a lookup", async () => {
    const cases: Array<[string, string]> = [
      ...INTERNAL_V4.map(([cidr, range]): [string, string] => [inRange(cidr), range]),
      ["169.254.169.254", "linkLocal"],
      ["255.255.255.255", "broadcast"],
    ];
    for (const [address, range] of cases) {
      const spelled = spellIPv4(address);
      const refusal = await refusalOf(`http://${spelled}:${1 + int(65535)}/latest`, noLookup);
      expect(refusal.diagnostic.code, spelled).toBe("capture_url_internal");
      expect(refusal.diagnostic.message, spelled).toContain(range);
    }
  });

  it("refuses internal IPv6 literals, and IPv6 forms that carry an internal IPv4 address", async () => {
    const r = () => randomCase(int(0x10000).toString(16));
    const cases: Array<[string, string]> = [
      [pick(["::1", "0:0:0:0:0:0:0:1", "0000::0001"]), "loopback"],
      ["::", "unspecified"],
      [`fe80::${r()}:${r()}`, "linkLocal"],
      ["fd00:ec2::254", "uniqueLocal"],
      [`fc${int(256).toString(16).padStart(2, "0")}::${r()}`, "uniqueLocal"],
      [`ff0${int(10)}::${r()}`, "multicast"],
      [`::ffff:${inRange("10.0.0.0/8")}`, "private"],
      [`64:ff9b::${inRange("127.0.0.0/8")}`, "loopback"],
      ["64:ff9b::a9fe:a9fe", "linkLocal"], // NAT64 of 169.254.169.254
      [`2002:c0a8:${r()}::${r()}`, "private"], // 6to4 of 192.168.x.x
      [`2001:db8::${r()}`, "reserved"],
    ];
    for (const [address, range] of cases) {
      const refusal = await refusalOf(`http://[${address}]/`, noLookup);
      expect(refusal.diagnostic.code, address).toBe("capture_url_internal");
      expect(refusal.diagnostic.message, address).toContain(range);
    }
  });

  it("refuses a name when any one of its addresses is internal", async () => {
    const name = `${label()}.example`;
    const internal = pick(["127.0.0.1", "169.254.169.254", inRange("10.0.0.0/8"), "192.168.1.1"]);
    const answers = [
      v4("93.184.216.34"),
      { address: "2606:2800:220:1::1", family: 6 },
      v4(internal),
    ];
    answers.sort(() => Math.random() - 0.5);
    const lookup = fakeResolver({ [name]: () => answers });
    const refusal = await refusalOf(`https://${randomCase(name)}/`, lookup);
    expect(refusal.diagnostic.code).toBe("capture_url_internal");
    expect(refusal.diagnostic.message).toContain(`${name} resolves to an internal address`);
    // The class is named, the address is not: a client learns nothing of the inside network.
    expect(refusal.diagnostic.message).not.toContain(internal);
  });

  it("passes public addresses, and internal ones an allow entry names", async () => {
    const name = `${label()}.corp.internal`;
    const inside = inRange("10.1.0.0/16");
    const lookup = fakeResolver({ [name]: () => [v4(inside)] });
    const signal = new AbortController().signal;
    const check = (url: string, allow: string[]) =>
      checkedAddresses(new URL(url), compileAllowList(allow), lookup, signal);
    expect(await check("http://93.184.216.34/", [])).toEqual([v4("93.184.216.34")]);
    expect(await check(`http://${name}/`, [name])).toEqual([v4(inside)]);
    expect(await check(`http://${name}/`, ["*.corp.internal"])).toEqual([v4(inside)]);
    expect(await check(`http://${name}/`, ["10.1.0.0/16"])).toEqual([v4(inside)]);
    expect(await check(`http://[fd00::${int(999)}]/`, ["fd00::/8"])).toHaveLength(1);
    // A pattern does not name its own apex, nor a range its neighbour.
    await expect(check("http://corp.internal./", ["*.corp.internal"])).rejects.toThrow();
    await expect(check(`http://${name}/`, ["10.2.0.0/16"])).rejects.toThrow(/private/);
  });
});

// ---------------------------------------------------------------- through the service

describe("capture SSRF: through the service", () => {
  it("refuses loopback in random spellings, and localhost, and the server hears nothing", async () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const address = randomLoopback();
    const target = await listen(address);
    for (let i = 0; i < 8; i += 1) {
      const spelled = spellIPv4(address);
      const result = await service.captureSource({
        url: `http://${spelled}:${target.port}/${label()}`,
      });
      expect(result.diagnostics[0]?.code, spelled).toBe("capture_url_internal");
      expectInternal(result, new URL(`http://${spelled}/`).hostname, "loopback");
    }
    const local = await listen("127.0.0.1");
    const named = await service.captureSource({
      url: `http://${randomCase("localhost")}:${local.port}/`,
    });
    expectInternal(named, "localhost", "loopback");
    expect(target.hits).toBe(0);
    expect(local.hits).toBe(0);
    expectNothingWritten(vault);
  });

  it("refuses [::1], and an address with a zone id is not a URL at all", async () => {
    const vault = makeTempVault();
    const service = serviceFor(vault.root);
    const target = await listen("::1");
    const result = await service.captureSource({ url: `${target.base}/` });
    expectInternal(result, "[::1]", "loopback");
    const zoned = await service.captureSource({
      url: `http://[${pick(["::1", "fe80::1"])}%25${label()}]:${target.port}/`,
    });
    expect(zoned.diagnostics.map((d) => d.code)).toEqual(["capture_url_invalid"]);
    expect(target.hits).toBe(0);
    expectNothingWritten(vault);
  });

  it("fetches an allowed range, and refuses a redirect from it to an address it does not allow", async () => {
    const vault = makeTempVault();
    const inner = await listen(randomLoopback());
    const target = `http://${spellIPv4(new URL(inner.base).hostname)}:${inner.port}/secret`;
    const outer = await redirector(randomLoopback(), target);
    const settings = {
      ...DEFAULT_SETTINGS,
      captureAllowHosts: [`${new URL(outer.base).hostname}/32`],
    };
    const service = serviceFor(vault.root, { settings });
    const result = await service.captureSource({ url: `${outer.base}/start` });
    expectInternal(result, new URL(target).hostname, "loopback");
    expect(outer.hits).toBe(1);
    expect(inner.hits).toBe(0);
    expectNothingWritten(vault);

    const direct = await listen(
      new URL(outer.base).hostname,
      "# Allowed\n\nAn internal page.\n",
      0,
    );
    const allowed = await service.captureSource({ url: `${direct.base}/page` });
    expect(allowed.ok).toBe(true);
    expect(allowed.manifest?.title).toBe("Allowed");
    expect(direct.hits).toBe(1);
  });
});

// ---------------------------------------------------------------- rebinding and names

describe("capture SSRF: DNS", () => {
  it("connects to the address it checked, not to a second answer (rebinding)", async () => {
    const vault = makeTempVault();
    const [checked, rebound] = await samePortPair();
    const name = `${label()}.rebind.test`;
    const answers = [new URL(checked.base).hostname, new URL(rebound.base).hostname];
    const lookup = fakeResolver({
      // The first answer passes the check; every later one points inside.
      [name]: () => [v4(answers.length > 1 ? (answers.shift() ?? "") : (answers[0] ?? ""))],
    });
    const result = await captureSource(
      vault.paths,
      { url: `http://${name}:${checked.port}/page` },
      {
        cwd: vault.root,
        home: vault.root,
        network: { allowHosts: [`${new URL(checked.base).hostname}/32`], lookup },
      },
    );
    expect(result.ok).toBe(true);
    expect(result.manifest?.title).toBe("Checked");
    expect(lookup.asked).toEqual([name]);
    expect(checked.hosts).toEqual([`${name}:${checked.port}`]);
    expect(rebound.hits).toBe(0);
  });

  it("fetches a host the allow list names, exactly or by a *.suffix, in any letter case", async () => {
    const vault = makeTempVault();
    const target = await listen(randomLoopback());
    const zone = `${label()}.internal`;
    const exact = `${label()}.${label()}.test`;
    const under = `${label()}.${zone}`;
    const lookup = fakeResolver({
      [exact]: () => [v4(new URL(target.base).hostname)],
      [under]: () => [v4(new URL(target.base).hostname)],
    });
    const options = {
      cwd: vault.root,
      home: vault.root,
      network: { allowHosts: [randomCase(exact), `*.${randomCase(zone)}`], lookup },
    };
    for (const host of [exact, under]) {
      const url = `http://${randomCase(host)}:${target.port}/`;
      const result = await captureSource(vault.paths, { url }, options);
      expect(result.ok, host).toBe(true);
    }
    expect(target.hits).toBe(2);
    const other = `${label()}.test`;
    const stranger = fakeResolver({ [other]: () => [v4(new URL(target.base).hostname)] });
    const refused = await captureSource(
      vault.paths,
      { url: `http://${other}:${target.port}/` },
      { ...options, network: { ...options.network, lookup: stranger } },
    );
    expectInternal(refused, other, "loopback");
    expect(target.hits).toBe(2);
  });
});

// ---------------------------------------------------------------- settings

describe("capture SSRF: the captureAllowHosts setting", () => {
  it("defaults to empty and takes host names, patterns, addresses and ranges", () => {
    expect(DEFAULT_SETTINGS.captureAllowHosts).toEqual([]);
    const good = ["wiki.corp", "*.corp.internal", "10.1.0.0/16", "fd00::/8", "[::1]", "127.0.0.1"];
    const { settings, diagnostics } = resolveSettings([
      { label: "s.json", section: { captureAllowHosts: good } },
    ]);
    expect(diagnostics).toEqual([]);
    expect(settings.captureAllowHosts).toEqual(good);
  });

  it("drops a list holding a URL, a port or spaces, with a diagnostic", () => {
    for (const bad of [["http://wiki.corp/"], ["wiki.corp:8080"], ["a b"], [""], "10.0.0.0/8"]) {
      const { settings, diagnostics } = resolveSettings([
        { label: "s.json", section: { captureAllowHosts: bad } },
      ]);
      expect(settings.captureAllowHosts).toEqual([]);
      expect(diagnostics.map((d) => d.code)).toEqual(["settings_invalid_value"]);
    }
  });
});

// ---------------------------------------------------------------- the CLI and MCP hosts

/** A settings file for the CLI and MCP hosts; its path goes in LLM_WIKI_SETTINGS. */
function settingsFile(allow: string[]): string {
  const path = join(makeTempDir("llm-wiki-settings-"), "settings.json");
  writeFileSync(path, JSON.stringify({ "llm-wiki": { captureAllowHosts: allow } }));
  return path;
}

interface Exit {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as a child, asynchronously: the test's servers keep answering while it runs. */
function runCliAsync(args: string[], cwd: string, env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("capture SSRF: llm-wiki capture --url", () => {
  it("refuses internal addresses with one readable line and exit 1; fetches an allowed range", async () => {
    const vault = makeTempVault();
    const home = makeTempDir("llm-wiki-home-");
    const address = randomLoopback();
    const target = await listen(address);
    const none = settingsFile([]);
    for (const host of [spellIPv4(address), spellIPv4(address), "[::1]"]) {
      const out = await runCliAsync(
        ["capture", "--url", `http://${host}:${target.port}/`],
        vault.root,
        { HOME: home, LLM_WIKI_SETTINGS: none },
      );
      expect(out.status, host).toBe(1);
      expect(out.stdout).toBe("");
      const lines = out.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^error: .* is an internal address \(loopback.*\(fix: .*captureAllowHosts/,
      );
    }
    expect(target.hits).toBe(0);
    expectNothingWritten(vault);

    const allowed = settingsFile([`127.0.0.0/8`]);
    const ok = await runCliAsync(
      ["capture", "--url", `${target.base}/page`, "--json"],
      vault.root,
      { HOME: home, LLM_WIKI_SETTINGS: allowed },
    );
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, manifest: { title: "Reached" } });
    expect(target.hits).toBe(1);
  });
});

describe("capture SSRF: wiki_capture_source over MCP", () => {
  async function startMcp(vault: string, settings: string): Promise<Client> {
    const home = makeTempDir("llm-wiki-mcp-home-");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_SERVER, "--vault", vault],
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        WIKI_HOME: home,
        XDG_CACHE_HOME: join(home, ".cache"),
        LLM_WIKI_SETTINGS: settings,
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-ssrf-test", version: "0.0.0" });
    await client.connect(transport);
    cleanups.push(() => client.close());
    return client;
  }

  const capture = async (client: Client, url: string) =>
    (await client.callTool({ name: "wiki_capture_source", arguments: { url } })) as CallToolResult;

  it("answers a refusal as a tool error with the diagnostic, and fetches what the settings allow", async () => {
    const vault = makeTempVault();
    const address = randomLoopback();
    const target = await listen(address);
    const refusing = await startMcp(vault.root, settingsFile([]));
    for (const host of [spellIPv4(address), spellIPv4(address)]) {
      const result = await capture(refusing, `http://${host}:${target.port}/${label()}`);
      expect(result.isError, host).toBe(true);
      const content = result.structuredContent as unknown as CaptureSourceResult;
      expectInternal(content, new URL(`http://${host}/`).hostname, "loopback");
    }
    // A client cannot open the door itself: the allow list is not a tool argument.
    const smuggled = refusing.callTool({
      name: "wiki_capture_source",
      arguments: {
        url: `${target.base}/`,
        [pick(["captureAllowHosts", "allowHosts", "network"])]: ["127.0.0.0/8"],
      },
    });
    await expect(smuggled).rejects.toThrow(/is not a parameter of this tool/);
    expect(target.hits).toBe(0);
    expectNothingWritten(vault);

    const allowing = await startMcp(vault.root, settingsFile([address]));
    const fetched = await capture(allowing, `${target.base}/page`);
    expect(fetched.isError).toBeFalsy();
    expect(fetched.structuredContent).toMatchObject({ ok: true, manifest: { title: "Reached" } });
    expect(target.hits).toBe(1);
  });
});

describe("capture SSRF: https to a pinned address", () => {
  it("keeps TLS on the host name: SNI and the certificate check use it, not the checked address", async () => {
    const vault = makeTempVault();
    const home = makeTempDir("llm-wiki-home-");
    const servernames: string[] = [];
    const server = createHttpsServer(
      { key: readFileSync(TLS_KEY), cert: readFileSync(TLS_CERT) },
      (req, res) => {
        servernames.push(String((req.socket as TLSSocket).servername));
        res.writeHead(200, { "content-type": "text/markdown" }).end("# Over TLS\n\nSecure.\n");
      },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const port = (server.address() as AddressInfo).port;
    // The child trusts the test certificate as it would a company's own CA.
    const env = { HOME: home, NODE_EXTRA_CA_CERTS: TLS_CERT };
    const named = await runCliAsync(
      ["capture", "--url", `https://${randomCase("localhost")}:${port}/${label()}`, "--json"],
      vault.root,
      { ...env, LLM_WIKI_SETTINGS: settingsFile(["localhost"]) },
    );
    expect(named.status, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ ok: true, manifest: { title: "Over TLS" } });
    expect(servernames).toEqual(["localhost"]);

    // The same server by its address: the certificate does not name 127.0.0.1, so nothing is fetched.
    const literal = await runCliAsync(
      ["capture", "--url", `https://127.0.0.1:${port}/${label()}`],
      vault.root,
      { ...env, LLM_WIKI_SETTINGS: settingsFile(["127.0.0.1"]) },
    );
    expect(literal.status).toBe(1);
    expect(literal.stderr).toMatch(
      /^error: could not fetch https:\/\/127\.0\.0\.1:\d+\/\w+: .*(altnames|not match)/,
    );
    expect(servernames).toEqual(["localhost"]);
  });
});
