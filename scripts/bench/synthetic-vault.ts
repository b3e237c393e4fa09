/**
 * A deterministic synthetic vault for benchmarks: N pages of ~300 words over
 * a fixed vocabulary, spread over every page type, with links between them;
 * every fourth page also declares a typed relation to its first link, so
 * recall's assembly has a relation graph to walk. The same N always
 * produces the same bytes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mulberry32 } from "../test-models/mulberry32.ts";

const TYPES = [
  ["entity", "entities"],
  ["concept", "concepts"],
  ["synthesis", "syntheses"],
  ["analysis", "analyses"],
  ["source", "sources"],
  ["requirement", "requirements"],
  ["skill", "skills"],
  ["case", "cases"],
] as const;

const WORDS = (
  "cache index query vector token shard replica leader follower quorum commit log snapshot compaction " +
  "latency throughput budget timeout retry backoff jitter circuit breaker queue worker scheduler cron " +
  "deploy rollback canary feature flag config secret rotation certificate proxy gateway router " +
  "schema migration column table row transaction isolation deadlock lock mutex semaphore channel " +
  "parser lexer grammar compiler linker bundle module package dependency version release changelog " +
  "test fixture mock stub coverage benchmark profile flame graph memory heap leak garbage collector " +
  "thread pool async await promise future stream buffer backpressure socket websocket http grpc " +
  "auth token session cookie oauth scope permission role audit trail metric trace span alert " +
  "storage blob bucket object disk volume mount replica backup restore archive retention policy " +
  "search ranking relevance recall precision embedding rerank fusion lexical semantic hybrid"
).split(" ");

const RELATION_TYPES = [
  "supports",
  "contradicts",
  "qualifies",
  "supersedes",
  "derived_from",
  "applies_under",
] as const;

/** Id of synthetic page `i` (stable across runs). */
export function syntheticPageId(i: number): string {
  const [, folder] = TYPES[i % TYPES.length] ?? TYPES[0];
  return `${folder}/page-${String(i).padStart(6, "0")}`;
}

/** The full text of synthetic page `i`. */
export function syntheticPage(i: number, pages: number, variant = 0): string {
  const rand = mulberry32(i * 7919 + 17 + variant * 104_729);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)] ?? "cache";
  const [type] = TYPES[i % TYPES.length] ?? TYPES[0];
  const title = `${pick()} ${pick()} ${pick()} ${i}`;
  const sentences: string[] = [];
  for (let s = 0; s < 30; s += 1) {
    const words = Array.from({ length: 10 }, pick);
    sentences.push(`${words.join(" ")}.`);
  }
  const targets = [1, 2, 3].map((k) => syntheticPageId((i * 31 + k * 977) % pages));
  const links = targets.map((id) => `[[${id}]]`);
  const kind = RELATION_TYPES[(i / 4) % RELATION_TYPES.length] ?? "supports";
  const related = i % 4 === 0 && targets[0] !== syntheticPageId(i);
  const scope = kind === "applies_under" ? `, scope: component ${i % 97}` : "";
  return [
    "---",
    `type: ${type}`,
    `title: ${title}`,
    `description: Notes on ${pick()} and ${pick()} for component ${i % 97}.`,
    `tags: [${pick()}, ${pick()}]`,
    "status: stable",
    ...(related ? [`relations: [{target: ${targets[0]}, type: ${kind}${scope}}]`] : []),
    "---",
    "",
    `# ${title}`,
    "",
    sentences.slice(0, 15).join(" "),
    "",
    `See ${links.join(", ")}.`,
    "",
    sentences.slice(15).join(" "),
    "",
  ].join("\n");
}

/** Writes a synthetic vault of `pages` pages under `root/.llm-wiki`. */
export function writeSyntheticVault(root: string, pages: number): void {
  const dir = join(root, ".llm-wiki");
  mkdirSync(join(dir, "meta"), { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    `${JSON.stringify({ name: `synthetic-${pages}`, mode: "project", vault_id: `synthetic-${pages}`, knowledge_format: "okf" })}\n`,
  );
  for (const [, folder] of TYPES) mkdirSync(join(dir, "wiki", folder), { recursive: true });
  for (let i = 0; i < pages; i += 1) {
    writeFileSync(join(dir, "wiki", `${syntheticPageId(i)}.md`), syntheticPage(i, pages));
  }
}
