import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SRC, typeScriptFiles } from '../../support/sourceFiles';

const OWNER = path.join('services', 'config.ts');

describe('settings have one reader', () => {
  it('reads VS Code settings only in services/config.ts (ConfigService and its folder settings)', () => {
    const readers = typeScriptFiles()
      .filter((file) => /\bgetConfiguration\s*\(/.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(SRC, file));
    assert.deepEqual(readers, [OWNER]);
  });
});
