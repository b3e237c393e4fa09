/**
 * JSON to readable Markdown: the top level's keys (or items) as headings,
 * everything below as nested lists. A document too deep or too large to
 * read as lists is kept as a pretty-printed block; one too deep even for
 * that, or not valid JSON, is kept as written. Nothing is dropped: each
 * fallback says why in a diagnostic.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { type KeyedValue, redactKeyed } from "../safety/keyed-redaction.ts";
import type { RedactionCounts } from "../safety/redact.ts";
import { neutraliseLine, neutraliseText } from "../safety/text.ts";
import { fenced } from "./fence.ts";

/** Deepest nesting rendered as lists; deeper documents become a code block. */
export const JSON_LIST_DEPTH = 16;
/** Most values rendered as lists. */
export const JSON_LIST_NODES = 20_000;
/**
 * Deepest nesting parsed at all. `JSON.stringify` recurses, so a document
 * nested past this is kept exactly as written rather than re-printed.
 */
export const JSON_PARSE_DEPTH = 1_000;

/** Markdown made from a JSON document. */
export interface JsonMarkdown {
  markdown: string;
  extractor: "json-markdown" | "json-pretty" | "json-fence";
  title?: string;
  diagnostics: Diagnostic[];
  /** Secrets found only with their key (or behind an escape): the original still holds them. */
  redactions?: RedactionCounts;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Deepest bracket nesting of `text`, counted outside strings (linear, no parsing). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

function countNodes(value: Json, limit: number): number {
  // Iterative: the count must not itself blow the stack it protects.
  let count = 0;
  const stack: Json[] = [value];
  while (stack.length > 0 && count <= limit) {
    const next = stack.pop() as Json;
    count++;
    // A loop, not a spread: a million-item array is more arguments than a call takes.
    const children = Array.isArray(next) ? next : isContainer(next) ? Object.values(next) : [];
    for (const child of children) stack.push(child);
  }
  return count;
}

function isContainer(value: Json): value is Json[] | { [key: string]: Json } {
  return value !== null && typeof value === "object";
}

/**
 * Redacts every string value in place, scanned beside its key (the nearest
 * one for an item of a list). Iterative, like the node count.
 */
function redactTree(root: Json): RedactionCounts {
  const pairs: KeyedValue[] = [];
  const setters: Array<(value: string) => void> = [];
  const stack: Array<[Json, string]> = [[root, ""]];
  while (stack.length > 0) {
    const [node, key] = stack.pop() as [Json, string];
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        if (typeof child === "string") {
          pairs.push({ key, value: child });
          setters.push((value) => {
            node[i] = value;
          });
        } else if (isContainer(child)) stack.push([child, key]);
      });
    } else if (isContainer(node)) {
      for (const [name, child] of Object.entries(node)) {
        if (typeof child === "string") {
          pairs.push({ key: name, value: child });
          // defineProperty: a key named `__proto__` is an own property here, not the prototype.
          setters.push((value) => {
            Object.defineProperty(node, name, { value, enumerable: true, writable: true });
          });
        } else if (isContainer(child)) stack.push([child, name]);
      }
    }
  }
  const { values, counts } = redactKeyed(pairs);
  values.forEach((value, i) => {
    if (value !== pairs[i]?.value) setters[i]?.(value);
  });
  return counts;
}

/** A scalar as list text: strings as they read (controls neutralised), the rest as JSON. */
function scalar(value: Json): string {
  if (typeof value === "string") return neutraliseText(value);
  return JSON.stringify(value);
}

/** `text` under a list marker: continuation lines indented to stay in the item. */
function indentLines(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}  `);
}

function keyLabel(key: string): string {
  const label = neutraliseLine(key);
  return label === "" ? "(empty key)" : label;
}

function renderList(value: Json, indent: string, out: string[]): void {
  const entries: Array<[string | undefined, Json]> = Array.isArray(value)
    ? value.map((item) => [undefined, item])
    : Object.entries(value as { [key: string]: Json });
  if (entries.length === 0) {
    out.push(`${indent}- _(empty)_`);
    return;
  }
  for (const [key, item] of entries) {
    const label = key === undefined ? "" : `**${keyLabel(key)}**:`;
    if (isContainer(item)) {
      const empty = Array.isArray(item) ? item.length === 0 : Object.keys(item).length === 0;
      if (empty)
        out.push(`${indent}- ${label}${label ? " " : ""}${Array.isArray(item) ? "[]" : "{}"}`);
      else {
        out.push(`${indent}-${label ? ` ${label}` : ""}`);
        renderList(item, `${indent}  `, out);
      }
    } else {
      const text = indentLines(scalar(item), indent);
      out.push(`${indent}- ${label}${label ? " " : ""}${text}`);
    }
  }
}

/** A short name for a record: its `title`, `name` or `id`. */
function recordName(value: Json): string | undefined {
  if (!isContainer(value) || Array.isArray(value)) return undefined;
  for (const key of ["title", "name", "id"]) {
    const candidate = value[key];
    if (typeof candidate === "string" || typeof candidate === "number") {
      const line = neutraliseLine(String(candidate));
      if (line !== "") return line;
    }
  }
  return undefined;
}

function renderSection(heading: string, value: Json, out: string[]): void {
  out.push(`## ${heading}`, "");
  if (isContainer(value)) renderList(value, "", out);
  else out.push(scalar(value) === "" ? "_(empty)_" : scalar(value));
  out.push("");
}

function renderDocument(value: Json): string {
  const out: string[] = [];
  if (Array.isArray(value)) {
    if (value.length === 0) return "_(empty list)_\n";
    value.forEach((item, i) => {
      const name = recordName(item);
      renderSection(name === undefined ? `Item ${i + 1}` : `${i + 1}. ${name}`, item, out);
    });
  } else if (isContainer(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "_(empty object)_\n";
    for (const [key, item] of entries) renderSection(keyLabel(key), item, out);
  } else {
    out.push(scalar(value));
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/** Converts JSON text to Markdown within the bounds above. */
export function jsonToMarkdown(text: string): JsonMarkdown {
  const depth = jsonDepth(text);
  if (depth > JSON_PARSE_DEPTH) {
    return {
      markdown: fenced(text, "json"),
      extractor: "json-fence",
      diagnostics: [
        diagnostic(
          "capture_json_too_deep",
          "warning",
          `the JSON is nested ${depth} levels deep, over the ${JSON_PARSE_DEPTH} parsed; kept as written in a code block`,
        ),
      ],
    };
  }
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (error) {
    const reason = neutraliseLine(error instanceof Error ? error.message : String(error));
    return {
      markdown: fenced(text, "json"),
      extractor: "json-fence",
      diagnostics: [
        diagnostic(
          "capture_json_invalid",
          "warning",
          `the file is not valid JSON (${reason}); kept as written in a code block`,
        ),
      ],
    };
  }
  const redactions = redactTree(value);
  const found = Object.keys(redactions).length > 0 ? { redactions } : {};
  const name = recordName(value);
  const title = name === undefined ? {} : { title: name };
  const nodes = countNodes(value, JSON_LIST_NODES);
  if (depth > JSON_LIST_DEPTH || nodes > JSON_LIST_NODES) {
    const why =
      depth > JSON_LIST_DEPTH
        ? `nested ${depth} levels deep, over the ${JSON_LIST_DEPTH} shown as lists`
        : `more than ${JSON_LIST_NODES} values, over those shown as lists`;
    return {
      markdown: fenced(neutraliseText(JSON.stringify(value, null, 2)), "json"),
      extractor: "json-pretty",
      ...title,
      ...found,
      diagnostics: [
        diagnostic(
          "capture_json_as_block",
          "info",
          `the JSON is ${why}; kept as a pretty-printed code block`,
        ),
      ],
    };
  }
  return {
    markdown: renderDocument(value),
    extractor: "json-markdown",
    ...title,
    ...found,
    diagnostics: [],
  };
}
