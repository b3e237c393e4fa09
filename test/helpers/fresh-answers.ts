/**
 * A fresh process's answers from a vault's index as it is: a new service,
 * lexical recall of each query with no refresh of changed pages first,
 * printed as one JSON object `{ query: [page ids] }`. Exits non-zero on an
 * error diagnostic. Run as `node fresh-answers.js ROOT QUERY...`, bundled
 * by the spec that starts it (test/index-recovery.test.ts): a bundle starts
 * in a fraction of the time the TypeScript sources take to load.
 */
import { createWikiService } from "../../extensions/llm-wiki/lib/wiki-service.ts";

const [root, ...queries] = process.argv.slice(2);
if (!root) throw new Error("usage: fresh-answers ROOT QUERY...");
const wiki = createWikiService({ cwd: root, vault: root });
const out: Record<string, string[]> = {};
for (const query of queries) {
  const result = await wiki.recall({ query, mode: "lexical", refreshIndex: false });
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  out[query] = result.results.map((r) => r.id);
}
await wiki.close();
process.stdout.write(JSON.stringify(out));
