import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '../../../src');
const OWNER = path.join('services', 'config.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('settings have one reader', () => {
  it('reads VS Code settings only in services/config.ts (ConfigService and its folder settings)', () => {
    const readers = sourceFiles(SRC)
      .filter((file) => /\bgetConfiguration\s*\(/.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(SRC, file));
    assert.deepEqual(readers, [OWNER]);
  });
});
