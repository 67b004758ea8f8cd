import * as assert from 'node:assert/strict';
import { aboveFloor, relevantPassages, supports, termCoverage } from '../../../src/chatCore/relevance';

const passage = (score: number, content = 'rate limiter settings') => ({ score, content });

describe('relevance floor (relative to the same search)', () => {
  // The same ranking on three scales the documents service might use.
  const shapes = {
    'scores in 0..1': [0.92, 0.8, 0.41, 0.2, 0.05],
    'raw BM25 scores': [27.6, 24, 12.3, 6, 1.5],
    'scores in 0..100': [92, 80, 41, 20, 5],
  };
  for (const [name, scores] of Object.entries(shapes)) {
    it(`keeps the same passages whatever the scale (${name})`, () => {
      const kept = aboveFloor(scores.map((s) => passage(s)));
      assert.deepEqual(
        kept.map((p) => scores.indexOf(p.score)),
        [0, 1, 2],
      );
    });
  }

  it('keeps everything from a search whose scores are close together (cosine similarities)', () => {
    const kept = aboveFloor([0.83, 0.81, 0.79, 0.78].map((s) => passage(s)));
    assert.equal(kept.length, 4);
  });

  it('works with scores below zero by their place between the lowest and the best', () => {
    const kept = aboveFloor([0.6, 0.1, -0.5, -0.9].map((s) => passage(s)));
    assert.deepEqual(
      kept.map((p) => p.score),
      [0.6, 0.1],
    );
  });

  it('keeps a single passage, and all passages whose scores are equal', () => {
    assert.equal(aboveFloor([passage(0.01)]).length, 1);
    assert.equal(aboveFloor([passage(3), passage(3)]).length, 2);
  });
});

describe('relevance: saying no', () => {
  it('finds nothing relevant when no passage above the floor shares enough of the query', () => {
    const noise = [
      { score: 0.3, content: 'Configure the printer driver on the third floor.' },
      { score: 0.28, content: 'Configure your e-mail signature.' },
    ];
    assert.deepEqual(relevantPassages('How do I configure Kubernetes ingress controllers?', noise), []);
  });

  it('keeps the floor’s passages when one of them supports the query', () => {
    const found = [
      { score: 12, content: 'Kubernetes ingress controllers are configured with annotations.' },
      { score: 9, content: 'Configure the ingress class per namespace.' },
      { score: 1, content: 'Unrelated.' },
    ];
    assert.deepEqual(
      relevantPassages('How do I configure Kubernetes ingress controllers?', found).map((p) => p.score),
      [12, 9],
    );
  });

  it('counts words from the file name and heading too, and plural forms as one', () => {
    assert.deepEqual(termCoverage('invoice retention', { content: 'Kept ten years.', filename: 'invoices.md', heading: 'Retention' }), {
      shared: 2,
      coverage: 1,
    });
  });

  it('compares Chinese and Japanese questions by pairs of characters, as the search does', () => {
    const row = { score: 3, content: '| 東京タワー模型0 | 1000 | 北海道の職人が作った美しい模型です |' };
    assert.equal(supports('東京タワーの模型', row), true);
    assert.equal(supports('大阪城の価格', row), false);
    assert.deepEqual(relevantPassages('北海道の職人', [row]), [row]);
  });

  it('accepts a long query (a carried subject) when two of its words are found', () => {
    assert.equal(supports('limits rate limiter documents service configure per minute', { content: 'rate limiter' }), true);
    assert.equal(supports('limits rate limiter documents service configure per minute', { content: 'rate' }), false);
  });
});
