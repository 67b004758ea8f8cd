/**
 * A module loaded at its first use rather than when DocChat activates. `load` is a `require` of
 * that module: esbuild then evaluates it, and whatever only it imports (zod, the schemas, the API
 * clients), when `load` first runs, not when the extension bundle loads. Imports of its types stay
 * `import type`. The module is loaded once; later calls return it.
 */
export function atFirstUse<T>(load: () => T): () => T {
  let loaded: { module: T } | undefined;
  return () => (loaded ??= { module: load() }).module;
}
