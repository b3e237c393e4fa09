/**
 * `pnpm background-model`: builds the background term model automatic recall
 * weighs a vault's words against (extensions/llm-wiki/lib/lexical/
 * background-terms.ts). The text is general software English that any
 * checkout has: the Markdown documents (READMEs, guides, changelogs) and the
 * doc comments of the type declarations of every package the lockfile
 * installs, read in path order, cut into passages of about a page, and
 * tokenized exactly as the index tokenizes. The model is each term's number
 * of passages.
 *
 * Which packages are read is pinned in scripts/background-packages.txt
 * (`name@version` lines), so adding a dependency does not move automatic
 * recall's weights; the same list and lockfile give the same bytes.
 * `--check` exits 1 when the committed model differs from a rebuild (or a
 * listed package is no longer installed); `--repin` rewrites the list from
 * what is installed now and rebuilds.
 */
import {
  type Dirent,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ftsTokens } from "../extensions/llm-wiki/lib/lexical/fts-tokens.ts";
import { writeOrCheck } from "./lib/generated-file.ts";

const root = join(import.meta.dirname, "..");
const store = join(root, "node_modules", ".pnpm");
const out = join(root, "extensions", "llm-wiki", "lib", "lexical", "background-terms.ts");
const pinned = join(root, "scripts", "background-packages.txt");
/** Terms per passage: about one vault page. */
const PASSAGE_TERMS = 200;
/** Terms in fewer passages are left out (typos, hashes, names of one package). */
const MIN_PASSAGES = 3;
const MAX_FILE_BYTES = 2_000_000;

function files(dir: string, into: string[]): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && !entry.name.startsWith(".")) files(path, into);
    } else if (entry.isFile() && (/\.md$/i.test(entry.name) || entry.name.endsWith(".d.ts"))) {
      into.push(path);
    }
  }
}

/** A package folder's `name@version`, or undefined without a readable manifest. */
function identity(dir: string): string | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    if (typeof manifest !== "object" || manifest === null) return undefined;
    const { name, version } = manifest as { name?: unknown; version?: unknown };
    return typeof name === "string" && typeof version === "string"
      ? `${name}@${version}`
      : undefined;
  } catch {
    return undefined;
  }
}

/** The pinned `name@version` set. */
export function pinnedPackages(): Set<string> {
  return new Set(
    readFileSync(pinned, "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#")),
  );
}

/** Every package folder of the store, in name order. */
function installedPackages(): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(store).sort()) {
    const modules = join(store, entry, "node_modules");
    let names: string[];
    try {
      names = readdirSync(modules).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const dirs = name.startsWith("@")
        ? readdirSync(join(modules, name))
            .sort()
            .map((n) => join(modules, name, n))
        : [join(modules, name)];
      // Only the package this store entry holds (others are links to theirs).
      for (const dir of dirs) {
        try {
          if (realpathSync(dir).startsWith(realpathSync(join(store, entry)))) out.push(dir);
        } catch {}
      }
    }
  }
  return out;
}

/** The prose of a file: a document whole, a declaration file's doc comments. */
function prose(path: string, text: string): string {
  if (!path.endsWith(".d.ts")) return text;
  return (text.match(/\/\*\*[\s\S]*?\*\//g) ?? []).join("\n");
}

/** The installed folders of the pinned packages; throws naming any pinned package not installed. */
function packages(pins: Set<string>): string[] {
  // One folder per package: pnpm keeps a copy per peer combination, and a
  // new dependency can add a combination without adding any text.
  const dirs: string[] = [];
  const found = new Set<string>();
  for (const dir of installedPackages()) {
    const id = identity(dir);
    if (id === undefined || !pins.has(id) || found.has(id)) continue;
    found.add(id);
    dirs.push(dir);
  }
  const missing = [...pins].filter((pin) => !found.has(pin));
  if (missing.length > 0) {
    throw new Error(
      `pinned packages not installed: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` (+${missing.length - 5})` : ""}; run pnpm background-model --repin`,
    );
  }
  return dirs;
}

/** Counts every kept term's passages over the pinned packages' text. */
export function buildModel(pins: Set<string> = pinnedPackages()): {
  passages: number;
  packages: number;
  terms: Map<string, number>;
} {
  const dirs = packages(pins);
  const paths: string[] = [];
  for (const dir of dirs) files(dir, paths);
  const seen = new Set<string>();
  const terms = new Map<string, number>();
  let passages = 0;
  for (const path of paths.sort()) {
    const real = realpathSync(path);
    if (seen.has(real)) continue;
    seen.add(real);
    if (statSync(real).size > MAX_FILE_BYTES) continue;
    const tokens = ftsTokens(prose(path, readFileSync(real, "utf8")));
    for (let at = 0; at < tokens.length; at += PASSAGE_TERMS) {
      passages += 1;
      for (const term of new Set(tokens.slice(at, at + PASSAGE_TERMS))) {
        terms.set(term, (terms.get(term) ?? 0) + 1);
      }
    }
  }
  return { passages, packages: dirs.length, terms };
}

/** The generated module's text for `model`. */
export function renderModel(model: ReturnType<typeof buildModel>): string {
  const kept = [...model.terms]
    // Numbers, hashes and ids are nobody's vocabulary.
    .filter(([term, n]) => n >= MIN_PASSAGES && /\p{L}/u.test(term) && !/\d.*\d.*\d/.test(term))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = kept.map(([term, n]) => `${term} ${n}`).join("\n");
  return `/**
 * Generated by scripts/build-background-model.ts; do not edit. How many of
 * ${model.passages} passages of general software English (the documents and
 * declaration comments of ${model.packages} npm packages) hold each index term
 * (stemmed as the index stems), for terms in at least ${MIN_PASSAGES} passages.
 */
export const BACKGROUND_PASSAGES = ${model.passages};
/** "term count" lines, sorted by term. */
export const BACKGROUND_TERMS =
  ${JSON.stringify(lines)};
`;
}

if (import.meta.main) {
  if (process.argv.includes("--repin")) {
    const ids = [...new Set(installedPackages().map(identity))].filter(
      (id): id is string => id !== undefined,
    );
    writeFileSync(
      pinned,
      `# The packages whose documents build the background model (scripts/build-background-model.ts).\n${ids.sort().join("\n")}\n`,
    );
  }
  const text = renderModel(buildModel());
  writeOrCheck(root, out, text, "background model");
}
