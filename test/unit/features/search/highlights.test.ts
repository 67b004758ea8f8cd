import * as assert from 'node:assert/strict';
import { HIGHLIGHT_MS, PassageHighlights } from '../../../../src/features/search/highlights';
import { ManualTimers } from '../manualTimers';

// A passage opened from a citation or a search result is highlighted only for a moment: the next
// edit, a move of the cursor, Escape or a few seconds clear it.

describe('passage highlights', () => {
  function setup() {
    const timers = new ManualTimers();
    const cleared: Array<[string, boolean]> = [];
    const highlights = new PassageHighlights((uri, anyLeft) => cleared.push([uri, anyLeft]), timers);
    highlights.show('file:///a.md', 'Rollback with the pipeline.');
    highlights.show('file:///b.md', 'Canary dashboards.');
    return { timers, cleared, highlights };
  }

  it('clears the edited document only', () => {
    const { highlights, cleared } = setup();
    highlights.edited('file:///a.md');
    assert.equal(highlights.passage('file:///a.md'), undefined);
    assert.equal(highlights.passage('file:///b.md'), 'Canary dashboards.');
    assert.deepEqual(cleared, [['file:///a.md', true]]);
  });

  it("clears on the user's own cursor moves, not on the reveal that opened the passage", () => {
    const { highlights, cleared } = setup();
    highlights.selectionChanged('file:///a.md', false);
    assert.equal(highlights.passage('file:///a.md'), 'Rollback with the pipeline.');
    highlights.selectionChanged('file:///a.md', true);
    assert.equal(highlights.passage('file:///a.md'), undefined);
    assert.deepEqual(cleared, [['file:///a.md', true]]);
  });

  it('clears with Escape (the active document, or all) and says when none is left', () => {
    const { highlights, cleared } = setup();
    highlights.clear('file:///b.md');
    highlights.clear();
    assert.equal(highlights.any, false);
    assert.deepEqual(cleared, [
      ['file:///b.md', true],
      ['file:///a.md', false],
    ]);
  });

  it(`clears by itself after ${HIGHLIGHT_MS} ms, and a passage shown again starts its time over`, () => {
    const { highlights, timers, cleared } = setup();
    assert.deepEqual(timers.delays(), [HIGHLIGHT_MS, HIGHLIGHT_MS]);
    highlights.show('file:///a.md', 'Rollback again.');
    assert.equal(timers.count, 2, 'the earlier timer of a.md was cancelled');
    timers.fireAll();
    assert.equal(highlights.any, false);
    assert.deepEqual(cleared.map(([uri]) => uri).sort(), ['file:///a.md', 'file:///b.md']);
    highlights.edited('file:///a.md');
    assert.equal(cleared.length, 2, 'a cleared highlight is not cleared twice');
  });

  it('keeps what an answer quoted of the passage with it, until the highlight is cleared or shown again', () => {
    const { highlights } = setup();
    highlights.show('file:///a.md', 'Rollback with the pipeline. Then page the owner.', {
      quotes: ['Then page the owner.', '  '],
      index: 0,
    });
    assert.deepEqual(highlights.focus('file:///a.md'), { quotes: ['Then page the owner.'], index: 0 });
    assert.equal(highlights.focus('file:///b.md'), undefined, 'a passage opened from a search result has no quotes');
    highlights.show('file:///a.md', 'Rollback with the pipeline. Then page the owner.');
    assert.equal(highlights.focus('file:///a.md'), undefined, 'shown again without quotes: the whole passage');
    // A search result: no quotes, the query it was found for.
    highlights.show('file:///a.md', 'Rollback with the pipeline.', { quotes: [], query: ' rollback ' });
    assert.deepEqual(highlights.focus('file:///a.md'), { quotes: [], query: 'rollback' });
    highlights.show('file:///a.md', 'Rollback with the pipeline.', { quotes: ['Rollback with the pipeline.'] });
    highlights.edited('file:///a.md');
    assert.equal(highlights.focus('file:///a.md'), undefined);
  });
});
