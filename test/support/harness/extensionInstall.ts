import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths';
import { extractZip } from './zip';

export interface InstalledExtension {
  id: string;
  dir: string;
  /** The .vsix it came from, or `dist` when copied from the build output. */
  source: string;
}

export function docChatManifest(): { publisher: string; name: string; version: string } {
  return JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
}

const PACKAGED_VSIX = path.join(repoRoot, 'dist/docchat.vsix');

/**
 * The .vsix to test: `DOCCHAT_VSIX`, or `dist/docchat.vsix` when it is at least as new as the
 * build. Otherwise the build output is copied, so `npm run build` is enough while iterating.
 */
function vsixToInstall(): string | undefined {
  if (process.env.DOCCHAT_VSIX) return path.resolve(process.env.DOCCHAT_VSIX);
  const bundle = path.join(repoRoot, 'dist/extension.js');
  if (existsSync(PACKAGED_VSIX) && existsSync(bundle) && statSync(PACKAGED_VSIX).mtimeMs >= statSync(bundle).mtimeMs) {
    return PACKAGED_VSIX;
  }
  return undefined;
}

/**
 * Installs DocChat into `extensionsDir` as `<publisher>.<name>-<version>`, as VS Code itself would:
 * from the .vsix when there is a current one, otherwise (or with `asNpmStart`) the way `npm start`
 * installs the build.
 */
export async function installDocChat(extensionsDir: string, asNpmStart = false): Promise<InstalledExtension> {
  const manifest = docChatManifest();
  const id = `${manifest.publisher}.${manifest.name}`;
  const dir = path.join(extensionsDir, `${id}-${manifest.version}`);
  mkdirSync(dir, { recursive: true });
  if (process.env.DOCCHAT_EXTENSION_DIR) {
    // An unpacked build to test instead of this repository's (e.g. one broken on purpose).
    cpSync(path.resolve(process.env.DOCCHAT_EXTENSION_DIR), dir, { recursive: true });
    return { id, dir, source: process.env.DOCCHAT_EXTENSION_DIR };
  }
  const vsix = asNpmStart ? undefined : vsixToInstall();
  if (vsix) {
    if (extractZip(vsix, dir, 'extension/') === 0) throw new Error(`${vsix} holds no extension/ files`);
    return { id, dir, source: vsix };
  }
  if (!existsSync(path.join(repoRoot, 'dist/extension.js'))) {
    throw new Error('dist/extension.js is missing: run `npm run build` (or `npm run package`) first');
  }
  await installBuildAsNpmStartDoes(extensionsDir);
  return { id, dir, source: 'dist' };
}

/**
 * `npm start`'s own install: the build copied as the files of the .vsix (scripts/lib/extensionFiles.mjs).
 * Resolves with the installed files, relative to the extension folder.
 */
export async function installBuildAsNpmStartDoes(extensionsDir: string): Promise<string[]> {
  const { installPackagedFiles } = await import('../../../scripts/lib/extensionFiles.mjs');
  return (await installPackagedFiles(extensionsDir)).files;
}

/** Installs an unpacked extension folder (e.g. the extension-host test runner). */
export function installExtensionFolder(extensionsDir: string, folder: string): InstalledExtension {
  const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
  const id = `${manifest.publisher}.${manifest.name}`;
  const dir = path.join(extensionsDir, `${id}-${manifest.version}`);
  cpSync(folder, dir, { recursive: true });
  return { id, dir, source: folder };
}
