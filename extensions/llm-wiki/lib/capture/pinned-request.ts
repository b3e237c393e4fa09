/**
 * One HTTP(S) exchange to addresses checked beforehand. A URL's host is
 * resolved once, every address it resolves to must be public (or allowed by
 * the user's `captureAllowHosts`), and the connection is then made to those
 * same addresses through a `lookup` that answers from them: a second DNS
 * answer (rebinding) never reaches the socket. The Host header, TLS SNI and
 * the certificate check still use the URL's host name.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { diagnostic, WikiError } from "../diagnostics.ts";
import {
  type AllowList,
  allowsAddress,
  allowsHost,
  classifyAddress,
  hostAddress,
} from "../safety/address-policy.ts";

/** One resolved address, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses (production: `dns.lookup` with `all`). */
export type LookupHost = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver, as the operating system would answer a connect. */
export const systemLookup: LookupHost = (hostname) => dnsLookup(hostname, { all: true });

/** The setting that opens internal hosts, as named in the refusal's repair. */
export const ALLOW_SETTING = "captureAllowHosts";

function refuse(hostname: string, range: string, literal: boolean): WikiError {
  const what = literal ? `${hostname} is` : `${hostname} resolves to`;
  return new WikiError(
    diagnostic(
      "capture_url_internal",
      "error",
      `${what} an internal address (${range}); captures fetch only public addresses, nothing was stored`,
      {
        repair: `if ${hostname} is meant to be captured, add "${hostname}" (or its range) to the "${ALLOW_SETTING}" list of the "llm-wiki" settings`,
      },
    ),
  );
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/**
 * The addresses `url` may be fetched from, each checked: a literal host as
 * written, a name through `lookup`. Throws `capture_url_internal` when any
 * address is internal and not allowed.
 */
export async function checkedAddresses(
  url: URL,
  allow: AllowList,
  lookup: LookupHost,
  signal: AbortSignal,
): Promise<ResolvedAddress[]> {
  const literal = hostAddress(url.hostname);
  if (literal !== undefined) {
    const verdict = classifyAddress(literal);
    if (!verdict.public && !allowsAddress(allow, literal)) {
      throw refuse(url.hostname, verdict.range, true);
    }
    return [{ address: literal, family: literal.includes(":") ? 6 : 4 }];
  }
  const host = url.hostname.replace(/\.$/, "");
  let resolved: ResolvedAddress[];
  try {
    resolved = await Promise.race([lookup(host), aborted(signal)]);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new WikiError(
      diagnostic("capture_fetch_failed", "error", `could not resolve ${url.hostname}`),
    );
  }
  if (resolved.length === 0) {
    throw new WikiError(
      diagnostic("capture_fetch_failed", "error", `${url.hostname} has no address`),
    );
  }
  if (allowsHost(allow, host)) return resolved;
  // Every answer must pass: the socket may try any of them (happy eyeballs).
  for (const { address } of resolved) {
    const verdict = classifyAddress(address);
    if (!verdict.public && !allowsAddress(allow, address)) {
      throw refuse(url.hostname, verdict.range, false);
    }
  }
  return resolved;
}

/** A `net` lookup that answers only from addresses checked earlier. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = typeof options === "object" ? options.family : undefined;
    const wanted = family === 4 || family === 6 ? family : undefined;
    const usable = addresses.filter((a) => wanted === undefined || a.family === wanted);
    if (options.all) {
      callback(null, usable);
      return;
    }
    const first = usable[0];
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error("no checked address of that family");
      error.code = "ENOTFOUND";
      callback(error, "", 0);
      return;
    }
    callback(null, first.address, first.family);
  };
}

/**
 * Sends a GET for `url` to `addresses` and resolves with the response head.
 * Never pooled (`agent: false`): a kept-alive socket to some earlier
 * address must not carry a later request.
 */
export function pinnedGet(
  url: URL,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: "GET",
      agent: false,
      headers,
      signal,
      lookup: pinnedLookup(addresses),
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end();
  });
}
