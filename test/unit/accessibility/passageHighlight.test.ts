/**
 * The highlight of a cited quote (its characters) and of a whole passage (its lines) in the themes
 * VS Code ships, as captured in test/fixtures/themes: each is drawn, and the text on it stays
 * readable (WCAG 1.4.3, 4.5:1); where only a border draws it (high contrast), the border stands
 * out from the editor (WCAG 1.4.11, 3:1).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PASSAGE_HIGHLIGHT, QUOTE_HIGHLIGHT } from '../../../src/features/search/passageLocate';

type Rgba = [number, number, number, number];

function parse(color: string): Rgba {
  const hex = /^#([\da-f]{6})([\da-f]{2})?$/i.exec(color);
  if (hex) {
    const n = parseInt(hex[1]!, 16);
    return [n >> 16, (n >> 8) & 255, n & 255, hex[2] ? parseInt(hex[2], 16) / 255 : 1];
  }
  const [r, g, b, a] = (color.match(/[\d.]+/g) ?? []).map(Number);
  assert.ok(r !== undefined && g !== undefined && b !== undefined, `not a colour: ${color}`);
  return [r, g, b, a ?? 1];
}

/** `top` drawn over the opaque `under`. */
function over(top: Rgba, under: Rgba): Rgba {
  const [r, g, b, a] = top;
  return [r * a + under[0] * (1 - a), g * a + under[1] * (1 - a), b * a + under[2] * (1 - a), 1];
}

function luminance([r, g, b]: Rgba): number {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function contrast(a: Rgba, b: Rgba): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const THEMES = ['dark-plus', 'light-plus', 'hc-dark', 'hc-light'];
const cssVariable = (id: string) => `--vscode-${id.replace(/\./g, '-')}`;

describe('passage and quote highlights in the bundled themes', () => {
  for (const theme of THEMES) {
    const variables = (
      JSON.parse(readFileSync(path.join(__dirname, '../../fixtures/themes', `${theme}.json`), 'utf8')) as {
        variables: Record<string, string>;
      }
    ).variables;
    const editor = parse(variables['--vscode-editor-background']!);
    const text = parse(variables['--vscode-editor-foreground']!);
    for (const [what, colours] of [
      ['a quote', QUOTE_HIGHLIGHT],
      ['a whole passage', PASSAGE_HIGHLIGHT],
    ] as const) {
      it(`${theme}: ${what} is drawn and its text stays readable`, () => {
        const background = variables[cssVariable(colours.background)];
        const border = variables[cssVariable(colours.border)];
        assert.ok(background || border, `${colours.background} and ${colours.border} are both unset: nothing is drawn`);
        const under = background ? over(parse(background), editor) : editor;
        const readable = contrast(text, under);
        assert.ok(readable >= 4.5, `text on the highlight is ${readable.toFixed(2)}:1`);
        if (!background) {
          const edge = contrast(over(parse(border!), editor), editor);
          assert.ok(edge >= 3, `the border alone draws it, at ${edge.toFixed(2)}:1`);
        }
      });
    }
  }
});
