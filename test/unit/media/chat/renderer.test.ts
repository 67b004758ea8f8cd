import * as assert from 'node:assert/strict';
import createDOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/common';
import { JSDOM } from 'jsdom';
import { IncrementalMarkdownRenderer } from '../../../../media/chat/incrementalRenderer';
import {
  createMarkdownPipeline,
  highlightPending,
  loadedHighlighter,
  type HighlighterSource,
  type MarkdownEnv,
  type MarkdownPipeline,
} from '../../../../media/chat/markdown';

const { window } = new JSDOM('<!doctype html><html><body></body></html>');
const document = window.document;
const purify = createDOMPurify(window as unknown as Window & typeof globalThis);
const pipeline: MarkdownPipeline = createMarkdownPipeline(purify, loadedHighlighter(hljs));
const env: MarkdownEnv = { sourceCount: 3 };

function fullRender(text: string, e: MarkdownEnv = env): string {
  const container = document.createElement('div');
  container.append(pipeline.render(text, e));
  return container.innerHTML;
}

function incremental(
  chunks: string[],
  e: MarkdownEnv = env,
  onUpdate?: (html: string, soFar: string) => void,
): { html: string; renderer: IncrementalMarkdownRenderer } {
  const container = document.createElement('div');
  const renderer = new IncrementalMarkdownRenderer(container as unknown as HTMLElement, pipeline, e);
  let soFar = '';
  for (const chunk of chunks) {
    renderer.append(chunk);
    soFar += chunk;
    onUpdate?.(container.innerHTML, soFar);
  }
  renderer.finish();
  return { html: container.innerHTML, renderer };
}

function splitEvery(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

/** Deterministic pseudo-random chunk sizes (1..max). */
function randomChunks(text: string, seed: number, max: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const chunks: string[] = [];
  for (let i = 0; i < text.length;) {
    const size = 1 + Math.floor(next() * max);
    chunks.push(text.slice(i, i + size));
    i += size;
  }
  return chunks;
}

const DOCUMENTS: Record<string, string> = {
  mixed: [
    '# Retention policy',
    '',
    'Invoices are kept for **ten years** [1], contracts for *six* [2][3].',
    'A second line of the same paragraph with `inline code`.',
    '',
    '## Steps',
    '',
    '1. Open the archive',
    '2. Search for the file',
    '   - nested item',
    '   - another',
    '3. Done',
    '',
    '> A quote that',
    'continues lazily.',
    '',
    '```ts',
    'export function keep(years: number): boolean {',
    '  return years >= 10;',
    '}',
    '```',
    '',
    '| Kind | Years |',
    '| --- | --- |',
    '| Invoice | 10 |',
    '| Contract | 6 |',
    '',
    'Setext heading',
    '--------------',
    '',
    '***',
    '',
    '    indented code',
    '',
    '    still code',
    '',
    'See https://example.com/policy and [the wiki](https://wiki.example.com/a?b=c).',
    '',
  ].join('\n'),
  looseList: '- one\n- two\n\n- three\n\nparagraph after\n- new list\n',
  tricky: 'Foo\n#hashtag not a heading\n***bold italic*** text\n#\n\nBar\n---\nBaz\n===\n',
  unclosedFence: 'Intro [1]\n\n~~~python\nprint("a")\n\nprint("b")\n',
  fenceInList: '- item\n\n  ```js\n  const a = 1;\n  ```\n- next\n',
  crlf: 'line one\r\nline two\r\n\r\n# head\r\n',
  emptyLines: '\n\n\npara\n\n\n\n\n',
  blankLineContinuations:
    '> quote\n\n> another quote\nlazy\n\n    code\n\n    more code\n\n- item\n\n  continued item\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nend\n',
  headingsAndRules: '# H1\n## H2\ntext\n***\n___\nsetext\n===\n\n- - -\n',
  citationsEdge: '[1] [2, 3] [4] [1](https://x.example) [0] [3,1]\n',
};

describe('chat renderer: incremental rendering', function () {
  // The exhaustive split-point checks render each document about a thousand times (slow on a busy machine).
  this.timeout(180_000);
  for (const [name, text] of Object.entries(DOCUMENTS)) {
    it(`${name}: gives the full render's DOM for every single split point`, () => {
      const expected = fullRender(text);
      for (let split = 0; split <= text.length; split++) {
        const { html } = incremental([text.slice(0, split), text.slice(split)]);
        assert.equal(html, expected, `split at ${split}`);
      }
    });

    it(`${name}: gives the full render's DOM for character, small and random chunkings`, () => {
      const expected = fullRender(text);
      const chunkings = [
        splitEvery(text, 1),
        splitEvery(text, 2),
        splitEvery(text, 7),
        ...[1, 2, 3, 4, 5].map((seed) => randomChunks(text, seed, 12)),
      ];
      for (const chunks of chunkings) {
        assert.equal(incremental(chunks).html, expected, `chunks: ${JSON.stringify(chunks.slice(0, 6))}…`);
      }
    });
  }

  it('matches the full render of the text so far after every update (outside an open fence)', () => {
    const text = DOCUMENTS.mixed!.split('```ts')[0]! + DOCUMENTS.looseList + DOCUMENTS.tricky;
    let checked = 0;
    incremental(splitEvery(text, 3), env, (html, soFar) => {
      assert.equal(html, fullRender(soFar), `after ${JSON.stringify(soFar.slice(-20))}`);
      checked++;
    });
    assert.ok(checked > 50);
  });

  it('renders finished blocks once: committed nodes stay the same objects while the tail grows', () => {
    const container = document.createElement('div');
    const renderer = new IncrementalMarkdownRenderer(container as unknown as HTMLElement, pipeline, env);
    renderer.append('# Title\n\nFirst paragraph.\n\nSecond');
    const heading = container.querySelector('h1');
    const first = container.querySelectorAll('p')[0];
    assert.ok(heading && first);
    for (const piece of [' paragraph', ' grows', '\n\nThird', ' one.']) {
      renderer.append(piece);
      assert.equal(container.querySelector('h1'), heading, 'the heading was rendered again');
      assert.equal(container.querySelectorAll('p')[0], first, 'the first paragraph was rendered again');
    }
    renderer.finish();
    assert.equal(container.querySelector('h1'), heading);
  });

  it('streams an open fence by appending text, then highlights it once it closes', () => {
    const container = document.createElement('div');
    const renderer = new IncrementalMarkdownRenderer(container as unknown as HTMLElement, pipeline, env);
    renderer.append('Code:\n\n```ts\nconst a = 1;\n');
    const code = container.querySelector('code');
    assert.ok(code);
    renderer.append('const b = 2;\nconst c');
    assert.equal(container.querySelector('code'), code, 'the open fence was re-rendered');
    assert.equal(code.textContent, 'const a = 1;\nconst b = 2;\nconst c');
    assert.equal(code.querySelector('.hljs-keyword'), null, 'not highlighted while open');
    renderer.append(' = 3;\n```\n\nAfter.');
    assert.ok(container.querySelector('code .hljs-keyword'), 'highlighted once closed');
    renderer.finish();
    assert.equal(container.innerHTML, fullRender('Code:\n\n```ts\nconst a = 1;\nconst b = 2;\nconst c = 3;\n```\n\nAfter.'));
  });

  it('keeps the tail small: a long answer of many paragraphs re-renders only the last block', () => {
    const container = document.createElement('div');
    let rendered = 0;
    const counting: MarkdownPipeline = { ...pipeline, render: (text, e) => ((rendered += text.length), pipeline.render(text, e)) };
    const renderer = new IncrementalMarkdownRenderer(container as unknown as HTMLElement, counting, env);
    const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit [1].\n\n';
    const text = paragraph.repeat(200);
    for (const chunk of splitEvery(text, 5)) renderer.append(chunk);
    renderer.finish();
    // Linear: each character is rendered a bounded number of times (tail re-renders of one
    // paragraph), not once per update as a full re-render would do (~quadratic: > 1000x).
    assert.ok(rendered < text.length * 20, `rendered ${rendered} characters for a ${text.length}-character answer`);
    assert.equal(container.innerHTML, fullRender(text));
  });

  it('push() only buffers: flush() renders everything pushed since in one pass, the same DOM as appending', () => {
    const text = DOCUMENTS.mixed!;
    const container = document.createElement('div');
    let passes = 0;
    const counting: MarkdownPipeline = {
      ...pipeline,
      blocks: (t, e) => (passes++, pipeline.blocks(t, e)),
      render: (t, e) => (passes++, pipeline.render(t, e)),
      parse: (t, e) => (passes++, pipeline.parse(t, e)),
    };
    const renderer = new IncrementalMarkdownRenderer(container as unknown as HTMLElement, counting, env);
    const chunks = randomChunks(text, 11, 40);
    const perFrame = 10;
    let frames = 0;
    for (let i = 0; i < chunks.length; i += perFrame) {
      for (const chunk of chunks.slice(i, i + perFrame)) renderer.push(chunk);
      assert.equal(renderer.pending, true);
      const before = passes;
      renderer.flush();
      frames++;
      assert.ok(passes - before <= 4, `one flush parses a bounded number of times (${passes - before})`);
      assert.equal(renderer.pending, false);
      renderer.flush();
    }
    assert.ok(passes <= frames * 4, `${passes} parses for ${frames} flushes`);
    renderer.finish();
    assert.equal(container.innerHTML, fullRender(text));
  });

  it('keeps a CRLF split across two deltas as one line break', () => {
    assert.equal(incremental(['a\r', '\nb\r', '\n']).html, fullRender('a\nb\n'));
  });

  it('exposes the text received so far', () => {
    const { renderer } = incremental(['# A\n\n', 'b\r', '\nc']);
    assert.equal(renderer.text, '# A\n\nb\nc');
  });
});

describe('chat renderer: markdown features', () => {
  it('turns [n] into citation links only for existing sources', () => {
    const html = fullRender('See [1], [2, 3] and [4]; [1](https://x.example) is a link.', { sourceCount: 3 });
    const dom = JSDOM.fragment(html);
    const citations = [...dom.querySelectorAll('a.citation')].map((a) => a.getAttribute('data-citation'));
    assert.deepEqual(citations, ['1', '2', '3']);
    assert.ok(html.includes('[4]'), 'an out-of-range number stays text');
    assert.equal(dom.querySelector('a[data-href="https://x.example"]')?.textContent, '1');
  });

  it('renders no citations when the answer has no sources', () => {
    assert.equal(JSDOM.fragment(fullRender('Plain [1].', { sourceCount: 0 })).querySelector('.citation'), null);
  });

  it('highlights code and adds copy / insert buttons', () => {
    const dom = JSDOM.fragment(fullRender('```python\ndef f():\n    return 1\n```\n'));
    assert.ok(dom.querySelector('code.language-python .hljs-keyword'));
    assert.deepEqual(
      [...dom.querySelectorAll('.code-block button')].map((b) => b.getAttribute('data-action')),
      ['copy', 'insert'],
    );
  });

  it('renders code before highlight.js is loaded, asks for it once, and highlights in place when it arrives', () => {
    let requests = 0;
    const loading: { current: typeof hljs | undefined; request(): void } = { current: undefined, request: () => void requests++ };
    const lazy = createMarkdownPipeline(purify, loading as HighlighterSource);
    const container = document.createElement('div');
    container.append(
      lazy.render('Plain:\n\n```\nno language\n```\n\n```python\ndef f():\n    return 1\n```\n\n```nosuchlanguage\nx\n```\n', env),
    );
    assert.equal(requests, 2, 'one request per block with a language; the loader loads once');
    const [plain, python, unknown] = [...container.querySelectorAll('code')];
    assert.equal(plain!.className, 'hljs', 'a block without a language waits for nothing');
    assert.equal(python!.textContent, 'def f():\n    return 1\n');
    assert.equal(python!.querySelector('.hljs-keyword'), null);
    highlightPending(container as unknown as HTMLElement, hljs, purify);
    assert.ok(python!.querySelector('.hljs-keyword'), 'highlighted in place');
    assert.equal(python!.textContent, 'def f():\n    return 1\n');
    assert.equal(container.querySelectorAll('code.hljs-pending').length, 0);
    assert.equal(unknown!.textContent, 'x\n');
    // What it shows matches a render with highlight.js loaded from the start.
    assert.equal(
      python!.outerHTML,
      JSDOM.fragment(fullRender('```python\ndef f():\n    return 1\n```\n')).querySelector('code')!.outerHTML,
    );
  });

  it('configures DOMPurify once, not on every sanitized fragment, and sanitizes as before', () => {
    const fresh = createDOMPurify(window as unknown as Window & typeof globalThis);
    let setConfigCalls = 0;
    let configuredSanitizeCalls = 0;
    const counting = new Proxy(fresh, {
      get(target, key, receiver) {
        if (key === 'setConfig') {
          return (...args: Parameters<typeof fresh.setConfig>) => {
            setConfigCalls++;
            return target.setConfig(...args);
          };
        }
        if (key === 'sanitize') {
          return (...args: unknown[]) => {
            // A configuration given to sanitize is parsed again on that call.
            if (args.length > 1) configuredSanitizeCalls++;
            return (target.sanitize as (...a: unknown[]) => unknown)(...args);
          };
        }
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const lazy = createMarkdownPipeline(counting, { current: undefined, request: () => undefined });
    const container = document.createElement('div');
    const renderer = new IncrementalMarkdownRenderer(container as unknown as HTMLElement, lazy, env);
    const text =
      Array.from({ length: 20 }, (_, i) => `Paragraph ${i} with [a link](https://example.com/${i}).\n\n`).join('') +
      '<script>alert(1)</script><p style="color:red" onclick="x()">styled</p>\n\n```ts\nconst a = 1;\n```\n';
    for (const line of text.split(/(?<=\n)/)) renderer.append(line);
    renderer.finish();
    highlightPending(container as unknown as HTMLElement, hljs, counting);
    assert.equal(setConfigCalls, 1);
    assert.equal(configuredSanitizeCalls, 0);
    // The same configuration as before: no script, style, handler or href; links through data-href; code highlighted.
    const html = container.innerHTML;
    assert.equal(container.querySelectorAll('script, [style], [onclick], [href]').length, 0);
    assert.equal(container.querySelectorAll('[data-href]').length, 20);
    assert.ok(container.querySelector('code .hljs-keyword'));
    assert.equal(html, fullRender(text), 'what a pipeline configured per call renders');
  });

  it('never highlights an open fence late: its text nodes keep growing', () => {
    const lazy = createMarkdownPipeline(purify, { current: undefined, request: () => undefined });
    const container = document.createElement('div');
    const renderer = new IncrementalMarkdownRenderer(container as unknown as HTMLElement, lazy, env);
    renderer.append('```ts\nconst a = 1;\n');
    highlightPending(container as unknown as HTMLElement, hljs, purify);
    renderer.append('const b = 2;\n');
    assert.equal(container.querySelector('code')!.textContent, 'const a = 1;\nconst b = 2;\n');
  });

  it('aligns table columns with classes, never an inline style the webview CSP would report', () => {
    const table = '| Name | Value | Unit |\n| :--- | ---: | :---: |\n| a | 1 | kg |\n';
    // The HTML handed to DOMPurify already has no style attribute: Chromium reports one under the
    // CSP while DOMPurify parses, before its FORBID_ATTR drops it.
    assert.doesNotMatch(pipeline.md.render(table, env), /style=/);
    const dom = JSDOM.fragment(fullRender(table));
    assert.deepEqual(
      [...dom.querySelectorAll('td')].map((td) => td.className),
      ['md-align-left', 'md-align-right', 'md-align-center'],
    );
    assert.equal(dom.querySelector('th')?.className, 'md-align-left');
    const streamed = JSDOM.fragment(incremental(splitEvery(table, 3)).html);
    assert.equal(streamed.querySelectorAll('td.md-align-right').length, 1);
  });

  it("renders a table cell's HTML line break (`<br>`, `<br/>`, `<br />`) as a line break, and no other HTML", () => {
    const table = '| a | b |\n|---|---|\n| one<br>two | three<br/>four<br />five |\n| `x<br>y` | <b>bold</b><br> |\n';
    const dom = JSDOM.fragment(fullRender(table));
    const cells = [...dom.querySelectorAll('td')];
    assert.deepEqual(
      cells.map((td) => td.querySelectorAll('br').length),
      [1, 2, 0, 1],
    );
    assert.equal(cells[0]!.textContent!.replace(/\n/g, ''), 'onetwo');
    assert.equal(cells[1]!.textContent!.replace(/\n/g, ''), 'threefourfive');
    // In a code span the text stays as written; other HTML stays text.
    assert.equal(cells[2]!.querySelector('code')?.textContent, 'x<br>y');
    assert.equal(cells[3]!.querySelector('b'), null);
    assert.equal(cells[3]!.textContent!.trim(), '<b>bold</b>');
    assert.ok(!/&lt;br/i.test(dom.querySelector('tbody')!.innerHTML.replace(/<code>.*?<\/code>/g, '')));
    // Outside a table it stays text, as all HTML does.
    assert.equal(JSDOM.fragment(fullRender('one<br>two')).querySelector('br'), null);
    const streamed = JSDOM.fragment(incremental(splitEvery(table, 4)).html);
    assert.equal(streamed.querySelectorAll('td br').length, 4);
  });

  it('shows images as links instead of loading them', () => {
    const dom = JSDOM.fragment(fullRender('![diagram](https://images.example/d.png)'));
    assert.equal(dom.querySelector('img'), null);
    assert.equal(dom.querySelector('a.md-image')?.getAttribute('data-href'), 'https://images.example/d.png');
  });

  it('keeps link targets out of href (the host opens them after a scheme check)', () => {
    const dom = JSDOM.fragment(fullRender('[site](https://example.com) <https://auto.example> mail@example.com'));
    assert.equal(dom.querySelector('[href]'), null);
    assert.deepEqual(
      [...dom.querySelectorAll('[data-href]')].map((a) => a.getAttribute('data-href')),
      ['https://example.com', 'https://auto.example'],
    );
  });

  it('renders as text a link the host would not open: mailto and a host the URL parser refuses', () => {
    const dom = JSDOM.fragment(
      fullRender('Write to [the team](mailto:team@example.com), see [the wiki](http://%zz/wiki) or <https://[::1/x>.'),
    );
    assert.deepEqual(
      [...dom.querySelectorAll('[data-href], [role=link], [tabindex]')].map((a) => a.outerHTML),
      [],
      'no link to something the host refuses',
    );
    assert.match(dom.textContent ?? '', /Write to the team, see the wiki or/);
  });

  it("shows a quoted document's own links and images by their text, not their markdown, and opens none of them", () => {
    const dom = JSDOM.fragment(
      fullRender(
        'Put the CA in `caFiles`; see [Network](docs/network.md) and [Usage](#usage).\n\n![The chat in the dark theme](media/chat.png)',
      ),
    );
    assert.equal(dom.textContent?.trim().replace(/\s+/g, ' '), 'Put the CA in caFiles; see Network and Usage. The chat in the dark theme');
    assert.deepEqual(
      [...dom.querySelectorAll('[href], [data-href], [role=link], [tabindex], img')].map((e) => e.outerHTML),
      [],
    );
    for (const other of [
      '[x](javascript:alert(1))',
      '[x](file:///etc/passwd)',
      '[x](command:workbench.action.reloadWindow)',
      '[x](//evil.example/p)',
    ]) {
      assert.equal(JSDOM.fragment(fullRender(other)).querySelector('a'), null, `${other} is no link`);
    }
  });
});

const XSS_PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)><circle/></svg>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<a href="javascript:alert(1)">click</a>',
  '[click](javascript:alert(1))',
  '[click](JaVaScRiPt:alert(1))',
  '[click](&#x6A;avascript:alert(1))',
  '[click](javascript&#58;alert(1))',
  '[click](  javascript:alert(1))',
  '[click](vbscript:msgbox(1))',
  '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[click](command:workbench.action.terminal.new)',
  '[click](file:///etc/passwd)',
  '[click](vscode://ms-vscode.some/cmd)',
  '<javascript:alert(1)>',
  '<command:workbench.action.reloadWindow>',
  '![x](javascript:alert(1))',
  '![x](https://evil.example/x.png "onerror=alert(1)")',
  '[x](https://ok.example "\\" onmouseover=\\"alert(1)")',
  '```"><script>alert(1)</script>\ncode\n```',
  '```js onload=alert(1)\ncode\n```',
  '<style>body{display:none}</style>',
  '<form action="https://evil.example"><input name=a></form>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '[a]: javascript:alert(1)\n\n[a]',
  '<details open ontoggle=alert(1)>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  '<a href="https://ok.example" onclick="alert(1)">ok</a>',
  '[<img src=x onerror=alert(1)>](https://ok.example)',
  '<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)">',
  '<base href="https://evil.example/">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
];

describe('chat renderer: untrusted model output renders inert', () => {
  const DANGEROUS_TAGS = ['script', 'iframe', 'object', 'embed', 'svg', 'math', 'img', 'style', 'form', 'input', 'base', 'meta', 'link'];
  const DANGEROUS_URL = /^\s*(?:javascript|vbscript|data|command|file|vscode):/i;

  function assertInert(container: Element, payload: string): void {
    for (const tag of DANGEROUS_TAGS) {
      assert.equal(container.querySelector(tag), null, `<${tag}> survived ${payload}`);
    }
    for (const element of container.querySelectorAll('*')) {
      for (const attribute of Array.from(element.attributes)) {
        assert.ok(!/^on/i.test(attribute.name), `${attribute.name} survived ${payload}`);
        assert.notEqual(attribute.name, 'style', `style survived ${payload}`);
        assert.notEqual(attribute.name, 'href', `href survived ${payload}`);
        assert.notEqual(attribute.name, 'src', `src survived ${payload}`);
        assert.ok(!DANGEROUS_URL.test(attribute.value), `${attribute.name}="${attribute.value}" survived ${payload}`);
      }
    }
  }

  for (const payload of XSS_PAYLOADS) {
    it(`renders inert: ${payload.replace(/\n/g, '\\n').slice(0, 70)}`, () => {
      const full = document.createElement('div');
      full.append(pipeline.render(payload, env));
      assertInert(full, payload);
      const streamed = document.createElement('div');
      const renderer = new IncrementalMarkdownRenderer(streamed as unknown as HTMLElement, pipeline, env);
      for (const chunk of splitEvery(payload, 3)) {
        renderer.append(chunk);
        assertInert(streamed, payload);
      }
      renderer.finish();
      assertInert(streamed, payload);
    });
  }

  it('shows raw HTML as text rather than dropping it silently', () => {
    const container = document.createElement('div');
    container.append(pipeline.render('<script>alert(1)</script>', env));
    assert.equal(container.textContent?.trim(), '<script>alert(1)</script>');
  });
});
