/**
 * XML to readable Markdown: the root and the elements near it that hold
 * other elements become headings, deeper ones nested lists, and an element
 * with text a list item `**name**: text`; all text is kept.
 *
 * Parsing is safe by construction: saxes streams the document and never
 * processes a document type declaration, so no entity is defined, expanded
 * (billion laughs) or fetched (external entities, XXE). A reference to an
 * entity the DTD would have defined stays as written (`&xxe;`). Depth and
 * element count are bounded while parsing; past them, or when the document
 * is not well-formed, it is kept as written in a code block, and a
 * diagnostic says why.
 */
import { SaxesParser } from "saxes";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { type KeyedValue, redactKeyed } from "../safety/keyed-redaction.ts";
import type { RedactionCounts } from "../safety/redact.ts";
import { neutraliseLine, neutraliseText } from "../safety/text.ts";
import { fenced } from "./fence.ts";

/** Deepest element nesting rendered; deeper documents are kept as written. */
export const XML_MAX_DEPTH = 64;
/** Most elements rendered; larger documents are kept as written. */
export const XML_MAX_ELEMENTS = 50_000;
/** Levels of elements shown as headings (root `#` to `####`); deeper ones are lists. */
const HEADING_LEVELS = 4;

/** Markdown made from an XML document. */
export interface XmlMarkdown {
  markdown: string;
  extractor: "xml-markdown" | "xml-fence";
  title?: string;
  diagnostics: Diagnostic[];
  /** Secrets found only beside their element or attribute name: the original still holds them. */
  redactions?: RedactionCounts;
}

interface XmlElement {
  name: string;
  attributes: Array<[string, string]>;
  children: Array<XmlElement | string>;
  /** A leaf's text once redacted (set before rendering). */
  text?: string;
}

/** Thrown from a parser handler to stop at a bound. */
class Bound extends Error {
  readonly code: "capture_xml_too_deep" | "capture_xml_too_many_elements";
  constructor(code: Bound["code"], message: string) {
    super(message);
    this.code = code;
  }
}

interface Parsed {
  root?: XmlElement;
  /** The document type declaration declared something (an internal subset) or named an external one. */
  doctype: boolean;
  /** Entity references left as written because nothing defines them. */
  keptEntities: number;
  /** The first well-formedness error other than an undefined entity. */
  error?: string;
}

function parse(text: string): Parsed {
  const parser = new SaxesParser({ position: true });
  const stack: XmlElement[] = [];
  const result: Parsed = { doctype: false, keptEntities: 0 };
  let elements = 0;
  const addText = (value: string) => {
    const top = stack.at(-1);
    if (top !== undefined && value !== "") top.children.push(value);
  };
  parser.on("error", (error) => {
    // saxes keeps an undefined reference as written and goes on; that is the policy here.
    if (/undefined entity/.test(error.message)) result.keptEntities++;
    else result.error ??= error.message;
  });
  parser.on("doctype", (declaration) => {
    // `<!DOCTYPE html>` declares nothing; a subset (`[…]`) or an external id would.
    if (/\[|\bSYSTEM\b|\bPUBLIC\b/i.test(declaration)) result.doctype = true;
  });
  parser.on("opentag", (tag) => {
    elements++;
    if (elements > XML_MAX_ELEMENTS) {
      throw new Bound(
        "capture_xml_too_many_elements",
        `the XML has more than ${XML_MAX_ELEMENTS} elements`,
      );
    }
    if (stack.length >= XML_MAX_DEPTH) {
      throw new Bound(
        "capture_xml_too_deep",
        `the XML nests elements more than ${XML_MAX_DEPTH} levels deep`,
      );
    }
    const element: XmlElement = {
      name: tag.name,
      attributes: Object.entries(tag.attributes),
      children: [],
    };
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else result.root ??= element;
    stack.push(element);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  parser.on("text", addText);
  parser.on("cdata", addText);
  parser.write(text).close();
  return result;
}

/** Whitespace collapsed within paragraphs; paragraph breaks (blank lines) kept. */
function paragraphs(text: string): string[] {
  return neutraliseText(text)
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter((p) => p !== "");
}

function textOf(element: XmlElement): string {
  if (element.text !== undefined) return element.text;
  return element.children.map((c) => (typeof c === "string" ? c : ` ${textOf(c)} `)).join("");
}

function label(element: XmlElement): string {
  const name = neutraliseLine(element.name);
  if (element.attributes.length === 0) return name;
  const attrs = element.attributes.map(([k, v]) => `${neutraliseLine(k)}="${neutraliseLine(v)}"`);
  return `${name} (${attrs.join(", ")})`;
}

function elementChildren(element: XmlElement): XmlElement[] {
  return element.children.filter((c): c is XmlElement => typeof c !== "string");
}

/** An element shown as its text: no child elements, or text mixed with inline ones. */
function isLeaf(element: XmlElement): boolean {
  if (elementChildren(element).length === 0) return true;
  return element.children.some((c) => typeof c === "string" && c.trim() !== "");
}

function renderItem(element: XmlElement, indent: string, out: string[]): void {
  if (isLeaf(element)) {
    const text = paragraphs(textOf(element));
    const head = `${indent}- **${label(element)}**`;
    if (text.length === 0) out.push(head);
    else out.push(`${head}: ${text.join(`\n\n${indent}  `)}`);
    return;
  }
  out.push(`${indent}- **${label(element)}**`);
  for (const child of elementChildren(element)) renderItem(child, `${indent}  `, out);
}

function renderSection(element: XmlElement, level: number, out: string[]): void {
  out.push(`${"#".repeat(level)} ${label(element)}`, "");
  if (isLeaf(element)) {
    const text = paragraphs(textOf(element));
    out.push(...(text.length === 0 ? ["_(empty)_"] : text.flatMap((p) => [p, ""])));
    if (text.length > 0) out.pop();
    out.push("");
    return;
  }
  let listed = false;
  for (const child of elementChildren(element)) {
    if (level < HEADING_LEVELS && !isLeaf(child)) {
      if (listed) out.push("");
      listed = false;
      renderSection(child, level + 1, out);
    } else {
      renderItem(child, "", out);
      listed = true;
    }
  }
  if (listed) out.push("");
}

/**
 * Redacts each leaf's text beside its element's name and each attribute
 * beside its own (`<password>…</password>` is a secret only by its name).
 */
function redactTree(root: XmlElement): RedactionCounts {
  const pairs: KeyedValue[] = [];
  const setters: Array<(value: string) => void> = [];
  const stack: XmlElement[] = [root];
  while (stack.length > 0) {
    const element = stack.pop() as XmlElement;
    element.attributes.forEach(([name, value], i) => {
      pairs.push({ key: name, value });
      setters.push((redacted) => {
        element.attributes[i] = [name, redacted];
      });
    });
    if (isLeaf(element)) {
      pairs.push({ key: element.name, value: textOf(element) });
      setters.push((redacted) => {
        element.text = redacted;
      });
    } else stack.push(...elementChildren(element));
  }
  const { values, counts } = redactKeyed(pairs);
  values.forEach((value, i) => {
    if (value !== pairs[i]?.value) setters[i]?.(value);
  });
  return counts;
}

/** The text of the first `title` element near the top (RSS, Atom, DocBook and the like). */
function findTitle(root: XmlElement): string | undefined {
  const queue: Array<[XmlElement, number]> = [[root, 0]];
  // An index, not shift(): a root with 50,000 children must not cost 50,000² moves.
  for (let i = 0; i < queue.length; i++) {
    const [element, depth] = queue[i] as [XmlElement, number];
    if (/(^|:)title$/i.test(element.name)) {
      const title = neutraliseLine(textOf(element));
      if (title !== "") return title;
    }
    if (depth < 3) for (const child of elementChildren(element)) queue.push([child, depth + 1]);
  }
  return undefined;
}

function keptAsWritten(text: string, code: string, why: string): XmlMarkdown {
  return {
    markdown: fenced(text, "xml"),
    extractor: "xml-fence",
    diagnostics: [diagnostic(code, "warning", `${why}; kept as written in a code block`)],
  };
}

/** Converts XML text to Markdown, or keeps it as written when it cannot be read safely. */
export function xmlToMarkdown(text: string): XmlMarkdown {
  let parsed: Parsed;
  try {
    parsed = parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    if (error instanceof Bound) return keptAsWritten(text, error.code, error.message);
    const reason = neutraliseLine(error instanceof Error ? error.message : String(error));
    return keptAsWritten(text, "capture_xml_invalid", `the XML is not well-formed (${reason})`);
  }
  if (parsed.error !== undefined || parsed.root === undefined) {
    const reason = neutraliseLine(parsed.error ?? "no root element");
    return keptAsWritten(text, "capture_xml_invalid", `the XML is not well-formed (${reason})`);
  }
  const diagnostics: Diagnostic[] = [];
  if (parsed.doctype || parsed.keptEntities > 0) {
    diagnostics.push(
      diagnostic(
        "capture_xml_dtd_ignored",
        "warning",
        `the document type declaration was not processed: no entity was expanded and nothing it names was read or fetched${
          parsed.keptEntities > 0
            ? `; ${parsed.keptEntities} reference(s) to undefined entities are kept as written`
            : ""
        }`,
      ),
    );
  }
  const redactions = redactTree(parsed.root);
  const out: string[] = [];
  renderSection(parsed.root, 1, out);
  const title = findTitle(parsed.root);
  return {
    markdown: `${out
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trimEnd()}\n`,
    extractor: "xml-markdown",
    ...(title === undefined ? {} : { title }),
    ...(Object.keys(redactions).length > 0 ? { redactions } : {}),
    diagnostics,
  };
}
