import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { StateKeys } from '../../src/common/constants';
import { SRC, typeScriptFiles } from '../support/sourceFiles';

describe('extension state keys', () => {
  it('are all distinct and DocChat’s own', () => {
    const values = Object.values(StateKeys);
    assert.equal(new Set(values).size, values.length, `a key is used twice: ${values.join(', ')}`);
    for (const value of values) assert.match(value, /^docchat\.[A-Za-z.]+$/);
  });

  it('are declared only in StateKeys: no feature names a key of its own in a get or update', () => {
    // A key as a string literal anywhere else (`state.get('docchat.x')`, `const KEY = 'docchat.x'`
    // used with a Memento) could collide with another feature's without anyone seeing it.
    const declared = new Set<string>(Object.values(StateKeys));
    const offenders: string[] = [];
    for (const file of typeScriptFiles()) {
      if (file.endsWith(path.join('common', 'constants.ts'))) continue;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\.(?:get|update)(?:<[^>]*>)?\(\s*'(docchat\.[^']+)'/g)) {
        offenders.push(`${path.relative(SRC, file)}: ${match[1]}`);
      }
      for (const value of declared) {
        if (text.includes(`'${value}'`)) offenders.push(`${path.relative(SRC, file)}: '${value}' written again`);
      }
    }
    assert.deepEqual(offenders, []);
  });
});
