import * as assert from 'node:assert/strict';
import { searchResultText, type SearchHit } from '../../../src/mcp/searchResult';

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
});
