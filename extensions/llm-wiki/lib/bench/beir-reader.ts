/**
 * Reading a collection in the BEIR layout: `corpus.jsonl` (`_id`, `title`,
 * `text`), `queries.jsonl` (`_id`, `text`) and `qrels/test.tsv`
 * (`query-id`, `corpus-id`, `score`, graded scores allowed). Judgments and
 * the judged queries are small and read whole; the corpus can hold hundreds
 * of thousands of documents, so it is only ever streamed, one line at a time.
 * Malformed input is a `BeirInputError` naming the file and line.
 */
import { createReadStream, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** Input that is not a readable BEIR collection; the message is one line for a person. */
export class BeirInputError extends Error {
  override name = "BeirInputError";
}

/** The three files of a BEIR collection, relative to its folder. */
export const BEIR_FILES = {
  corpus: "corpus.jsonl",
  queries: "queries.jsonl",
  qrels: join("qrels", "test.tsv"),
} as const;

/** One corpus document. */
export interface BeirDocument {
  id: string;
  title: string;
  text: string;
}

/** One query to run. */
export interface BeirQuery {
  id: string;
  text: string;
}

/** Grades by corpus id, by query id. */
export type BeirQrels = Map<string, Map<string, number>>;

/** Absolute paths of the collection's files; throws when one is missing. */
export function beirFiles(dir: string): Record<keyof typeof BEIR_FILES, string> {
  const isDir = (path: string) => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  };
  if (!isDir(dir)) throw new BeirInputError(`${dir}: no such folder`);
  const out = {} as Record<keyof typeof BEIR_FILES, string>;
  for (const key of Object.keys(BEIR_FILES) as Array<keyof typeof BEIR_FILES>) {
    const path = join(dir, BEIR_FILES[key]);
    let file = false;
    try {
      file = statSync(path).isFile();
    } catch {
      // Reported below.
    }
    if (!file)
      throw new BeirInputError(`${dir}: missing ${BEIR_FILES[key]} (not a BEIR collection)`);
    out[key] = path;
  }
  return out;
}

/** Non-empty lines of a text file with their 1-based numbers, streamed. */
async function* lines(path: string): AsyncGenerator<{ text: string; number: number }> {
  const stream = createReadStream(path, { encoding: "utf8" });
  // readline does not always surface a read error through its iterator: keep it and rethrow.
  let failure: Error | undefined;
  stream.on("error", (error) => {
    failure = error;
  });
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  try {
    for await (const text of reader) {
      number += 1;
      if (text.trim() !== "") yield { text, number };
    }
  } finally {
    reader.close();
    stream.destroy();
  }
  if (failure) throw new BeirInputError(`${path}: ${failure.message}`);
}

function parseJsonLine(
  label: string,
  line: { text: string; number: number },
): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch {
    throw new BeirInputError(`${label} line ${line.number}: not valid JSON`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new BeirInputError(`${label} line ${line.number}: not a JSON object`);
  return value as Record<string, unknown>;
}

/** `_id` as a string; converters sometimes write numeric ids, which name the same document. */
function idOf(label: string, line: { number: number }, value: unknown): string {
  const id = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
  if (typeof id !== "string" || id === "")
    throw new BeirInputError(`${label} line ${line.number}: "_id" must be a non-empty string`);
  return id;
}

function textOf(label: string, line: { number: number }, value: unknown, field: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string")
    throw new BeirInputError(`${label} line ${line.number}: "${field}" must be a string`);
  return value;
}

/**
 * Reads the judgments. The header line is optional; a score must be a
 * number. Only grades above 0 count as relevant downstream, but every row is
 * kept so the graded gains are exactly those of the file.
 */
export async function readQrels(path: string): Promise<BeirQrels> {
  const label = BEIR_FILES.qrels;
  const qrels: BeirQrels = new Map();
  for await (const line of lines(path)) {
    const fields = line.text.split("\t").map((f) => f.trim());
    if (line.number === 1 && fields[0] === "query-id") continue;
    const [query, doc, score, ...rest] = fields;
    if (!query || !doc || score === undefined || score === "" || rest.length > 0)
      throw new BeirInputError(
        `${label} line ${line.number}: expected query-id, corpus-id and score separated by tabs`,
      );
    const grade = Number(score);
    if (!Number.isFinite(grade))
      throw new BeirInputError(`${label} line ${line.number}: score "${score}" is not a number`);
    const grades = qrels.get(query) ?? new Map<string, number>();
    grades.set(doc, grade);
    qrels.set(query, grades);
  }
  return qrels;
}

/** Lines of a file, counted in raw chunks (a progress total); nothing is parsed or kept. */
export async function countLines(path: string): Promise<number> {
  let count = 0;
  let last = 0x0a;
  for await (const chunk of createReadStream(path)) {
    const bytes = chunk as Buffer;
    for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) count += 1;
    if (bytes.length > 0) last = bytes[bytes.length - 1] ?? 0x0a;
  }
  return last === 0x0a ? count : count + 1;
}

/** Query ids with at least one relevant (grade > 0) judgment: the queries a run scores. */
export function judgedQueryIds(qrels: BeirQrels): Set<string> {
  const out = new Set<string>();
  for (const [query, grades] of qrels) {
    if ([...grades.values()].some((grade) => grade > 0)) out.add(query);
  }
  return out;
}

/**
 * The queries among `wanted`, in file order (so `--limit-queries` is
 * reproducible). A wanted query the file lacks is an error: scoring it 0 or
 * dropping it silently would both misreport the collection.
 */
export async function readQueries(path: string, wanted: ReadonlySet<string>): Promise<BeirQuery[]> {
  const label = BEIR_FILES.queries;
  const found = new Map<string, BeirQuery>();
  for await (const line of lines(path)) {
    const row = parseJsonLine(label, line);
    const id = idOf(label, line, row._id);
    if (!wanted.has(id) || found.has(id)) continue;
    found.set(id, { id, text: textOf(label, line, row.text, "text") });
  }
  for (const id of wanted) {
    if (!found.has(id))
      throw new BeirInputError(`${BEIR_FILES.qrels} judges query "${id}", which ${label} lacks`);
  }
  return [...found.values()];
}

/** The corpus, one document at a time; nothing but the current line is held. */
export async function* readCorpus(path: string): AsyncGenerator<BeirDocument> {
  const label = BEIR_FILES.corpus;
  for await (const line of lines(path)) {
    const row = parseJsonLine(label, line);
    yield {
      id: idOf(label, line, row._id),
      title: textOf(label, line, row.title, "title"),
      text: textOf(label, line, row.text, "text"),
    };
  }
}
