/**
 * Targets for the server-side request forgery tests: random spellings of
 * internal addresses, loopback servers that count what reaches them, and the
 * checks every refusal must pass (a `capture_url_internal` diagnostic, an
 * untouched vault).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import type { CaptureSourceResult } from "../../extensions/llm-wiki/lib/capture/capture-source.ts";
import { readEvents, snapshotFiles, type TempVault } from "./temp-vault.ts";

const cleanups: Array<() => Promise<void>> = [];

/** Closes every server started since the last call (call it in `afterEach`). */
export async function closeTargets(): Promise<void> {
  await Promise.all(cleanups.splice(0).map((close) => close()));
}

/** Runs `close` with the next `closeTargets` (for servers a test starts itself). */
export function onClose(close: () => Promise<void>): void {
  cleanups.push(close);
}

// ---------------------------------------------------------------- random values

export function int(below: number): number {
  return Math.floor(Math.random() * below);
}

export function pick<T>(values: readonly T[]): T {
  const value = values[int(values.length)];
  if (value === undefined) throw new Error("pick from an empty list");
  return value;
}

export function randomCase(text: string): string {
  return [...text].map((c) => (Math.random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join("");
}

/** A random name of letters and digits. */
export function label(): string {
  return Array.from({ length: 4 + int(8) }, () =>
    pick([..."abcdefghijklmnopqrstuvwxyz0123456789"]),
  ).join("");
}

/** A random loopback address other than 127.0.0.1, in dotted decimal. */
export function randomLoopback(): string {
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
export function spellIPv4(address: string): string {
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
export function inRange(cidr: string): string {
  const [base = "", bits = "32"] = cidr.split("/");
  const [a = 0, b = 0, c = 0, d = 0] = octets(base);
  const start = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  const size = 2 ** (32 - Number(bits));
  const n = start + int(size);
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

// ---------------------------------------------------------------- servers and vaults

export interface Listening {
  /** `http://host:port` as a URL names it. */
  base: string;
  port: number;
  /** Requests received so far. */
  hits: number;
  /** The Host header of each request. */
  hosts: string[];
}

/** A server on `host` (and `port`, default any) that answers every path with a small page. */
export async function listen(
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
  closeAfterTest(server);
  state.port = (server.address() as AddressInfo).port;
  state.base = `http://${host.includes(":") ? `[${host}]` : host}:${state.port}`;
  return state;
}

/** Closes `server` (and its open connections) when the test's targets are closed. */
function closeAfterTest(server: Server): void {
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
}

function hostHeader(headers: IncomingHttpHeaders): string {
  return headers.host ?? "";
}

/** A redirecting server on `host`: every request is sent on to `target`. */
export async function redirector(host: string, target: string): Promise<Listening> {
  const state: Listening = { base: "", port: 0, hits: 0, hosts: [] };
  const server = createServer((req, res) => {
    state.hits += 1;
    state.hosts.push(hostHeader(req.headers));
    res.writeHead(302, { location: target }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  closeAfterTest(server);
  state.port = (server.address() as AddressInfo).port;
  state.base = `http://${host}:${state.port}`;
  return state;
}

/** Two servers on different loopback addresses and the same port (a rebinding pair). */
export async function samePortPair(): Promise<[Listening, Listening]> {
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
export function expectNothingWritten(vault: TempVault): void {
  const files = [...snapshotFiles(vault.paths.dir).keys()];
  expect(files.filter((f) => f.startsWith("raw/") || f.startsWith("wiki/sources/"))).toEqual([]);
  expect(readEvents(vault.paths)).toEqual([]);
}

export function expectInternal(result: CaptureSourceResult, host: string, range: string): void {
  expect(result.ok).toBe(false);
  expect(result.diagnostics).toHaveLength(1);
  const [refusal] = result.diagnostics;
  expect(refusal).toMatchObject({ code: "capture_url_internal", severity: "error" });
  expect(refusal?.message).toContain(host);
  expect(refusal?.message).toContain(range);
  expect(refusal?.repair).toContain("captureAllowHosts");
}

/** A resolver that must not be asked (for address literals). */
