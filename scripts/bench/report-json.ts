/**
 * JSON as the repository's formatter (biome) prints it — arrays of plain
 * values, or of such arrays, on one line when they fit in 100 columns — so
 * `pnpm lint` passes on a report a benchmark writes.
 */
const LINE = String.raw`(?:[^[\]{}\n]|\[[^[\]{}\n]*\])*`;
const ARRAY = new RegExp(String.raw`^( *)(.*)\[\n(${LINE}(?:\n${LINE})*?)\n *\]`, "gm");

/** `value` as biome formats JSON, with a final newline. */
export function formattedJson(value: unknown): string {
  let text = JSON.stringify(value, null, 2);
  for (;;) {
    // Innermost arrays first: an outer one fits on one line only once its items do.
    const next = text.replace(
      ARRAY,
      (block: string, indent: string, head: string, body: string) => {
        const items = body.split("\n").map((line) => line.trim());
        const inline = `${indent}${head}[${items.join(" ")}]`;
        return inline.length <= 100 ? inline : block;
      },
    );
    if (next === text) return `${text}\n`;
    text = next;
  }
}
