/**
 * Spec: the stages of a capture, each alone (capture-source.ts runs them in
 * order). Read refuses before anything is decoded; decode tells a PDF from
 * text and a format from its name, type or content; extract turns each
 * format into Markdown; redact takes secrets out of a packet's parts and
 * decides whether the original may be kept; label names the source;
 * the manifest says what the packet holds. Nothing here writes a vault
 * except the read of a file.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeSource } from "../extensions/llm-wiki/lib/capture/capture-decode.ts";
import {
  checkExtractedSize,
  extractPdf,
  extractText,
} from "../extensions/llm-wiki/lib/capture/capture-extract.ts";
import { labelSource } from "../extensions/llm-wiki/lib/capture/capture-label.ts";
import { type ReadContext, readSource } from "../extensions/llm-wiki/lib/capture/capture-read.ts";
import {
  redactExtracted,
  redactOriginal,
} from "../extensions/llm-wiki/lib/capture/capture-redact.ts";
import { buildManifest, packetContent } from "../extensions/llm-wiki/lib/capture/capture-store.ts";
import {
  type CapturedDocument,
  DEFAULT_CAPTURE_LIMITS,
  type ExtractedText,
  type SourceRead,
} from "../extensions/llm-wiki/lib/capture/capture-types.ts";
import { WikiError } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { ALNUM, CorpusRandom } from "./helpers/corpus-random.ts";
import { makePdf } from "./helpers/pdf-fixture.ts";
import { randomWord, randomWords } from "./helpers/random-text.ts";
import { corpusSeed, corpusSeedNote } from "./helpers/secret-corpus.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

/** The code of the `WikiError` a stage throws. */
async function refusal(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (error) {
    if (error instanceof WikiError) return error.diagnostic.code;
    throw error;
  }
  throw new Error("the stage did not refuse");
}

function context(cwd: string, roots: string[] = [cwd]): ReadContext {
  return { cwd, roots, limits: DEFAULT_CAPTURE_LIMITS };
}

/** A file's read, as stage read hands it on. */
function fileRead(name: string, text: string | Uint8Array): SourceRead {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  const extension = /\.([a-z]+)$/.exec(name)?.[1];
  return {
    kind: "file",
    origin: `/docs/${name}`,
    name: `/docs/${name}`,
    bytes,
    what: name,
    inputBytes: bytes.byteLength,
    ...(extension ? { extension } : {}),
  };
}

/** A machine-made key beside a secret-looking name, drawn afresh each run. */
function freshKey(): { key: string; note: string } {
  const seed = corpusSeed();
  return { key: new CorpusRandom(seed).mixed(ALNUM, 32), note: corpusSeedNote(seed) };
}

describe("capture stage read", () => {
  it("refuses anything but exactly one source, and a title of more than one line", async () => {
    const cwd = makeTempDir();
    const text = randomWords(3);
    expect(await refusal(() => readSource({}, context(cwd)))).toBe("capture_invalid_input");
    expect(await refusal(() => readSource({ text, file: "a.md" }, context(cwd)))).toBe(
      "capture_invalid_input",
    );
    expect(await refusal(() => readSource({ text, title: "a\nb" }, context(cwd)))).toBe(
      "invalid_input",
    );
  });

  it("refuses pasted text over the limit or with control bytes, and a file outside the roots", async () => {
    const cwd = makeTempDir();
    const outside = makeTempDir();
    writeFileSync(join(outside, "notes.md"), randomWords(4));
    const small = { ...context(cwd), limits: { ...DEFAULT_CAPTURE_LIMITS, maxTextBytes: 8 } };
    expect(await refusal(() => readSource({ text: randomWords(6) }, small))).toBe(
      "capture_too_large",
    );
    expect(await refusal(() => readSource({ text: `a\u001b[31mb` }, context(cwd)))).not.toBe("");
    expect(await refusal(() => readSource({ file: join(outside, "notes.md") }, context(cwd)))).toBe(
      "capture_path_outside",
    );
  });

  it("reads a file inside a root as bytes, with its real path and extension", async () => {
    const cwd = makeTempDir();
    const body = randomWords(5);
    writeFileSync(join(cwd, "Notes.MD"), body);
    const read = await readSource({ file: "Notes.MD" }, context(cwd));
    expect(read).toMatchObject({ kind: "file", origin: join(cwd, "Notes.MD"), extension: "md" });
    expect(Buffer.from(read.bytes ?? []).toString()).toBe(body);
  });
});

describe("capture stage decode", () => {
  it("keeps a PDF as bytes, by its bytes or by a server's media type", () => {
    const pdf = makePdf({ pages: [[randomWords(3)]] });
    expect(decodeSource(fileRead("paper.bin", pdf)).format).toBe("pdf");
    const typed = { ...fileRead("x", "not really a pdf"), type: "application/pdf" };
    expect(decodeSource(typed).format).toBe("pdf");
  });

  it("tells the format from the name, else the content; pasted text is Markdown", () => {
    const word = randomWord();
    expect(decodeSource(fileRead("a.json", `{"a": "${word}"}`)).format).toBe("json");
    expect(decodeSource(fileRead("page", `<!doctype html><p>${word}</p>`)).format).toBe("html");
    expect(decodeSource(fileRead("feed", `<?xml version="1.0"?><a>${word}</a>`)).format).toBe(
      "xml",
    );
    expect(decodeSource(fileRead("notes.txt", word)).format).toBe("text");
    const pasted: SourceRead = {
      kind: "text",
      origin: null,
      name: "",
      text: word,
      what: "the text",
      inputBytes: word.length,
    };
    expect(decodeSource(pasted)).toEqual({ format: "markdown", text: word });
  });

  it("refuses bytes that are not text", async () => {
    expect(await refusal(() => decodeSource(fileRead("x.txt", new Uint8Array([65, 0, 66]))))).toBe(
      "capture_binary",
    );
  });
});

describe("capture stage extract", () => {
  it("converts each text format to Markdown and finds the document's own title", async () => {
    const [title, word, value] = [randomWords(2), randomWord(), randomWord()];
    const cases = [
      { format: "html", text: `<title>${title}</title><p>${word}</p>`, has: word },
      { format: "json", text: `{"${word}": "${value}"}`, has: `## ${word}` },
      { format: "xml", text: `<doc><${word}>${value}</${word}></doc>`, has: value },
      { format: "markdown", text: `# ${title}\n\n${word}`, has: word },
      { format: "text", text: word, has: word },
    ] as const;
    for (const c of cases) {
      const out = await extractText({ format: c.format, text: c.text, counts: {} });
      expect(out.extraction.markdown, c.format).toContain(c.has);
      expect(out.extraction.markdown.endsWith("\n"), c.format).toBe(true);
    }
    const html = await extractText({ format: "html", text: cases[0].text, counts: {} });
    expect(html.extraction).toMatchObject({ extractor: "node-html-markdown", title });
    const md = await extractText({ format: "markdown", text: cases[3].text, counts: {} });
    expect(md.extraction).toMatchObject({ extractor: "passthrough", title });
  });

  it("reads a PDF page by page, with its title, and keeps its bytes when no secret is in it", async () => {
    const [title, one, two] = [randomWords(2), randomWords(3), randomWords(3)];
    const bytes = makePdf({ pages: [[one], [two]], info: { title } });
    const doc = await extractPdf({ format: "pdf", bytes }, DEFAULT_CAPTURE_LIMITS, undefined);
    expect(doc.markdown).toBe(`## Page 1\n\n${one}\n\n## Page 2\n\n${two}\n`);
    expect(doc.extraction.title).toBe(title);
    expect(doc.original).toEqual(bytes);
    expect(doc.document?.pages).toBe(2);
  });

  it("refuses Markdown over the text limit", async () => {
    const doc = { markdown: randomWords(10) } as CapturedDocument;
    const limits = { ...DEFAULT_CAPTURE_LIMITS, maxTextBytes: 5 };
    expect(await refusal(() => checkExtractedSize(doc, limits))).toBe("capture_too_large");
  });
});

describe("capture stage redact", () => {
  it("redacts the original before conversion, and the Markdown made from it stays clean", async () => {
    const { key, note } = freshKey();
    const html = `<p>api_key = ${key}</p><p>${randomWords(3)}</p>`;
    const original = redactOriginal({ format: "html", text: html });
    expect(original.text, note).not.toContain(key);
    expect(original.counts, note).toEqual({ secret_assignment: 1 });
    const doc = redactExtracted("file", await extractText(original));
    expect(doc.markdown, note).not.toContain(key);
    expect(doc.original, note).toBe(original.text);
    expect(doc.counts, note).toEqual({ secret_assignment: 1 });
  });

  it("withholds an original whose secret showed only once converted, but never pasted text's", () => {
    const { key, note } = freshKey();
    const text = `{"api_key": "${randomWord()}"}`;
    const markdown = `## api_key\n\n[REDACTED:secret_assignment]\n`;
    // What a converter reports when it found a secret beside its key that the text scan did not.
    const extracted = (): ExtractedText => ({
      original: { format: "json", text, counts: {} },
      extraction: { markdown, extractor: "json-markdown", redactions: { secret_assignment: 1 } },
    });
    const file = redactExtracted("file", extracted());
    expect(file.original).toBeUndefined();
    expect(file.extraction.diagnostics?.map((d) => d.code)).toEqual(["capture_original_withheld"]);
    expect(file.counts).toEqual({ secret_assignment: 1 });
    expect(redactExtracted("text", extracted()).original).toBe(text);
    // A secret the Markdown still shows (an escape undone) withholds the original too.
    const leaky = extracted();
    leaky.extraction = {
      markdown: `api_key = ${key}\n`,
      extractor: "json-markdown",
      redactions: {},
    };
    const shown = redactExtracted("file", leaky);
    expect(shown.original, note).toBeUndefined();
    expect(shown.markdown, note).not.toContain(key);
  });
});

describe("capture stage label and the manifest", () => {
  it("takes the caller's title, else the document's, else the file name; the origin redacted", () => {
    const { key, note } = freshKey();
    const own = randomWords(2);
    const doc = {
      format: "html",
      extraction: { markdown: "", extractor: "x", title: own },
      markdown: "",
      originalText: "",
      counts: {},
    } satisfies CapturedDocument;
    const read: SourceRead = {
      ...fileRead("page.html", ""),
      kind: "url",
      origin: `https://example.org/p?access_token=${key}`,
    };
    const asked = randomWords(3);
    expect(labelSource(asked, read, doc).title).toBe(asked);
    expect(labelSource(undefined, read, doc).title).toBe(own);
    const labels = labelSource("", read, { ...doc, extraction: { markdown: "", extractor: "x" } });
    expect(labels.title, note).not.toContain(key);
    expect(labels.origin, note).not.toContain(key);
    expect(Object.keys(labels.counts).length, note).toBeGreaterThan(0);
  });

  it("names a withheld original in the manifest, and describes only the files written", () => {
    const read = fileRead("data.json", "{}");
    const markdown = `${randomWords(4)}\n`;
    const doc: CapturedDocument = {
      format: "json",
      extraction: { markdown, extractor: "json-markdown" },
      markdown,
      originalText: "{}",
      counts: { secret_assignment: 1 },
    };
    const labels = { title: randomWords(2), origin: "/docs/data.json", counts: {} };
    const now = new Date();
    const parts = { read, document: doc, labels, redactions: doc.counts, now };
    const content = packetContent(read, doc);
    expect(content).toEqual({ source: markdown });
    const manifest = buildManifest("SRC-2025-01-01-001", content, parts);
    expect(manifest).toMatchObject({
      kind: "file",
      file_path: "/docs/data.json",
      format: "json",
      mime: "application/json",
      original_withheld: "secrets",
      files: { source: "source.md" },
      redactions: { secret_assignment: 1 },
    });
    const keptDoc = { ...doc, original: "{}" };
    const kept = packetContent(read, keptDoc);
    expect(kept.original?.name).toBe("original.json");
    const keptManifest = buildManifest("SRC-2025-01-01-002", kept, { ...parts, document: keptDoc });
    expect(keptManifest.original_withheld).toBeUndefined();
    expect(keptManifest.files).toEqual({ source: "source.md", original: "original.json" });
  });
});
