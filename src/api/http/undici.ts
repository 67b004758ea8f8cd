/**
 * undici (about half a megabyte of the extension) is loaded on the first request, not when DocChat
 * activates. In the extension's bundles this `require` loads `dist/undici.js`, a bundle of its own
 * (see esbuild.mjs); everywhere else it is the package itself.
 */
import type * as Undici from 'undici';

let loaded: typeof Undici | undefined;

export function undici(): typeof Undici {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
  return (loaded ??= require('undici') as typeof Undici);
}
