import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The extension host runs every feature on one thread: a synchronous read or child process there
// freezes the editor (a folder sync reads thousands of files).
const root = path.resolve(__dirname, '../../../..');
const BLOCKING = /\b(readFileSync|writeFileSync|readdirSync|statSync|execSync|spawnSync|execFileSync)\b/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('no blocking I/O on the extension host', () => {
  it('src/features and src/services use no synchronous file or process calls', () => {
    const offenders: string[] = [];
    for (const dir of ['src/features', 'src/services']) {
      for (const file of sources(path.join(root, dir))) {
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (BLOCKING.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*')) {
              offenders.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
            }
          });
      }
    }
    assert.deepEqual(offenders, []);
  });
});
