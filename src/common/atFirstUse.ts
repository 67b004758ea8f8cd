/**
 * A module loaded at its first use rather than when DocChat activates. `load` is a `require` of
 * that module: the build puts it, and whatever only it imports (zod, the schemas, the API
 * clients), in dist/first-use.js, which the extension bundle loads when `load` first runs, so
 * activation does not even parse it (scripts/lib/firstUseBundle.mjs lists these modules; the build
 * fails on one it does not list). Imports of its types stay `import type`. The module is loaded
 * once; later calls return it.
 */
export function atFirstUse<T>(load: () => T): () => T {
  let loaded: { module: T } | undefined;
  return () => (loaded ??= { module: load() }).module;
}
