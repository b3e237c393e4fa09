/**
 * Spec: a secret in an HTML `<meta>` tag is redacted beside the tag's name.
 * `<meta name="password" content="…">` never pairs the name and the value
 * the way a text scan reads an assignment, whatever the attribute order,
 * quoting or escaping; the redact stage scans each tag's content under its
 * `name`, `property` or `http-equiv`, in the stored original, the extracted
 * Markdown and the manifest. Secrets are generated afresh each run (the
 * seed is printed on failure), and a capture through the real CLI is
 * checked byte for byte under `.llm-wiki/`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { redactMetaContents } from "../extensions/llm-wiki/lib/capture/capture-redact.ts";
import type { CaptureSourceResult } from "../extensions/llm-wiki/lib/capture/capture-source.ts";
import { metaContents } from "../extensions/llm-wiki/lib/capture/html-meta.ts";
import { countTotal } from "../extensions/llm-wiki/lib/safety/redact.ts";
import { runCliAsync } from "./helpers/cli.ts";
import { ALNUM, CorpusRandom, password } from "./helpers/corpus-random.ts";
import { randomWords } from "./helpers/random-text.ts";
import { corpusSeed, corpusSeedNote, type SecretCase } from "./helpers/secret-corpus.ts";
import { leaksUnder } from "./helpers/secret-scan.ts";
import { makeTempDir, makeTempVault, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

/** Fresh secrets for one run: typed passwords and machine-made keys. */
function secrets(): { r: CorpusRandom; note: string } {
  const seed = corpusSeed();
  return { r: new CorpusRandom(seed), note: corpusSeedNote(seed) };
}

/** Every character of `value` as a numeric character reference: the text scan sees no secret. */
function entityEscaped(value: string): string {
  return [...value].map((c) => `&#${c.codePointAt(0)};`).join("");
}

/**
 * One `<meta>` spelling per line: key attribute, order, quoting and escaping
 * vary. Password-named keys hold typed passwords, token-named keys
 * machine-made keys, as the keyed scan of JSON and YAML expects them.
 */
function metaTags(r: CorpusRandom): { tags: string[]; cases: SecretCase[] } {
  const cases: SecretCase[] = [];
  const secret = (kind: string, value: string) => {
    cases.push({ kind, secret: value, text: value });
    return value;
  };
  const key = () => r.mixed(ALNUM, 32);
  const tags = [
    `<meta name="password" content="${secret("name-password", password(r))}">`,
    `<meta content='${secret("content-first-api-key", key())}' name='api-key'>`,
    `<meta NAME=db_password CONTENT=${secret("unquoted", password(r))}>`,
    `<meta property="og:api_key" content="${secret("property", key())}" />`,
    `<meta http-equiv="X-Api-Key" content="${secret("http-equiv", key())}">`,
    `<meta\n  content="${entityEscaped(secret("entity-escaped", password(r)))}"\n  name="smtp-passphrase">`,
    `<meta name="access_token" data-note="a > b" content="${secret("gt-in-attribute", key())}">`,
  ];
  return { tags, cases };
}

function page(head: string[], title: string, body: string): string {
  return `<!doctype html>\n<html><head><title>${title}</title>\n${head.join("\n")}\n</head>\n<body><h1>${title}</h1><p>${body}</p></body></html>\n`;
}

describe("capture: HTML meta tags, redact stage alone", () => {
  it("reads a tag's key from name, property or http-equiv in any order, quoting and escaping", () => {
    const { r, note } = secrets();
    const { tags, cases } = metaTags(r);
    const found = metaContents(tags.join("\n"));
    expect(
      found.map((m) => m.key),
      note,
    ).toEqual([
      "password",
      "api-key",
      "db_password",
      "api_key",
      "X-Api-Key",
      "smtp-passphrase",
      "access_token",
    ]);
    expect(
      found.map((m) => m.value),
      note,
    ).toEqual(cases.map((c) => c.secret));
  });

  it("redacts every secret-named tag's content and keeps every other byte", () => {
    const { r, note } = secrets();
    const { tags, cases } = metaTags(r);
    const plain = `<meta name="description" content="${randomWords(6)}">\n<meta charset="utf-8">`;
    const html = `${plain}\n${tags.join("\n")}\n`;
    const out = redactMetaContents(html);
    for (const c of cases) expect(out.text, `${c.kind}; ${note}`).not.toContain(c.secret);
    expect(countTotal(out.counts), note).toBe(cases.length);
    expect(out.text.startsWith(`${plain}\n`)).toBe(true);
    // Each tag is still one tag, its content a quoted redaction mark.
    expect(out.text.match(/content="\[REDACTED:[a-z_]+\]"/gi)?.length, note).toBe(cases.length);
    expect(out.text).toContain('data-note="a > b"');
  });

  it("leaves a document without secret meta content untouched", () => {
    const html = `<meta name="viewport" content="width=device-width"><meta property="og:title" content="${randomWords(4)}">`;
    expect(redactMetaContents(html)).toEqual({ text: html, counts: {} });
  });
});

describe("capture: HTML meta tags through `llm-wiki capture --file`", () => {
  it("stores no meta secret anywhere under .llm-wiki/: original, source.md, manifest, event log", async () => {
    const { r, note } = secrets();
    const { tags, cases } = metaTags(r);
    const vault = makeTempVault();
    const home = makeTempDir("llm-wiki-home-");
    const title = randomWords(3);
    const body = randomWords(12);
    writeFileSync(join(vault.root, "page.html"), page(tags, title, body));

    const out = await runCliAsync(["capture", "--file", "page.html", "--json"], {
      cwd: vault.root,
      env: { HOME: home },
    });
    expect(out.status, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as CaptureSourceResult;
    expect(result.ok).toBe(true);
    expect(result.manifest?.title).toBe(title);
    // The original is kept: every secret was taken out of it before anything was written.
    expect(result.manifest?.files.original).toBe("original.html");
    expect(result.diagnostics.map((d) => d.code)).toEqual(["capture_redacted"]);
    const packet = join(vault.paths.raw, "sources", result.id ?? "");
    const original = readFileSync(join(packet, "original.html"), "utf8");
    expect(original).toContain(`<title>${title}</title>`);
    expect(readFileSync(join(packet, "source.md"), "utf8")).toContain(body);
    expect(leaksUnder(vault.paths.dir, cases), note).toEqual([]);
    expect(leaksUnder(vault.paths.wiki, cases), note).toEqual([]);
  });
});
