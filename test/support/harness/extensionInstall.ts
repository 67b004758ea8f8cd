import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertCodeServerInstalled } from './codeServer';
import { codeServerEntry, codeServerNode, repoRoot } from './paths';
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

/** How `installDocChat` installs: see there. */
export interface InstallHow {
  /** The way `npm start` installs the build, even when there is a current .vsix. */
  asNpmStart?: boolean;
  /**
   * The .vsix through VS Code's own command line (`--install-extension`), as a user installs a
   * downloaded .vsix; fails when there is no current .vsix. Needs the profile to install into.
   */
  withCommandLine?: { userDataDir: string };
}

/**
 * Installs DocChat into `extensionsDir` as `<publisher>.<name>-<version>`, as VS Code itself would:
 * from the .vsix when there is a current one (unpacked, or with VS Code's command line), otherwise
 * (or `asNpmStart`) the way `npm start` installs the build.
 */
export async function installDocChat(extensionsDir: string, how: InstallHow = {}): Promise<InstalledExtension> {
  const manifest = docChatManifest();
  const id = `${manifest.publisher}.${manifest.name}`;
  const dir = path.join(extensionsDir, `${id}-${manifest.version}`);
  if (process.env.DOCCHAT_EXTENSION_DIR) {
    // An unpacked build to test instead of this repository's (e.g. one broken on purpose).
    mkdirSync(dir, { recursive: true });
    cpSync(path.resolve(process.env.DOCCHAT_EXTENSION_DIR), dir, { recursive: true });
    return { id, dir, source: process.env.DOCCHAT_EXTENSION_DIR };
  }
  if (how.withCommandLine) {
    const vsix = vsixToInstall();
    if (!vsix) throw new Error('no current dist/docchat.vsix to install with --install-extension: run `npm run package` first');
    await installWithCommandLine(vsix, extensionsDir, how.withCommandLine.userDataDir);
    if (!existsSync(path.join(dir, 'package.json'))) {
      throw new Error(`--install-extension reported success but ${dir} holds no package.json`);
    }
    return { id, dir, source: `${vsix} (--install-extension)` };
  }
  mkdirSync(dir, { recursive: true });
  const vsix = how.asNpmStart ? undefined : vsixToInstall();
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

/**
 * `code-server --install-extension <vsix>`: VS Code's own installer (the same code as `code
 * --install-extension`) unpacks the .vsix, checks its manifest and engine, and records it in the
 * extensions folder's `extensions.json`. Rejects with its output when it does not say it installed.
 */
export async function installWithCommandLine(vsix: string, extensionsDir: string, userDataDir: string): Promise<string> {
  assertCodeServerInstalled();
  mkdirSync(userDataDir, { recursive: true });
  // An explicit config file keeps code-server from writing one into the user's home folder.
  const configFile = path.join(userDataDir, 'code-server.yaml');
  if (!existsSync(configFile)) writeFileSync(configFile, 'auth: none\ncert: false\n');
  const args = [
    codeServerEntry(),
    '--config',
    configFile,
    '--extensions-dir',
    extensionsDir,
    '--user-data-dir',
    userDataDir,
    '--install-extension',
    vsix,
  ];
  const child = spawn(codeServerNode(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0 || !/successfully installed/i.test(output)) {
    throw new Error(`code-server --install-extension ${vsix} failed (exit ${code}):\n${output}`);
  }
  return output;
}
