/**
 * A check of the bundled bins' build: the project's own dynamic imports of
 * packages, from esbuild's metafile. A split bundle makes a dynamically
 * imported CommonJS package a chunk of its own whose namespace holds only
 * `default` (its module.exports), where Node's loader also gives the named
 * exports it detects. Code written against Node then reads `undefined` from
 * the bundle, and no test of the sources sees it: `capture --file page.html`
 * failed so from the built package ("reading 'translate'") while every test
 * passed. So each such import must be reviewed (its importer reads the
 * module from `default` when the named export is absent, as
 * lib/capture/extract.ts does) and listed; any other fails the build.
 */
import type { Metafile } from "esbuild";

/** One dynamic import of a package by the project's own code, as the build resolved it. */
export interface PackageImport {
  /** The importing source file, relative to the repository (`extensions/…/extract.ts`). */
  importer: string;
  /** The specifier as written (`node-html-markdown`). */
  specifier: string;
  /** Left to Node at run time (not bundled). */
  external: boolean;
  /** The module format esbuild found for it: "cjs", "esm" or undefined (external, unknown). */
  format: "cjs" | "esm" | undefined;
}

/** A specifier that names a package: not relative, absolute or one of Node's built-ins. */
function isPackage(specifier: string): boolean {
  return !/^(\.|\/|node:|[A-Za-z]:[\\/])/.test(specifier);
}

/** The project's own code: the sources, not a dependency's files. */
function isOwnSource(file: string): boolean {
  return !file.split(/[\\/]/).includes("node_modules");
}

/** Every dynamic import of a package in the project's own sources, sorted by importer then specifier. */
export function packageDynamicImports(metafile: Metafile): PackageImport[] {
  const found: PackageImport[] = [];
  for (const [importer, input] of Object.entries(metafile.inputs)) {
    if (!isOwnSource(importer)) continue;
    for (const imported of input.imports) {
      const specifier = imported.original ?? imported.path;
      if (imported.kind !== "dynamic-import" || !isPackage(specifier)) continue;
      const external = imported.external === true;
      found.push({
        importer,
        specifier,
        external,
        format: external ? undefined : metafile.inputs[imported.path]?.format,
      });
    }
  }
  return found.sort((a, b) =>
    a.importer === b.importer
      ? a.specifier.localeCompare(b.specifier)
      : a.importer.localeCompare(b.importer),
  );
}

/** `importer → specifier`, the key of a reviewed import. */
export function importKey(i: Pick<PackageImport, "importer" | "specifier">): string {
  return `${i.importer} → ${i.specifier}`;
}

/**
 * Bundled CommonJS packages imported dynamically whose importer was checked
 * to read the module from `default` in the bundle.
 */
export const REVIEWED_COMMONJS_IMPORTS: readonly string[] = [
  importKey({
    importer: "extensions/llm-wiki/lib/capture/extract.ts",
    specifier: "node-html-markdown",
  }),
];

/**
 * Throws, naming each import and the fix, when the build holds a dynamic
 * import of a bundled CommonJS package that is not in `reviewed`.
 */
export function checkDynamicImports(
  metafile: Metafile,
  reviewed: readonly string[] = REVIEWED_COMMONJS_IMPORTS,
): void {
  const unreviewed = packageDynamicImports(metafile).filter(
    (i) => i.format === "cjs" && !reviewed.includes(importKey(i)),
  );
  if (unreviewed.length === 0) return;
  const lines = unreviewed.map((i) => `  ${importKey(i)}`);
  throw new Error(
    [
      "the bundle imports CommonJS packages dynamically:",
      ...lines,
      "In the bundle such an import gives only `default` (module.exports), not the named exports Node gives;",
      "read the export from `default` when it is absent (see lib/capture/extract.ts), then list the import",
      "in REVIEWED_COMMONJS_IMPORTS (scripts/build-dynamic-imports.ts).",
    ].join("\n"),
  );
}
