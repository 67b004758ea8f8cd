/**
 * The layers of src/ import only what their allow-list names (scripts/lib/layers.mjs, which ESLint
 * also enforces), down to single modules where a layer may use only part of another, and only the
 * VS Code layers import `vscode` — common/ included, as the backend shares it. The check reads the
 * real imports of every file.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '../../../src');

interface Layers {
  LAYER_IMPORTS: Record<string, readonly string[]>;
  LAYER_MODULES: Record<string, Record<string, readonly string[]>>;
  VSCODE_LAYERS: readonly string[];
}

/**
 * Every import of a file (a `require` at first use too), as the module under src/ it names
 * (`services/localBackend`: no extension, a folder for its index.ts), `vscode`, or nothing.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from|import\(|import|require\()\s*'([^']+)'/g)) {
    const target = match[1]!;
    if (target === 'vscode') found.push('vscode');
    else if (target.startsWith('.')) {
      const relative = path.relative(SRC, path.resolve(path.dirname(file), target));
      if (!relative.startsWith('..')) {
        found.push(
          relative
            .split(path.sep)
            .join('/')
            .replace(/\.[cm]?[jt]s$/, '')
            .replace(/\/index$/, ''),
        );
      }
    }
  }
  return found;
}

/** The layer (top folder of src/) of an import as `importsOf` gives it. */
const layerOf = (target: string) => target.split('/')[0]!;

/** `file → imported module` for each import a layer may not make. */
export function violations(layers: Layers, files: Array<{ layer: string; file: string; imports: string[] }>): string[] {
  const out: string[] = [];
  for (const { layer, file, imports } of files) {
    const allowed = layers.LAYER_IMPORTS[layer] ?? [];
    for (const target of imports) {
      const other = layerOf(target);
      const modules = layers.LAYER_MODULES[layer]?.[other];
      if (
        target === 'vscode'
          ? !layers.VSCODE_LAYERS.includes(layer)
          : other !== layer &&
            other in layers.LAYER_IMPORTS &&
            (!allowed.includes(other) || (modules !== undefined && !modules.includes(target)))
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
    assert.ok(files.some((f) => f.layer === 'backend' && f.imports.some((i) => layerOf(i) === 'api')));
    assert.ok(files.some((f) => f.layer === 'features' && f.imports.includes('vscode')));
    assert.ok(files.some((f) => f.file === path.join('mcp', 'main.ts') && f.imports.includes('services/localBackend')));
  });

  it('imports only what each allow-list names, and vscode only in services/ and features/', () => {
    assert.deepEqual(violations(layers, sourceFiles(layers)), []);
  });

  it('reports an import outside the allow-list, and vscode in common/', () => {
    assert.deepEqual(
      violations(layers, [
        { layer: 'features', file: 'features/sync/scanner.ts', imports: ['backend/documents/store', 'api/http/errors'] },
        { layer: 'common', file: 'common/log.ts', imports: ['vscode'] },
        { layer: 'api', file: 'api/x.ts', imports: ['common/timers'] },
      ]),
      ['features/sync/scanner.ts → backend/documents/store', 'common/log.ts → vscode'],
    );
  });

  it('lets src/mcp/ use only the modules of services/ its list names', () => {
    assert.deepEqual(layers.LAYER_MODULES.mcp, { services: ['services/localBackend'] });
    assert.deepEqual(
      violations(layers, [
        { layer: 'mcp', file: 'mcp/main.ts', imports: ['services/localBackend', 'api/documents/client'] },
        { layer: 'mcp', file: 'mcp/x.ts', imports: ['services/errors', 'services', 'services/localBackend/lease'] },
      ]),
      ['mcp/x.ts → services/errors', 'mcp/x.ts → services', 'mcp/x.ts → services/localBackend/lease'],
    );
  });

  it('names in each module list only modules that exist and are imported (no spare allowance)', () => {
    const files = sourceFiles(layers);
    for (const [layer, byLayer] of Object.entries(layers.LAYER_MODULES)) {
      assert.ok(layer in layers.LAYER_IMPORTS, layer);
      for (const [other, modules] of Object.entries(byLayer)) {
        assert.ok(layers.LAYER_IMPORTS[layer]!.includes(other), `${layer} may import ${other}`);
        const used = new Set(files.filter((f) => f.layer === layer).flatMap((f) => f.imports.filter((i) => layerOf(i) === other)));
        assert.deepEqual([...used].sort(), [...modules].sort(), `what src/${layer}/ imports from src/${other}/`);
      }
    }
  });
});
