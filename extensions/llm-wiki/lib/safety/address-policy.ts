/**
 * Which network addresses a fetch on the user's behalf may reach. Only public
 * unicast addresses are reachable by default; loopback, private, link-local
 * (cloud metadata), unique-local, carrier-grade NAT, multicast, reserved and
 * every other special range count as internal, as classified by ipaddr.js.
 * A user's allow list (host names, `*.suffix` patterns, CIDR ranges) opens
 * named internal hosts again.
 */
import ipaddr from "ipaddr.js";

/** How an address was classified: ipaddr.js's range name, or `invalid`. */
export interface AddressClass {
  /** Reachable without an allow-list entry. */
  public: boolean;
  /** The range name (`unicast`, `loopback`, `private`, `linkLocal`, …). */
  range: string;
}

/** An address translation range whose IPv6 address carries an IPv4 one. */
const EMBEDDING_RANGES: ReadonlySet<string> = new Set(["ipv4Mapped", "rfc6145", "rfc6052", "6to4"]);

/** The IPv4 address inside an IPv6 address of an embedding range, if it has one. */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const [, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = address.parts;
  // 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
  if (range === "6to4") return new ipaddr.IPv4([p1 >> 8, p1 & 0xff, p2 >> 8, p2 & 0xff]);
  // 64:ff9b:1::/48 (RFC 8215, local use) embeds at a prefix length of its network's choosing.
  if (range === "rfc6052" && p2 !== 0) return undefined;
  return new ipaddr.IPv4([p6 >> 8, p6 & 0xff, p7 >> 8, p7 & 0xff]);
}

function classifyParsed(address: ipaddr.IPv4 | ipaddr.IPv6): AddressClass {
  const range = address.range();
  if (address.kind() === "ipv6" && EMBEDDING_RANGES.has(range)) {
    // `::ffff:127.0.0.1`, `64:ff9b::7f00:1` and `2002:7f00:1::` all reach 127.0.0.1.
    const inner = embeddedIPv4(address as ipaddr.IPv6, range);
    if (inner === undefined) return { public: false, range };
    const innerRange = inner.range();
    return { public: innerRange === "unicast", range: `${innerRange} (${range})` };
  }
  return { public: range === "unicast", range };
}

/** Classifies an address literal (IPv4 dotted or IPv6, brackets and zone id allowed). */
export function classifyAddress(literal: string): AddressClass {
  const bare = literal.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return { public: false, range: "invalid" };
  return classifyParsed(ipaddr.parse(bare));
}

/** An IP address literal of a URL host (`127.0.0.1`, `[::1]`), else undefined. */
export function hostAddress(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1");
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare) ? bare : undefined;
}

/** A compiled allow list: host names, `*.suffix` patterns and CIDR ranges. */
export interface AllowList {
  hosts: ReadonlySet<string>;
  /** Suffixes of `*.suffix` entries, with their leading dot. */
  suffixes: readonly string[];
  ranges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

/** A host name as compared: lower case, without a trailing dot. */
function normalHost(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

/**
 * Compiles allow-list entries. An address without a prefix is a range of one
 * address; an entry that is neither a valid range nor a host name matches
 * nothing (failing closed).
 */
export function compileAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const suffixes: string[] = [];
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  for (const raw of entries) {
    const entry = raw.trim().replace(/^\[(.*)\]$/, "$1");
    if (entry === "") continue;
    if (entry.includes("/")) {
      if (ipaddr.isValidCIDR(entry)) ranges.push(ipaddr.parseCIDR(entry));
      continue;
    }
    if (ipaddr.isValid(entry)) {
      const address = ipaddr.parse(entry);
      ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
      continue;
    }
    if (entry.startsWith("*.") && entry.length > 2) suffixes.push(normalHost(entry.slice(1)));
    else hosts.add(normalHost(entry));
  }
  return { hosts, suffixes, ranges };
}

/** Whether the allow list names `hostname` (exactly, or under a `*.suffix`). */
export function allowsHost(allow: AllowList, hostname: string): boolean {
  const host = normalHost(hostname);
  return allow.hosts.has(host) || allow.suffixes.some((suffix) => host.endsWith(suffix));
}

/** Whether `literal` lies in one of the allow list's ranges (an IPv4-mapped IPv6 counts as its IPv4). */
export function allowsAddress(allow: AllowList, literal: string): boolean {
  const bare = literal.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.process(bare);
  return allow.ranges.some(
    ([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits),
  );
}
