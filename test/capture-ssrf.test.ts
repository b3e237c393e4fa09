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
import { afterEach, describe, expect, it } from "vitest";
import { captureSource } from "../extensions/llm-wiki/lib/capture/capture-source.ts";
import {
  checkedAddresses,
  type LookupHost,
  type ResolvedAddress,
} from "../extensions/llm-wiki/lib/capture/pinned-request.ts";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { compileAllowList } from "../extensions/llm-wiki/lib/safety/address-policy.ts";
import { DEFAULT_SETTINGS, resolveSettings } from "../extensions/llm-wiki/lib/settings.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import {
  closeTargets,
  expectInternal,
  expectNothingWritten,
  inRange,
  int,
  label,
  listen,
  pick,
  randomCase,
  randomLoopback,
  redirector,
  samePortPair,
  spellIPv4,
} from "./helpers/ssrf-targets.ts";
import { makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(async () => {
  await closeServices();
  await closeTargets();
  removeTempDirs();
});

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
