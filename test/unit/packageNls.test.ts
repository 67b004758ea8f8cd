/**
 * Every word package.json shows the user comes from package.nls.json, so the extension can be
 * translated with a package.nls.<locale>.json: a bare string in a contribution, a missing key or an
 * unused key fails here.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const nls: Record<string, string> = JSON.parse(readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8'));

/** Fields whose value is shown to people (or to a model, in the user's language). */
const TEXT_FIELDS = new Set([
  'title',
  'shortTitle',
  'description',
  'markdownDescription',
  'label',
  'contextualTitle',
  'deprecationMessage',
  'markdownDeprecationMessage',
  'patternErrorMessage',
  'fullName',
  'altText',
  'userDescription',
  'modelDescription',
  'displayName',
  'category',
]);
const TEXT_LISTS = new Set(['enumDescriptions', 'markdownEnumDescriptions', 'enumItemLabels']);

/** [where, value] of every shown string of the contributions. */
function shownStrings(): Array<[string, string]> {
  const out: Array<[string, string]> = [
    ['displayName', manifest.displayName],
    ['description', manifest.description],
  ];
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${where}[${i}]`));
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      const at = `${where}.${key}`;
      if (
        typeof value === 'string' &&
        (TEXT_FIELDS.has(key) ||
          (key === 'contents' && where.startsWith('contributes.viewsWelcome')) ||
          (key === 'name' && /^contributes\.views\.\w+\[\d+\]$/.test(where)))
      ) {
        out.push([at, value]);
      } else if (TEXT_LISTS.has(key) && Array.isArray(value)) {
        value.forEach((v, i) => out.push([`${at}[${i}]`, String(v)]));
      } else {
        walk(value, at);
      }
    }
  };
  walk(manifest.contributes, 'contributes');
  // What Restricted Mode and virtual workspaces hold back, as the Extensions view shows it.
  walk(manifest.capabilities, 'capabilities');
  return out;
}

describe('package.json is translatable (package.nls.json)', () => {
  const strings = shownStrings();

  it('finds the shown strings (commands, settings, views, walkthrough…)', () => {
    assert.ok(strings.length > 40, `only ${strings.length} strings found`);
    assert.ok(strings.some(([where]) => where.startsWith('contributes.commands')));
    assert.ok(strings.some(([where]) => where.startsWith('contributes.configuration')));
  });

  it("keeps each walkthrough step's title to one line of the step list (30 characters)", () => {
    // The step list is about 270 px wide beside the open step; a longer title is cut with "…".
    const long = Object.entries(nls).filter(([key, value]) => /^walkthroughs\.steps\.\w+\.title$/.test(key) && value.length > 30);
    assert.deepEqual(long, []);
    assert.ok(Object.keys(nls).filter((key) => /^walkthroughs\.steps\.\w+\.title$/.test(key)).length >= 5);
  });

  it("has each walkthrough button run one of DocChat's commands, which shows what it did", () => {
    // A button that only shows the DocChat view did nothing visible when the walkthrough opened
    // beside that view; a view's `.focus` command moves the keyboard to it, so it always shows.
    const commands = new Set<string>((manifest.contributes.commands as Array<{ command: string }>).map((c) => c.command));
    for (const view of Object.values(manifest.contributes.views as Record<string, Array<{ id: string }>>).flat()) {
      commands.add(`${view.id}.focus`);
    }
    const links = Object.entries(nls)
      .filter(([key]) => /^walkthroughs\.steps\.\w+\.description$/.test(key))
      .flatMap(([key, value]) => [...value.matchAll(/\]\(command:([\w.]+)/g)].map((m) => `${key}: ${m[1]}`));
    assert.ok(links.length >= 8, links.join('\n'));
    assert.deepEqual(
      links.filter((link) => !commands.has(link.split(': ')[1]!)),
      [],
    );
  });

  it('has no bare string in the contributions', () => {
    const bare = strings
      .filter(([, value]) => !/^%[\w.-]+%$/.test(value))
      .map(([where, value]) => `${where}: ${JSON.stringify(value.slice(0, 60))}`);
    assert.deepEqual(bare, [], 'put these in package.nls.json and refer to them as %key%');
  });

  it('has every referenced key in package.nls.json, and no unused key', () => {
    const referenced = new Set(strings.map(([, value]) => /^%([\w.-]+)%$/.exec(value)?.[1]).filter((k): k is string => k !== undefined));
    const missing = [...referenced].filter((key) => typeof nls[key] !== 'string' || nls[key]!.trim() === '');
    assert.deepEqual(missing, [], 'referenced in package.json but missing from package.nls.json');
    const unused = Object.keys(nls).filter((key) => !referenced.has(key));
    assert.deepEqual(unused, [], 'in package.nls.json but used nowhere');
  });
});

describe('setting descriptions speak plainly', () => {
  const description = (key: string) => nls[`config.docchat.${key}.markdownDescription`] ?? '';

  it('say what the everyday settings are for without header names, API fields or endpoints', () => {
    const everyday = ['gateway.url', 'gateway.projectCode', 'gateway.embeddingModel', 'chat.defaultModel', 'search.maxResults'];
    const internal = /X-[A-Z][\w-]+|\b[a-z]+_[a-z_]+\b|\b(GET|POST) \/|\/v1\/\w|`NA`/;
    const found = everyday.filter((key) => internal.test(description(key))).map((key) => `${key}: ${description(key)}`);
    assert.deepEqual(found, []);
    assert.match(description('search.maxResults'), /1 to 50/, 'the limit is said');
    assert.match(description('chat.defaultModel'), /Local mode/, 'what an empty value means in Local mode too');
  });

  it("agree with the chat that Local mode has no web tools: an empty gateway URL does not 'serve the gateway'", () => {
    assert.doesNotMatch(description('gateway.url'), /serves the gateway/);
    assert.match(description('gateway.url'), /no web tools/);
  });
});
