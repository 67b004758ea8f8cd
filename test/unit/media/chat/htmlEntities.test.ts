import * as assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';

// The webview decodes markdown's `&name;` with the browser's HTML parser instead of the entities
// package (esbuild.mjs aliases it): it must decode exactly what the package does, no more.

const dom = new JSDOM('<!doctype html><html><body></body></html>');
const g = globalThis as Record<string, unknown>;
const { decodeHTMLStrict } = require('../../../../media/chat/htmlEntities') as typeof import('../../../../media/chat/htmlEntities');

// entities is an ES module only; markdown-it imports its decodeHTMLStrict.
let reference: (text: string) => string;
let encodeHTML: (text: string) => string;

describe('chat webview: HTML entities through the browser', () => {
  let previousDocument: unknown;
  before(async () => {
    ({ decodeHTMLStrict: reference, encodeHTML } = await import('entities'));
    previousDocument = g.document;
    g.document = dom.window.document;
  });
  after(() => {
    g.document = previousDocument;
  });

  it('decodes every named reference as the entities package does', () => {
    const names = new Set<string>();
    for (let c = 0; c <= 0x1ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      for (const match of encodeHTML(String.fromCodePoint(c)).matchAll(/&[A-Za-z][A-Za-z0-9]*;/g)) names.add(match[0]);
    }
    assert.ok(names.size > 1000, `only ${names.size} names found`);
    const differing = [...names].filter((name) => decodeHTMLStrict(name) !== reference(name));
    assert.deepEqual(differing, []);
  });

  it('leaves alone what strict decoding leaves alone: legacy prefixes, unknown names, wrong case', () => {
    for (const text of ['&notit;', '&ampx;', '&copyright;', '&nosuchname;', '&AmP;', '&lt', '&semi;', '&NotNestedLessLess;', '&b.prime;']) {
      assert.equal(decodeHTMLStrict(text), reference(text), text);
    }
  });
});
