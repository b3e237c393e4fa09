/**
 * A small line diff for `setup --dry-run`: the lines both texts share at the
 * start and the end are left out, and what lies between is shown as removed
 * (`-`) then added (`+`) lines, with up to two lines of context either side.
 * Config edits touch one or two places, so this reads as a unified diff.
 */
export function lineDiff(before: string, after: string): string {
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after === "" ? [] : after.replace(/\n$/, "").split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const context = 2;
  const lines: string[] = [];
  for (const line of a.slice(Math.max(0, start - context), start)) lines.push(`  ${line}`);
  for (const line of a.slice(start, endA)) lines.push(`- ${line}`);
  for (const line of b.slice(start, endB)) lines.push(`+ ${line}`);
  for (const line of a.slice(endA, endA + context)) lines.push(`  ${line}`);
  return lines.join("\n");
}
