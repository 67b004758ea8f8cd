/**
 * The layers of src/ import only what their allow-list names (scripts/lib/layers.mjs, which ESLint
 * also enforces), and only the VS Code layers import `vscode` — common/ included, as the backend
 * shares it. The check reads the real imports of every file.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '../../../src');

interface Layers {
  LAYER_IMPORTS: Record<string, readonly string[]>;
  VSCODE_LAYERS: readonly string[];
}

/** Every import of a file (a `require` at first use too), as `layer` (another top folder of src), `vscode`, or nothing. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from|import\(|import|require\()\s*'([^']+)'/g)) {
    const target = match[1]!;
    if (target === 'vscode') found.push('vscode');
    else if (target.startsWith('.')) {
      const relative = path.relative(SRC, path.resolve(path.dirname(file), target));
      if (!relative.startsWith('..')) found.push(relative.split(path.sep)[0]!);
    }
  }
  return found;
}

/** `file → imported layer` for each import a layer may not make. */
export function violations(layers: Layers, files: Array<{ layer: string; file: string; imports: string[] }>): string[] {
  const out: string[] = [];
  for (const { layer, file, imports } of files) {
    const allowed = layers.LAYER_IMPORTS[layer] ?? [];
    for (const target of imports) {
      if (
        target === 'vscode'
          ? !layers.VSCODE_LAYERS.includes(layer)
          : target !== layer && target in layers.LAYER_IMPORTS && !allowed.includes(target)
      ) {
        out.push(`${file} → ${target}`);
      }
    }
  }
  return out;
}

function sourceFiles(layers: Layers) {
  return Object.keys(layers.LAYER_IMPORTS).flatMap((layer) =>
    readdirSync(path.join(SRC, layer), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => {
        const file = path.join(e.parentPath, e.name);
        return { layer, file: path.relative(SRC, file), imports: importsOf(file) };
      }),
  );
}

describe('layers', () => {
  let layers: Layers;
  before(async () => {
    // A plain JavaScript module (ESLint reads it too): typed here by the interface above.
    const module: string = '../../../scripts/lib/layers.mjs';
    layers = (await import(module)) as Layers;
  });

  it('lists every folder of src/ as a layer', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    assert.deepEqual(folders, Object.keys(layers.LAYER_IMPORTS).sort());
  });

  it('reads the real imports (the check sees edges between layers)', () => {
    const files = sourceFiles(layers);
    assert.ok(files.length > 100, `${files.length} files`);
    assert.ok(files.some((f) => f.layer === 'backend' && f.imports.includes('api')));
    assert.ok(files.some((f) => f.layer === 'features' && f.imports.includes('vscode')));
  });

  it('imports only what each allow-list names, and vscode only in services/ and features/', () => {
    assert.deepEqual(violations(layers, sourceFiles(layers)), []);
  });

  it('reports an import outside the allow-list, and vscode in common/', () => {
    assert.deepEqual(
      violations(layers, [
        { layer: 'features', file: 'features/sync/scanner.ts', imports: ['backend', 'api'] },
        { layer: 'common', file: 'common/log.ts', imports: ['vscode'] },
        { layer: 'api', file: 'api/x.ts', imports: ['common'] },
      ]),
      ['features/sync/scanner.ts → backend', 'common/log.ts → vscode'],
    );
  });
});
