/** Every relative link and image of the README, CONTRIBUTING.md, the CHANGELOG and docs/ names a file that exists. */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');

function documents(): string[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...docs];
}

/** The relative targets of markdown links and images, and of HTML `src`/`href`, outside code blocks. */
function relativeTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '');
  const targets = [
    ...[...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!),
    ...[...prose.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!),
  ];
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#')).map((t) => decodeURI(t.split('#')[0]!));
}

describe('documentation links', () => {
  it('every relative link and image points to a file of the repository', () => {
    const broken: string[] = [];
    for (const document of documents()) {
      const text = readFileSync(path.join(root, document), 'utf8');
      for (const target of relativeTargets(text)) {
        if (!existsSync(path.resolve(root, path.dirname(document), target))) broken.push(`${document}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
