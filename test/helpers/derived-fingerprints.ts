/**
 * What the on-disk caches derive from a page, fingerprinted per page: the
 * registry record's parse (metadata, diagnostics, links), the name table's
 * keys, and the text the search index holds for it (a generation of an older
 * INDEX_FORMAT answers until the next update rebuilds it). An upgrade reads caches an older build wrote; when the same
 * bytes derive something else, the cache's version must change or the old
 * derivation is served (test/derived-versions.test.ts).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { INDEX_FORMAT, mirrorText } from "../../extensions/llm-wiki/lib/index/mirror.ts";
import { pageNameKeys } from "../../extensions/llm-wiki/lib/name-match.ts";
import { extractLinks } from "../../extensions/llm-wiki/lib/vault/links.ts";
import { pageMeta, parsePage } from "../../extensions/llm-wiki/lib/vault/page.ts";
import { CACHE_VERSION } from "../../extensions/llm-wiki/lib/vault/registry-cache.ts";
import { NAMES_VERSION } from "../../extensions/llm-wiki/lib/vault/registry-names.ts";

/** The committed record: each cache's version and, per page content, what it derived. */
export interface DerivedRecord {
  registryCache: { version: number; pages: Record<string, string> };
  names: { version: number; pages: Record<string, string> };
  index: { version: number; pages: Record<string, string> };
}

const short = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** Every page file under the repository's test fixtures, with its id and path in its vault. */
export function fixturePages(root: string): Array<{ id: string; rel: string; bytes: Buffer }> {
  const out: Array<{ id: string; rel: string; bytes: Buffer }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (entry.name.endsWith(".md")) {
        const path = relative(root, abs).split("\\").join("/");
        const at = path.lastIndexOf("/wiki/");
        if (at < 0) continue;
        const rel = path.slice(at + 1);
        out.push({ id: rel.slice("wiki/".length, -".md".length), rel, bytes: readFileSync(abs) });
      }
    }
  };
  walk(root);
  return out;
}

/** Each page's fingerprints under the current code, keyed by its path and content. */
export function derive(pages: ReturnType<typeof fixturePages>): DerivedRecord {
  const record: DerivedRecord = {
    registryCache: { version: CACHE_VERSION, pages: {} },
    names: { version: NAMES_VERSION, pages: {} },
    index: { version: INDEX_FORMAT, pages: {} },
  };
  for (const { id, rel, bytes } of pages) {
    const key = short(`${rel}\n${short(bytes.toString("binary"))}`);
    const result = parsePage(id, rel, bytes);
    const parsed = result.ok
      ? {
          meta: pageMeta(result.page),
          links: extractLinks(id, result.page.body),
          diagnostics: result.diagnostics.map((d) => d.code),
        }
      : { diagnostics: result.diagnostics.map((d) => d.code) };
    record.registryCache.pages[key] = short(JSON.stringify(parsed));
    record.names.pages[key] = result.ok
      ? short(JSON.stringify(pageNameKeys(id, pageMeta(result.page))))
      : "-";
    record.index.pages[key] = result.ok ? short(mirrorText(result.page, true)) : "-";
  }
  return record;
}
