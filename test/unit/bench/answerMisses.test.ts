import assert from 'node:assert/strict';
import { outcome, outcomeMark, sourcesHolding } from '../../bench/answers/missPlace';

describe('answer benchmark: where a miss happens', () => {
  const expected = 'Sign Out removes both';
  const holds = (text: string) => text.replace(/\*/g, '').includes(expected);
  const sources = [
    { number: 1, content: 'A changed file is attached first and the old one removed afterwards.' },
    // A joined source: its first chunk is about another section, the sentence is further down.
    { number: 2, content: '## Folder sync\n\nSync Folder…\n\n## Sign-in\n\nSet Documents Token asks for it. **Sign Out** removes both.' },
    { number: 3, content: 'Sign Out removes both tokens.' },
  ];

  it('finds the sentence in a source by its text, whatever the source is named', () => {
    assert.deepEqual(sourcesHolding(sources, holds), [2, 3]);
    assert.deepEqual(sourcesHolding(sources.slice(0, 1), holds), []);
  });

  it('tells a miss of the sentence choice from a miss of grounding', () => {
    assert.equal(outcome(false, false, [2, 3]), 'missed, in the sources');
    assert.equal(outcome(false, false, []), 'missed, not in the sources');
    assert.equal(outcomeMark(false, false, [2, 3]), '**missed**, in [2, 3]');
    assert.equal(outcomeMark(false, false, []), '**missed**, not in sources');
  });

  it('counts a quoted sentence as quoted whatever the sources hold', () => {
    assert.equal(outcome(true, true, []), 'first');
    assert.equal(outcome(false, true, [1]), 'quoted');
    assert.equal(outcomeMark(false, true, [1]), 'quoted');
  });
});
