/**
 * HTML `<meta>` tags as key/value pairs, for the keyed scan of the redact
 * stage. A secret in `<meta name="api-key" content="…">` is recognised only
 * beside its name, and the tag spells the name and the value apart (in
 * either order, quoted or not, entity-escaped), so the text scan cannot see
 * them together. Each tag's `content` is handed to `redactKeyed` under the
 * tag's `name`, `property`, `http-equiv` or `itemprop`, and written back
 * (escaped, quoted) only where a secret was found: every other byte of the
 * document stays as it was.
 */
import type { KeyedValue } from "../safety/keyed-redaction.ts";

/** One `<meta>` tag's content: its key, its decoded value, and where its raw value sits. */
export interface MetaContent extends KeyedValue {
  /** Offsets of the raw attribute value in the document, quotes included. */
  start: number;
  end: number;
}

/** A `<meta` start; the tag runs to its `>` outside quotes. */
const META_START = "<meta";
/** The tag from its start: quoted values may hold `>`; each position has one way to match, so no backtracking blow-up. */
const META_TAG = /^<meta(?=[\s/>])(?:"[^"]*"|'[^']*'|[^"'>])*>/i;
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/dg;
/** Attributes that name a meta's value, in the order they are trusted. */
const KEY_ATTRIBUTES = ["name", "property", "http-equiv", "itemprop"] as const;

const NAMED: Record<string, string> = { amp: "&", quot: '"', apos: "'", lt: "<", gt: ">" };

/** The text of an attribute value: character references undone (a secret may hide behind `&#65;`). */
export function decodeAttribute(raw: string): string {
  return raw.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z]+));/g,
    (ref: string, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (name !== undefined) return NAMED[name.toLowerCase()] ?? ref;
      const code = Number.parseInt(dec ?? hex ?? "", dec === undefined ? 16 : 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ref;
    },
  );
}

/** `value` as a double-quoted attribute value. */
export function quoteAttribute(value: string): string {
  const escaped = value
    .replaceAll("&", "&amp;")
    .replaceAll('"', "&quot;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
  return `"${escaped}"`;
}

/**
 * The key a meta's name stands for in the keyed scan: a namespace prefix
 * (`og:`, `twitter:`) dropped, since the scan reads a name after a colon as
 * part of a URN, not as a key.
 */
function keyOf(name: string): string {
  return name.slice(name.lastIndexOf(":") + 1);
}

/** The attributes of one tag: lower-cased name → raw value and its offsets in the tag. */
function attributes(tag: string): Map<string, { raw: string; start: number; end: number }> {
  const found = new Map<string, { raw: string; start: number; end: number }>();
  // After `<meta`, before the closing `>`.
  const body = tag.slice(META_START.length, -1);
  for (const m of body.matchAll(ATTRIBUTE)) {
    const name = (m[1] ?? "").toLowerCase();
    // The first of a repeated attribute wins, as in a browser.
    if (found.has(name)) continue;
    const group = [2, 3, 4].find((g) => m[g] !== undefined);
    const span = group === undefined ? undefined : m.indices?.[group];
    if (group === undefined || span === undefined) continue;
    const quoted = group !== 4 ? 1 : 0;
    found.set(name, {
      raw: m[group] ?? "",
      start: META_START.length + span[0] - quoted,
      end: META_START.length + span[1] + quoted,
    });
  }
  return found;
}

/** Every `<meta>` tag of `html` that has a `content`, as a keyed value (the key empty when it names none). */
export function metaContents(html: string): MetaContent[] {
  const lower = html.toLowerCase();
  const out: MetaContent[] = [];
  let at = lower.indexOf(META_START);
  while (at !== -1) {
    const next = lower.indexOf(META_START, at + META_START.length);
    // A tag never runs into the next `<meta`: each stretch of text is read once.
    const tag = META_TAG.exec(html.slice(at, next === -1 ? undefined : next))?.[0];
    if (tag !== undefined) {
      const attrs = attributes(tag);
      const content = attrs.get("content");
      if (content !== undefined) {
        const keyAttr = KEY_ATTRIBUTES.map((k) => attrs.get(k)).find((a) => a !== undefined);
        out.push({
          key: keyAttr === undefined ? "" : keyOf(decodeAttribute(keyAttr.raw).trim()),
          value: decodeAttribute(content.raw),
          start: at + content.start,
          end: at + content.end,
        });
      }
    }
    at = next;
  }
  return out;
}
