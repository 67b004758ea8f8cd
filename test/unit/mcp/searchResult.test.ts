import * as assert from 'node:assert/strict';
import { passageLine, readFileArguments, searchResultText, type SearchHit } from '../../../src/mcp/searchResult';

const STORE = { id: 'vs_1', name: 'handbook' };
const hit = (content: string): SearchHit => ({
  file_id: 'file_1',
  file_name: 'release.md',
  store_id: STORE.id,
  store_name: STORE.name,
  score: 0.8,
  content,
});

describe('docchat_search result text', () => {
  it('shows each sentence and line of a passage once (a chunk whose overlap repeats the sentence before it)', () => {
    const text = searchResultText(STORE, 'canary', [
      hit(
        '## Rollback\n\nRun the rollback job first.\n\nRun the rollback job first. Then watch the canary dashboards.\nSee the runbook\nSee the runbook',
      ),
    ]);
    const passage = text.slice(text.indexOf('## Rollback'));
    assert.equal(passage, '## Rollback\n\nRun the rollback job first.\n\nThen watch the canary dashboards.\nSee the runbook');
  });

  it('keeps the lines of a code block and the rows of a table as they are', () => {
    const content = '```sh\nnpm test\nnpm test\n```\n\n| os | result |\n|---|---|\n| linux | works fine |\n| linux | works fine |';
    const text = searchResultText(STORE, 'test', [hit(content)]);
    assert.ok(text.endsWith(`\n${content}`), text);
  });

  it("names the passage's longest line that is not a heading, fence or table rule as near, cut to 12 words", () => {
    const content =
      '## A heading that is longer than any line of the passage below it\n```\n|---|---|---|---|---|---|---|---|---|---|\n' +
      'Short line.\nThe rollback job restores the previous release of every service in the cluster within minutes.\n```';
    assert.equal(passageLine(content), 'The rollback job restores the previous release of every service in the');
    assert.equal(passageLine('# Only a heading\n\n'), undefined);
    // Prose before a longer table row (a converted PDF repeats its header row on every page).
    assert.equal(passageLine('| Region | Quarter | Revenue in thousands |\nSales rose in March.'), 'Sales rose in March.');
    assert.equal(passageLine('| Region | Quarter |\n| --- | --- |\n| North | Q1 |'), '| Region | Quarter |');
    // At most 120 characters: cut at a space, or (a line without one) between characters.
    const long = passageLine('Supercalifragilistic '.repeat(6) + 'end');
    assert.ok(long!.length <= 120 && long!.endsWith('Supercalifragilistic'), long);
    const unspaced = passageLine('检'.repeat(200) + '😀'.repeat(200))!;
    assert.equal(Array.from(unspaced).length, 120);
    assert.equal(passageLine('😀'.repeat(300)), '😀'.repeat(120), 'no surrogate pair is split');
    assert.deepEqual(JSON.parse(readFileArguments(hit('Run the "rollback" job.'))), {
      store: STORE.id,
      file_id: 'file_1',
      near: 'Run the "rollback" job.',
    });
    assert.deepEqual(JSON.parse(readFileArguments(hit('## Rollback'))), { store: STORE.id, file_id: 'file_1' });
  });
});
