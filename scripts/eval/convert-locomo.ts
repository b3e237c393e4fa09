/**
 * `node scripts/eval/convert-locomo.ts SRC [--out DIR]`: converts LoCoMo
 * (github.com/snap-research/locomo) into the BEIR layout `llm-wiki bench
 * beir` and `pnpm benchmark:beir` read — `corpus.jsonl` (one document per
 * conversation turn), `queries.jsonl` (the QA questions with evidence),
 * `qrels/test.tsv` (a question's evidence turns, grade 1) — plus a README
 * saying what was left out. SRC is the repository's folder (its
 * `data/multimodal_dialog/locomo10_v2/` or `data/locomo10.json`), a folder
 * of `<id>.json` conversations, or one JSON file of either shape (see
 * locomo.ts). DIR defaults to `.cache/eval/locomo` in the checkout, which
 * git ignores.
 *
 * Licence: the snapshot carries no licence file; the dataset is distributed
 * elsewhere under CC BY-NC 4.0 (attribution, non-commercial). Convert it for
 * your own evaluation; never commit the output.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import {
  convertLocomo,
  type LocomoCollection,
  type LocomoConversation,
  LocomoInputError,
  parseLocomo,
} from "./locomo.ts";

const root = join(import.meta.dirname, "..", "..");

/** Where the converted collection goes unless `--out` says otherwise (gitignored). */
export const DEFAULT_LOCOMO_OUT = join(root, ".cache", "eval", "locomo");

const isDir = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** The JSON files SRC stands for, in a stable order (numeric ids by number). */
export function locomoSources(src: string): string[] {
  if (!isDir(src)) return [src];
  const v2 = join(src, "data", "multimodal_dialog", "locomo10_v2");
  if (isDir(v2)) return locomoSources(v2);
  const whole = join(src, "data", "locomo10.json");
  try {
    if (statSync(whole).isFile()) return [whole];
  } catch {
    // Not the repository's folder: a folder of conversation files.
  }
  const files = readdirSync(src)
    .filter((name) => name.endsWith(".json"))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((name) => join(src, name));
  if (files.length === 0) throw new LocomoInputError(`${src}: no .json file of LoCoMo found`);
  return files;
}

/** Reads and converts the conversations of SRC. */
export function readLocomo(src: string): LocomoCollection {
  const conversations: LocomoConversation[] = [];
  for (const file of locomoSources(src)) {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new LocomoInputError(`${file}: ${(error as Error).message}`);
    }
    conversations.push(...parseLocomo(value, basename(file, ".json")));
  }
  return convertLocomo(conversations);
}

/** Writes the collection in the BEIR layout into `out` (created; its three files replaced). */
export function writeBeirCollection(out: string, collection: LocomoCollection): void {
  mkdirSync(join(out, "qrels"), { recursive: true });
  const jsonl = (rows: readonly object[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join("");
  writeFileSync(join(out, "corpus.jsonl"), jsonl(collection.corpus));
  writeFileSync(join(out, "queries.jsonl"), jsonl(collection.queries));
  writeFileSync(
    join(out, "qrels", "test.tsv"),
    `query-id\tcorpus-id\tscore\n${collection.qrels.map((r) => `${r.join("\t")}\n`).join("")}`,
  );
  const s = collection.stats;
  writeFileSync(
    join(out, "README.md"),
    [
      "LoCoMo (Maharana et al., ACL 2024; github.com/snap-research/locomo) in the BEIR layout,",
      "written by scripts/eval/convert-locomo.ts. Licence: the source carries no licence file; the",
      "dataset is distributed elsewhere under CC BY-NC 4.0 (attribution, non-commercial).",
      "For evaluation only; do not commit or redistribute.",
      "",
      `Documents: ${s.turns} turns of ${s.conversations} conversations (id <conversation>:<dia_id>;`,
      "title: speaker and session date; text: the turn, plus its image caption if any).",
      `Queries: ${s.judged} of ${s.questions} questions, judged by their evidence turns (grade 1).`,
      `Left out: ${s.leftOutUnanswerable} adversarial questions (category 5: the conversation holds`,
      `no answer), ${s.leftOutNoEvidence} whose evidence names no turn. Evidence ids naming no turn:`,
      `${s.unresolvedEvidence}; duplicate turns dropped: ${s.duplicateTurns}.`,
      "",
    ].join("\n"),
  );
}

/** A one-line account of the conversion. */
export function conversionSummary(out: string, c: LocomoCollection): string {
  const s = c.stats;
  return `LoCoMo → ${out}: ${c.corpus.length} turns of ${s.conversations} conversations, ${s.judged} of ${s.questions} questions judged (left out: ${s.leftOutUnanswerable} unanswerable, category 5; ${s.leftOutNoEvidence} with no evidence turn); ${s.unresolvedEvidence} evidence ids name no turn${s.unresolvedExamples.length > 0 ? ` (${s.unresolvedExamples.slice(0, 3).join("; ")})` : ""}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--out");
  const out = at >= 0 ? args[at + 1] : DEFAULT_LOCOMO_OUT;
  const positional = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
  const [src, ...extra] = positional;
  if (!src || !out || extra.length > 0 || src.startsWith("--")) {
    process.stderr.write("usage: node scripts/eval/convert-locomo.ts SRC [--out DIR]\n");
    process.exit(2);
  }
  try {
    const collection = readLocomo(src);
    writeBeirCollection(out, collection);
    process.stdout.write(`${conversionSummary(out, collection)}\n`);
  } catch (error) {
    if (!(error instanceof LocomoInputError)) throw error;
    process.stderr.write(`convert-locomo: ${error.message}\n`);
    process.exit(1);
  }
}
