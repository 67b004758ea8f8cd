#!/usr/bin/env node
// `node scripts/icon.mjs`: renders media/icon.png, DocChat's icon on the Marketplace and in the
// Extensions view (128×128), from the activity bar's media/icons/docchat.svg: its strokes in white
// on a blue tile with rounded corners, which reads on light and dark pages alike: white on the
// tile is 4.9:1, and the tile stands out 4.9:1 against a white page and 3.1:1 or more against the
// dark backgrounds of VS Code (#1e1e1e, #252526). Rerun it after changing the SVG; commit the PNG.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCanvas, Image } from '@napi-rs/canvas';
import { repoRoot } from './lib/common.mjs';

const SIZE = 128;
const RADIUS = 22;
const TILE = '#0074c8';
const GLYPH = '#ffffff';
/** The 24-unit glyph drawn over 88 pixels, so its 1.5-unit strokes are 5.5 pixels wide. */
const GLYPH_SIZE = 88;

export function renderIcon(svgText) {
  const svg = svgText.replaceAll('currentColor', GLYPH);
  const glyph = new Image();
  glyph.src = Buffer.from(svg);
  const canvas = createCanvas(SIZE, SIZE);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = TILE;
  ctx.beginPath();
  ctx.roundRect(0, 0, SIZE, SIZE, RADIUS);
  ctx.fill();
  const offset = (SIZE - GLYPH_SIZE) / 2;
  ctx.drawImage(glyph, offset, offset, GLYPH_SIZE, GLYPH_SIZE);
  return canvas.toBuffer('image/png');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const svgText = readFileSync(path.join(repoRoot, 'media/icons/docchat.svg'), 'utf8');
  const out = path.join(repoRoot, 'media/icon.png');
  const png = renderIcon(svgText);
  writeFileSync(out, png);
  console.log(`[docchat] wrote ${path.relative(repoRoot, out)} (${SIZE}×${SIZE}, ${png.length} bytes)`);
}
