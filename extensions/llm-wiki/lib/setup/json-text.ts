/**
 * A JSON file edited as text: the parser here keeps where every value,
 * member and element stands, so `setup` changes only the bytes of its own
 * entries. Everything else stays as the user wrote it: numbers beyond what
 * a double holds (`12345678901234567890`), duplicate keys, key order,
 * spacing and line endings. Strict JSON only (a comment is a syntax error:
 * an edit could not know what it belongs to).
 */

/** A parsed value and the range `[start, end)` of its text. */
export type JsonNode =
  | { kind: "object"; start: number; end: number; members: JsonMember[] }
  | { kind: "array"; start: number; end: number; elements: JsonNode[] }
  | { kind: "string"; start: number; end: number; value: string }
  | { kind: "literal"; start: number; end: number; raw: string };

/** One `"key": value` of an object; `start` is the key's opening quote. */
export interface JsonMember {
  key: string;
  start: number;
  value: JsonNode;
}

/** Why a text is not JSON, and where. */
export class JsonTextError extends Error {
  readonly at: number;
  constructor(message: string, at: number) {
    super(`${message} at character ${at}`);
    this.at = at;
  }
}

/** Parses `text` as one JSON value, keeping the ranges; throws `JsonTextError`. */
export function parseJsonText(text: string): JsonNode {
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (message: string): never => {
    throw new JsonTextError(message, at);
  };
  const space = () => {
    while (at < text.length && /[ \t\r\n]/.test(text[at] as string)) at++;
  };
  const string = (): JsonNode => {
    const start = at;
    at++;
    let value = "";
    for (;;) {
      if (at >= text.length) fail("unterminated string");
      const c = text[at] as string;
      if (c === '"') break;
      if (c === "\\") {
        const esc = text[at + 1];
        const simple: Record<string, string> = {
          '"': '"',
          "\\": "\\",
          "/": "/",
          b: "\b",
          f: "\f",
          n: "\n",
          r: "\r",
          t: "\t",
        };
        if (esc !== undefined && simple[esc] !== undefined) {
          value += simple[esc];
          at += 2;
        } else if (esc === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) {
          value += String.fromCharCode(Number.parseInt(text.slice(at + 2, at + 6), 16));
          at += 6;
        } else fail("bad escape");
        continue;
      }
      if (c.charCodeAt(0) < 0x20) fail("control character in a string");
      value += c;
      at++;
    }
    at++;
    return { kind: "string", start, end: at, value };
  };
  const value = (depth: number): JsonNode => {
    if (depth > 256) fail("nested too deeply");
    space();
    const c = text[at];
    const start = at;
    if (c === "{") {
      at++;
      const members: JsonMember[] = [];
      space();
      if (text[at] === "}") {
        at++;
        return { kind: "object", start, end: at, members };
      }
      for (;;) {
        space();
        if (text[at] !== '"') fail("expected a key");
        const key = string() as { value: string; start: number };
        space();
        if (text[at] !== ":") fail("expected ':'");
        at++;
        members.push({ key: key.value, start: key.start, value: value(depth + 1) });
        space();
        if (text[at] === ",") {
          at++;
          continue;
        }
        if (text[at] === "}") {
          at++;
          return { kind: "object", start, end: at, members };
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      at++;
      const elements: JsonNode[] = [];
      space();
      if (text[at] === "]") {
        at++;
        return { kind: "array", start, end: at, elements };
      }
      for (;;) {
        elements.push(value(depth + 1));
        space();
        if (text[at] === ",") {
          at++;
          continue;
        }
        if (text[at] === "]") {
          at++;
          return { kind: "array", start, end: at, elements };
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(
      text.slice(at, at + 400),
    );
    if (!m) fail("unexpected character");
    at += (m as RegExpExecArray)[0].length;
    return { kind: "literal", start, end: at, raw: (m as RegExpExecArray)[0] };
  };
  const root = value(0);
  space();
  if (at !== text.length) fail("unexpected text after the value");
  return root;
}

/** The last member named `key` (the one a JSON reader keeps), or undefined. */
export function memberOf(node: JsonNode | undefined, key: string): JsonMember | undefined {
  if (node?.kind !== "object") return undefined;
  for (let i = node.members.length - 1; i >= 0; i--) {
    const m = node.members[i] as JsonMember;
    if (m.key === key) return m;
  }
  return undefined;
}

/** The plain data of `node` (numbers as JavaScript numbers: for reading our own entries only). */
export function nodeValue(node: JsonNode): unknown {
  if (node.kind === "string") return node.value;
  if (node.kind === "literal") return JSON.parse(node.raw);
  if (node.kind === "array") return node.elements.map(nodeValue);
  const out: Record<string, unknown> = {};
  for (const m of node.members) {
    Object.defineProperty(out, m.key, {
      value: nodeValue(m.value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** The line break the file uses. */
function eolOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** The indentation of the line holding `at`. */
function lineIndent(text: string, at: number): string {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "";
}

/** One indentation step of the file (two spaces unless it shows otherwise). */
function indentUnit(text: string): string {
  const m = /\n([ \t]+)["{[]/.exec(text);
  if (!m?.[1]) return "  ";
  return m[1].startsWith("\t") ? "\t" : m[1].length <= 8 ? m[1] : "  ";
}

/** `value` as JSON text for a place indented by `base`. */
function valueText(text: string, value: unknown, base: string): string {
  const unit = indentUnit(text);
  const eol = eolOf(text);
  return JSON.stringify(value, null, unit)
    .split("\n")
    .map((line, i) => (i === 0 ? line : `${base}${line}`))
    .join(eol);
}

/** Replaces `[start, end)` of `text` with `by`. */
function splice(text: string, start: number, end: number, by: string): string {
  return text.slice(0, start) + by + text.slice(end);
}

/** `text` with `node`'s value replaced by `value` (written at the node's indentation). */
export function replaceValue(text: string, node: JsonNode, value: unknown): string {
  return splice(text, node.start, node.end, valueText(text, value, lineIndent(text, node.start)));
}

/**
 * `text` with a member `key: value` added at the end of the object `node`,
 * on its own line, indented as the object's other members are.
 */
export function addMember(text: string, node: JsonNode, key: string, value: unknown): string {
  if (node.kind !== "object") throw new Error("not an object");
  const eol = eolOf(text);
  const last = node.members[node.members.length - 1];
  if (last === undefined) {
    const base = lineIndent(text, node.start);
    const inner = base + indentUnit(text);
    const body = `${eol}${inner}${JSON.stringify(key)}: ${valueText(text, value, inner)}${eol}${base}`;
    return splice(text, node.start + 1, node.end - 1, body);
  }
  const inner = lineIndent(text, last.start);
  const sameLine = !text.slice(node.start, last.start).includes("\n");
  const sep = sameLine ? ", " : `,${eol}${inner}`;
  return splice(
    text,
    last.value.end,
    last.value.end,
    `${sep}${JSON.stringify(key)}: ${valueText(text, value, inner)}`,
  );
}

/** `text` with the element `value` added at the end of the array `node`. */
export function addElement(text: string, node: JsonNode, value: unknown): string {
  if (node.kind !== "array") throw new Error("not an array");
  const eol = eolOf(text);
  const last = node.elements[node.elements.length - 1];
  if (last === undefined) {
    const base = lineIndent(text, node.start);
    const inner = base + indentUnit(text);
    return splice(
      text,
      node.start + 1,
      node.end - 1,
      `${eol}${inner}${valueText(text, value, inner)}${eol}${base}`,
    );
  }
  const inner = lineIndent(text, last.start);
  const sameLine = !text.slice(node.start, last.start).includes("\n");
  return splice(
    text,
    last.end,
    last.end,
    `${sameLine ? ", " : `,${eol}${inner}`}${valueText(text, value, inner)}`,
  );
}

/**
 * `text` without the item `[start, end)` of a container whose items are
 * `items` (`index` its place), with the comma that joined it and the line it
 * stood on when it had one of its own.
 */
function removeItem(
  text: string,
  container: { start: number; end: number },
  items: ReadonlyArray<{ start: number; end: number }>,
  index: number,
): string {
  const item = items[index] as { start: number; end: number };
  if (items.length === 1) {
    // The only item: the container becomes empty, written `{}` / `[]`.
    return splice(text, container.start + 1, container.end - 1, "");
  }
  if (index > 0) {
    // From the end of the item before it: its comma, the break and the item.
    const before = items[index - 1] as { end: number };
    return splice(text, before.end, item.end, "");
  }
  // The first of several: the item, its comma and the space up to the next one.
  const next = items[1] as { start: number };
  return splice(text, item.start, next.start, "");
}

/** `text` without the member at `index` of the object `node`. */
export function removeMember(text: string, node: JsonNode, index: number): string {
  if (node.kind !== "object") throw new Error("not an object");
  const items = node.members.map((m) => ({ start: m.start, end: m.value.end }));
  return removeItem(text, node, items, index);
}

/** `text` without the element at `index` of the array `node`. */
export function removeElement(text: string, node: JsonNode, index: number): string {
  if (node.kind !== "array") throw new Error("not an array");
  return removeItem(text, node, node.elements, index);
}
