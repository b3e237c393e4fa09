/**
 * The cache of compiled code that every child Node process of the suite
 * shares: `NODE_COMPILE_CACHE`, set for the suite in vitest.config.ts. The
 * bins keep their cache under the user's cache folder (compile-cache.ts),
 * and the specs give each child a fresh home, so without this every spawn
 * of a bin compiled the whole bundle again: about 0.3 s of CPU of the
 * 0.6 s a CLI call takes. A process started with the variable uses that
 * cache, and the bins' own call then changes nothing.
 */
export function codeCacheEnv(): NodeJS.ProcessEnv {
  const dir = process.env.NODE_COMPILE_CACHE;
  return dir ? { NODE_COMPILE_CACHE: dir } : {};
}
