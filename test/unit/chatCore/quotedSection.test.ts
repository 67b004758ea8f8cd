import * as assert from 'node:assert/strict';
import { chunkMarkdown } from '../../../src/backend/chunking/chunker';
import { sourceListMarkdown } from '../../../src/chatCore/citations';
import { headingAt, quotedHeading } from '../../../src/chatCore/quotedSection';

// A README whose short sections run on into the next ones within one passage: the chunker starts
// a new passage at a heading only once the current one is substantial.
const FEATURES = Array.from({ length: 30 }, (_, i) => `Feature ${i + 1} answers questions about the documents of a store.`).join('\n\n');
const README = [
  '# DocChat',
  '',
  '## What it does',
  '',
  FEATURES,
  '',
  '### Use DocChat from your agent',
  '',
  'Agents reach DocChat through its MCP server.',
  '',
  '## Settings',
  '',
  'Results are ranked by relevance before they are shown.',
  '',
  '| Setting | Default |',
  '| --- | --- |',
  '| `docchat.search.maxResults` | 8 |',
  '',
  '```bash',
  '# not a heading: a comment in a shell block',
  'docchat --help',
  '```',
  '',
  'The search result count applies to every store.',
  '',
  '### Folder sync',
  '',
  'Folder sync uploads the files of a workspace folder.',
  '',
  '## Troubleshooting',
  '',
  'Open the output channel to see what went wrong.',
  '',
].join('\n');

/** The passage that starts in "Use DocChat from your agent" and runs on through "Settings". */
function agentPassage(): { content: string; heading: string } {
  const chunk = chunkMarkdown(README).find((c) => c.heading.endsWith('Use DocChat from your agent'));
  assert.ok(chunk, 'the README has a passage that starts in "Use DocChat from your agent"');
  assert.match(chunk.text, /## Settings[\s\S]*Folder sync uploads/, 'the passage runs on into the next sections');
  return { content: chunk.text, heading: chunk.heading };
}

describe('the section a citation names: where the quoted sentence is, not where its passage starts', () => {
  it('names the section of a sentence local-extractive quotes from under a later heading of the passage', () => {
    const passage = agentPassage();
    assert.equal(passage.heading, 'DocChat > What it does > Use DocChat from your agent');
    const answer = '- "Results are ranked by relevance before they are shown." [1]';
    assert.equal(quotedHeading(answer, 1, 1, passage), 'DocChat > Settings');
    const list = sourceListMarkdown([{ n: 1, markdown: '[README.md](x)', heading: quotedHeading(answer, 1, 1, passage), store: 'demo' }]);
    assert.equal(list, '- \\[1\\] [README.md](x) › Settings · demo');
  });

  it('names the section of a quoted table row, and of a sentence under a deeper heading', () => {
    const passage = agentPassage();
    const table = '| Setting | Default |\n| --- | --- |\n| `docchat.search.maxResults` | 8 |\n\n[1]';
    assert.equal(quotedHeading(table, 1, 1, passage), 'DocChat > Settings');
    const deeper = 'Folder sync uploads the files of a workspace folder [1].';
    assert.equal(quotedHeading(deeper, 1, 1, passage), 'DocChat > Settings > Folder sync');
  });

  it('reads no heading inside fenced code', () => {
    const passage = agentPassage();
    assert.equal(quotedHeading('"The search result count applies to every store." [1]', 1, 1, passage), 'DocChat > Settings');
  });

  it("keeps the passage's own heading for a quote from the section it starts in", () => {
    const passage = agentPassage();
    assert.equal(
      quotedHeading('"Agents reach DocChat through its MCP server." [1]', 1, 1, passage),
      'DocChat > What it does > Use DocChat from your agent',
    );
  });

  it("uses the first quote's section when a source is quoted under two sections", () => {
    const passage = agentPassage();
    const answer = [
      '- "Open the output channel to see what went wrong." [2]',
      '- "Results are ranked by relevance before they are shown." [2]',
      '- "Something else entirely." [1]',
    ].join('\n');
    assert.equal(quotedHeading(answer, 2, 2, passage), 'DocChat > Troubleshooting');
  });

  it("keeps the passage's own heading when no quote of it can be found", () => {
    const passage = agentPassage();
    assert.equal(quotedHeading('Zeppelins are not covered here [1].', 1, 1, passage), passage.heading);
    assert.equal(quotedHeading('Nothing cites it.', 1, 1, passage), passage.heading);
    // Another source's quote does not move this one's label.
    assert.equal(quotedHeading('"Results are ranked by relevance before they are shown." [2]', 1, 2, passage), passage.heading);
  });

  it('names the section of a passage that carries no heading path (a remote store)', () => {
    const content = 'Intro text.\n\n## Limits\n\nUploads are limited to 512 MB per file.';
    assert.equal(quotedHeading('"Uploads are limited to 512 MB per file." [1]', 1, 1, { content }), 'Limits');
    assert.equal(quotedHeading('"Intro text." [1]', 1, 1, { content }), undefined);
  });

  it('passes over a first heading line that names another section than the passage starts in', () => {
    // Passages chunked by earlier versions could start with the heading of where they ended.
    const content = '## Troubleshooting\n\nThe tail of the usage section.\n\n## Troubleshooting\n\nOpen the output channel.';
    assert.equal(headingAt(content, content.indexOf('The tail'), 'Guide > Usage'), 'Guide > Usage');
    assert.equal(headingAt(content, content.indexOf('Open the output'), 'Guide > Usage'), 'Troubleshooting');
  });
});
