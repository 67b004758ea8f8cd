import * as assert from 'node:assert/strict';
import { skillResultSchema } from '../../../../src/api/gateway/schemas';
import { quotePassage, resolveStore, toolResultText } from '../../../../src/chatCore/answerText';
import { personItem, webLink } from '../../../../src/features/skills/skillItems';

describe('search tool text and store resolution', () => {
  const stores = [
    { id: 'vs_1', name: 'Handbook' },
    { id: 'vs_2', name: 'handbook' },
    { id: 'vs_3', name: 'Specs' },
    { id: 'vs_4', name: 'Specs' },
  ];

  it('resolves a store by id, exact name, or a unique case-insensitive name', () => {
    assert.equal(resolveStore(stores, 'vs_3')?.id, 'vs_3');
    assert.equal(resolveStore(stores, 'Handbook')?.id, 'vs_1');
    assert.equal(resolveStore(stores, 'HANDBOOK'), undefined, 'two stores fold to "handbook"');
    assert.equal(resolveStore(stores, 'Specs'), undefined, 'two stores share the name');
    assert.equal(resolveStore([{ id: 'vs_9', name: 'Policies' }], 'policies')?.id, 'vs_9');
    assert.equal(resolveStore(stores, '  '), undefined);
  });

  it('numbers passages with file names and scores for the model', () => {
    const text = toolResultText([{ id: 'vs_1', name: 'Handbook' }], 'rollback', [
      { kind: 'passage', storeId: 'vs_1', fileId: 'file-1', filename: 'deploy.md', content: 'Run the rollback pipeline.\n', score: 0.8123 },
      { kind: 'passage', storeId: 'vs_1', fileId: 'file-2', content: 'Second.', score: 0.5 },
    ]);
    assert.equal(
      text,
      '2 passages from the vector store "Handbook" matching "rollback". Cite them by number.\n\n[1] deploy.md (score 0.81)\nRun the rollback pipeline.\n\n[2] file-2 (score 0.50)\nSecond.',
    );
    assert.equal(
      toolResultText([{ id: 'vs_1', name: 'Handbook' }], 'x', []),
      'No passage in the vector store "Handbook" is relevant to "x": the documents do not cover it. Say so rather than citing anything from them.',
    );
  });

  it('quotes passages line by line and cannot open a code fence', () => {
    assert.equal(quotePassage('a\n```js\nb'), '> a\n> ˋˋˋjs\n> b');
    assert.match(quotePassage('x'.repeat(700), 600), /^> x{600}…$/);
  });
});

describe('Find People by Skill items', () => {
  it('shows name, matching terms and information; keeps only web links', () => {
    const item = personItem(
      skillResultSchema.parse({
        name: 'Jonas Lindqvist',
        information: ['Skills: TypeScript, webviews', 'Developer Tools, Stockholm'],
        skillshare_link: 'https://skillshare.example.com/people/jonas',
        top_match_terms: ['VS Code extensions', 'webviews'],
      }),
    );
    assert.deepEqual(item, {
      label: 'Jonas Lindqvist',
      description: 'matches: VS Code extensions, webviews',
      detail: 'Skills: TypeScript, webviews · Developer Tools, Stockholm',
      link: 'https://skillshare.example.com/people/jonas',
    });
  });

  it('never offers a non-web link', () => {
    assert.equal(webLink('javascript:alert(1)'), undefined);
    assert.equal(webLink('file:///etc/passwd'), undefined);
    assert.equal(webLink('command:workbench.action.quit'), undefined);
    assert.equal(webLink('not a url'), undefined);
    assert.equal(webLink(' http://intranet.example/p '), 'http://intranet.example/p');
    assert.equal(personItem(skillResultSchema.parse({ name: 'X', skillshare_link: 'vscode://x' })).link, undefined);
  });
});
