import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(__dirname, '../..');

/** The files a spec names: a path, or a `*` pattern in its last part (as the groups write them). */
function specFiles(spec: string): string[] {
  const dir = path.join(ROOT, path.dirname(spec));
  const base = path.basename(spec);
  if (!existsSync(dir)) return [];
  const pattern = new RegExp(`^${base.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  return readdirSync(dir).filter((name) => pattern.test(name));
}

interface Group {
  mutate: string[];
  spec: string[];
}

// `npm run mutation` reads its groups from stryker.config.mjs, whose line ranges are found by
// patterns in the code: a change that moves the code out of a pattern's reach stops every group.
describe('mutation groups (stryker.config.mjs)', () => {
  let groups: Record<string, Group>;

  before(async () => {
    ({ GROUPS: groups } = (await import(pathToFileURL(path.join(ROOT, 'stryker.config.mjs')).href)) as { GROUPS: Record<string, Group> });
  });

  it('finds every line range it mutates in the code as it is now', () => {
    assert.ok(Object.keys(groups).length > 0);
    for (const [name, group] of Object.entries(groups)) {
      assert.ok(group.mutate.length > 0, `${name} mutates something`);
      for (const entry of group.mutate) {
        const [file, range] = entry.split(':');
        assert.ok(existsSync(path.join(ROOT, file!)), `${name}: ${file} exists`);
        if (!range) continue;
        const [start, end] = range.split('-').map(Number);
        const lineCount = readFileSync(path.join(ROOT, file!), 'utf8').split('\n').length;
        assert.ok(start! >= 1 && start! <= end! && end! <= lineCount, `${name}: ${entry} is a range of ${file}`);
      }
    }
  });

  it('runs specs that exist for every group', () => {
    for (const [name, group] of Object.entries(groups)) {
      for (const spec of group.spec) {
        assert.ok(specFiles(spec).length > 0, `${name}: ${spec} names test files`);
      }
    }
  });
});
