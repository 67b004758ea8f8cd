/**
 * The feature folders form a graph without circles: a feature may build on another, never the
 * other way round too. (ESLint keeps each import going through the other feature's index.ts.)
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { typeScriptFiles } from '../../support/sourceFiles';

const FEATURES = path.resolve(__dirname, '../../../src/features');

/** feature → the features its files import. */
function featureGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const features = readdirSync(FEATURES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  for (const feature of features) {
    const uses = new Set<string>();
    for (const file of typeScriptFiles(path.join(FEATURES, feature))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import\(|require\()\s*'(\.[^']+)'/g)) {
        const target = path.relative(FEATURES, path.resolve(path.dirname(file), match[1]!)).split(path.sep)[0]!;
        if (target !== feature && features.includes(target)) uses.add(target);
      }
    }
    graph.set(feature, uses);
  }
  return graph;
}

/** One circle of the graph, as a path that ends where it starts, or undefined. */
function findCircle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...trail.slice(trail.indexOf(node)), node];
    state.set(node, 'open');
    trail.push(node);
    for (const next of graph.get(node) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    trail.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const circle = visit(node);
    if (circle) return circle;
  }
  return undefined;
}

describe('feature boundaries', () => {
  it('finds the imports between features (the check sees real edges)', () => {
    const graph = featureGraph();
    assert.ok(graph.size >= 5, `features: ${[...graph.keys()].join(', ')}`);
    assert.ok(
      [...graph.values()].some((uses) => uses.size > 0),
      'no feature imports another: the scan is broken',
    );
  });

  it('has no circle between features', () => {
    const circle = findCircle(featureGraph());
    assert.equal(circle, undefined, `features import each other in a circle: ${circle?.join(' → ')}`);
  });

  it('detects a circle when there is one', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    assert.deepEqual(findCircle(graph), ['a', 'b', 'c', 'a']);
  });
});
