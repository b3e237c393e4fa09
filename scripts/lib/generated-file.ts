/**
 * The end of every script that generates a committed file (the background
 * model, the English and software-name stems): write it, or with `--check`
 * say whether the committed file is current and exit 1 when it is not.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";

/** Writes `text` to `out` (or checks it, under `--check`), naming it `what` and paths from `root`. */
export function writeOrCheck(root: string, out: string, text: string, what: string): void {
  if (process.argv.includes("--check")) {
    const same = readFileSync(out, "utf8") === text;
    process.stdout.write(same ? `${what} is current\n` : `${what} differs\n`);
    process.exit(same ? 0 : 1);
  }
  writeFileSync(out, text);
  process.stdout.write(`wrote ${relative(root, out)} (${text.length} bytes)\n`);
}
