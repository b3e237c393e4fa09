/**
 * Finding a secret on disk, for the redaction specs: every file and folder
 * name under a folder, every file's bytes (as UTF-8 and lowercased, JSON- and
 * URL-escaped forms too), and each SQLite file read through SQL (so the
 * write-ahead log and compressed pages count) with its full-text terms.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { SecretCase } from "./secret-corpus.ts";

/** The forms a secret could be stored in: as is, lowercased (FTS tokens), JSON- and URL-escaped. */
function formsOf(c: SecretCase): string[] {
  const forms = [c.secret, c.secret.toLowerCase(), JSON.stringify(c.secret).slice(1, -1)];
  forms.push(encodeURIComponent(c.secret), ...(c.pieces ?? []));
  return [...new Set(forms)].filter((f) => f.length >= 8);
}

/** Distinctive runs of a secret (letters and digits mixed, ≥ 10 characters), lowercased. */
function tokensOf(c: SecretCase): string[] {
  return (c.secret.toLowerCase().match(/[a-z0-9]{10,}/g) ?? []).filter(
    (t) => /[0-9]/.test(t) && /[a-z]/.test(t),
  );
}

/** Every value of every table of a SQLite file, through SQL (the WAL included), and its FTS terms. */
function sqliteText(file: string): { text: string; terms: string[] } {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const parts: string[] = [];
    const terms: string[] = [];
    const tables = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
      .all() as Array<{ name: string; sql: string | null }>;
    for (const { name, sql } of tables) {
      const quoted = `"${name.replaceAll('"', '""')}"`;
      if (/using\s+fts5/i.test(sql ?? "")) {
        const vocab = `vocab_${terms.length}_${name.replace(/\W/g, "_")}`;
        db.exec(`CREATE VIRTUAL TABLE temp."${vocab}" USING fts5vocab(main, ${quoted}, 'row')`);
        for (const row of db.prepare(`SELECT term FROM temp."${vocab}"`).all()) {
          terms.push(String((row as { term: unknown }).term));
        }
        continue;
      }
      if (/^create virtual/i.test(sql ?? "")) continue;
      for (const row of db.prepare(`SELECT * FROM ${quoted}`).all()) {
        for (const value of Object.values(row as Record<string, unknown>)) {
          parts.push(
            value instanceof Uint8Array ? Buffer.from(value).toString("utf8") : String(value),
          );
        }
      }
    }
    return { text: parts.join("\n"), terms };
  } finally {
    db.close();
  }
}

/**
 * Where a corpus secret is found under `dir` (`.llm-wiki/`): in a file or
 * folder name, a file's bytes (as UTF-8 and lowercased), a SQLite file's
 * values read through SQL, or its full-text index's terms. `exempt` lists
 * vault-relative files a person wrote by hand. One line per leak, naming
 * the kind and the place, never the value.
 */
export function leaksUnder(
  dir: string,
  corpus: readonly SecretCase[],
  exempt: ReadonlySet<string> = new Set(),
): string[] {
  const leaks: string[] = [];
  const look = (where: string, text: string) => {
    const lower = text.toLowerCase();
    for (const c of corpus) {
      const form = formsOf(c).find((f) => text.includes(f) || lower.includes(f.toLowerCase()));
      if (form !== undefined) leaks.push(`${c.kind} in ${where}`);
    }
  };
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const abs = join(entry.parentPath, entry.name);
    const rel = relative(dir, abs).split(sep).join("/");
    look(`the name ${rel}`, rel);
    if (!entry.isFile() || exempt.has(rel)) continue;
    look(rel, readFileSync(abs).toString("utf8"));
    if (/\.sqlite$/.test(entry.name)) {
      const { text, terms } = sqliteText(abs);
      look(`${rel} (through SQL)`, text);
      const vocabulary = new Set(terms);
      for (const c of corpus) {
        if (tokensOf(c).some((t) => vocabulary.has(t)))
          leaks.push(`${c.kind} in ${rel} (FTS terms)`);
      }
    }
  }
  return leaks;
}
