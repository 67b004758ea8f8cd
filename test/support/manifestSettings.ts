/**
 * The settings package.json contributes, by key. `contributes.configuration` is an array of titled
 * sections (the Settings editor's table of contents lists each under Extensions › DocChat); tests
 * read the settings of all of them.
 */
export function contributedSettings<T = Record<string, unknown>>(manifest: { contributes: { configuration: unknown } }): Record<string, T> {
  const { configuration } = manifest.contributes;
  const sections = (Array.isArray(configuration) ? configuration : [configuration]) as { properties?: Record<string, T> }[];
  return Object.assign({}, ...sections.map((section) => section.properties ?? {})) as Record<string, T>;
}
