/** The "Project layout" table of CONTRIBUTING.md names every top-level folder of src/ and nothing that is gone. */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');

function layoutSection(): string {
  const readme = readFileSync(path.join(root, 'CONTRIBUTING.md'), 'utf8');
  const start = readme.indexOf('Project layout:');
  assert.ok(start >= 0, 'CONTRIBUTING.md has a "Project layout:" section');
  const end = readme.indexOf('\n## ', start);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe('CONTRIBUTING.md project layout', () => {
  it('lists every top-level folder and file of src/', () => {
    const section = layoutSection();
    const entries = readdirSync(path.join(root, 'src'), { withFileTypes: true });
    const missing = entries
      .map((e) => (e.isDirectory() ? `src/${e.name}/` : `src/${e.name}`))
      .filter((name) => !section.includes(`\`${name}`));
    assert.deepEqual(missing, [], 'the layout section of CONTRIBUTING.md lacks these');
  });

  it('names only src/ paths that exist', () => {
    const named = [...layoutSection().matchAll(/`(src\/[A-Za-z0-9_.]+\/?)/g)].map((m) => m[1]!);
    const gone = named.filter((name) => !existsSync(path.join(root, name)));
    assert.deepEqual(gone, [], 'the layout section of CONTRIBUTING.md names paths that are gone');
  });
});
