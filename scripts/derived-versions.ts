/**
 * Rewrites test/fixtures/derived-versions.json: what each fixture page
 * derives under the current registry-cache and name-table versions
 * (test/derived-versions.test.ts). Run it after raising a version.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { derive, fixturePages } from "../test/helpers/derived-fingerprints.ts";

const root = join(import.meta.dirname, "..");
const record = derive(fixturePages(join(root, "test", "fixtures")));
writeFileSync(
  join(root, "test", "fixtures", "derived-versions.json"),
  `${JSON.stringify(record, null, 1)}\n`,
);
console.log(
  `derived-versions.json: ${Object.keys(record.registryCache.pages).length} pages, registry cache v${record.registryCache.version}, names v${record.names.version}`,
);
