// What DocChat installs: the files of the .vsix, one list for every way the extension is installed.
// `npm run package` packs them with `vsce package --no-dependencies`; `npm start` and the test
// harness copy the very same files (vsce's own `listFiles`, driven by .vscodeignore) into an
// extensions folder, so a file missing from the package is missing everywhere, not only in a .vsix.
// Needs the npm packages (@vscode/vsce): call it after `ensureNpmPackages()`.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './common.mjs';

/** The files `vsce package --no-dependencies` puts under `extension/` in the .vsix, relative to `root`. */
export async function packagedFiles(root = repoRoot) {
  const vsce = await import('@vscode/vsce');
  const { listFiles, PackageManager } = vsce.default ?? vsce;
  return listFiles({ cwd: root, packageManager: PackageManager.None });
}

/**
 * Installs the build in `root` into `extensionsDir` as `<publisher>.<name>-<version>`, holding
 * exactly the files of the .vsix. Older copies and VS Code's index of installed extensions (which
 * would point at a removed copy) are removed first. Resolves with the folder and the files.
 */
export async function installPackagedFiles(extensionsDir, root = repoRoot) {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const id = `${manifest.publisher}.${manifest.name}`;
  mkdirSync(extensionsDir, { recursive: true });
  for (const entry of readdirSync(extensionsDir)) {
    if (entry.startsWith(`${id}-`)) rmSync(path.join(extensionsDir, entry), { recursive: true, force: true });
  }
  rmSync(path.join(extensionsDir, 'extensions.json'), { force: true });
  const dir = path.join(extensionsDir, `${id}-${manifest.version}`);
  const files = await packagedFiles(root);
  for (const file of files) {
    const target = path.join(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(path.join(root, file), target);
  }
  return { id, dir, files };
}
