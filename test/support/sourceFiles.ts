import { readdirSync } from 'node:fs';
import path from 'node:path';

/** The repository's `src/` folder. */
export const SRC = path.resolve(__dirname, '../../src');

/** Every `.ts` file below `dir` (absolute paths), for the tests that read the sources as text. */
export function typeScriptFiles(dir: string = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}
