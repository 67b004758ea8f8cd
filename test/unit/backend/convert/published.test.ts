/**
 * Defects found with the public test files of Microsoft MarkItDown: the small files themselves
 * (test/fixtures/markitdown, MIT licence), or a small page with the same structure.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cleanLink } from '../../../../src/backend/convert/html';
import { cropPgm, enlargeSmallScan, missingLines } from '../../../../src/backend/convert/ocr';
import { convert, holds } from './convertHelpers';

const fixtures = path.join(__dirname, '../../../fixtures/markitdown');

/** The structure of a search results page (test_serp.html): a result's caption holds a tab list. */
const SERP =
  '<html><head><title>microsoft wikipedia - Search</title></head><body><header><nav><a href="/images">Images</a></nav></header>' +
  '<main><ol id="b_results"><li class="b_algo"><h2><a href="https://www.bing.com/ck/a?!&amp;&amp;p=f8f2&amp;ptn=3&amp;u=a1aHR0cHM6Ly9lbi53aWtpcGVkaWEub3JnL3dpa2kvTWljcm9zb2Z0&amp;ntb=1">Microsoft - Wikipedia</a></h2>' +
  '<div class="b_caption" role="contentinfo"><p>Microsoft Corporation is an American multinational technology company.</p>' +
  '<div class="tab-menu tab-hasnav"><ul id="tabcontrol_10_menu" role="tablist">' +
  '<li role="tab" id="tab_1_head">1975–1985: The founding of Microsoft</li><li role="tab" id="tab_2_head">1995–2007: Foray into the Web, Windows 95, Windows XP, and Xbox</li></ul></div>' +
  '<a href="/ck/a?!&amp;&amp;p=b582&amp;u=a1amF2YXNjcmlwdDp2b2lkKDAp&amp;ntb=1">Feedback</a></div></li></ol></main>' +
  '<footer>Privacy and Cookies</footer></body></html>';

describe('backend: MarkItDown public files that lost content', () => {
  it('a search result caption (role=contentinfo inside main) keeps its tab list items', async () => {
    holds(await convert('test_serp.html', SERP), [
      'Microsoft Corporation is an American multinational technology company.',
      '1975–1985: The founding of Microsoft',
      '1995–2007: Foray into the Web, Windows 95, Windows XP, and Xbox',
    ]);
  });

  it('tracking redirect links (/ck/a?…&u=a1<base64>) are replaced by their target; one to javascript: keeps only its text', async () => {
    const markdown = await convert('test_serp.html', SERP);
    holds(markdown, ['[Microsoft - Wikipedia](https://en.wikipedia.org/wiki/Microsoft)', 'Feedback'], ['ck/a', 'javascript:']);
    assert.equal(
      cleanLink('https://www.bing.com/ck/a?!&&p=1&u=a1aHR0cHM6Ly9lbi53aWtpcGVkaWEub3JnL3dpa2kvTWljcm9zb2Z0&ntb=1'),
      'https://en.wikipedia.org/wiki/Microsoft',
    );
  });

  it('links and pictures keep their title, as markdown writes it (test_wikipedia.html)', async () => {
    const page =
      '<html><body><main><p>Microsoft was founded by <a href="/wiki/Bill_Gates" title="Bill Gates">Bill Gates</a> and ' +
      '<a href="/wiki/Paul_Allen" title="Paul  Allen\n(co-founder)">Paul Allen</a>, see <a href="/wiki/Quote" title=\'The "Q" page\'>quote</a> ' +
      'or <a href="/wiki/Untitled">this</a>.</p><p><img src="/logo.png" alt="Logo" title="Microsoft logo"></p></main></body></html>';
    holds(await convert('test_wikipedia.html', page), [
      '[Bill Gates](/wiki/Bill_Gates "Bill Gates")',
      '[Paul Allen](/wiki/Paul_Allen "Paul Allen (co-founder)")',
      '[quote](/wiki/Quote "The \\"Q\\" page")',
      '[this](/wiki/Untitled)',
      '![Logo](/logo.png "Microsoft logo")',
    ]);
  });

  it('EPUB: the book description and the labelled author (test.epub)', async () => {
    holds(await convert('test.epub', readFileSync(path.join(fixtures, 'test.epub'))), [
      '# Test EPUB Document',
      '- Author: Test Author',
      '- Description: A test EPUB document for MarkItDown testing',
      '# Chapter 1: Test Content',
    ]);
  });

  it('Outlook .msg: headers labelled as for .eml, with the subject and without empty ones (test_outlook_msg.msg)', async () => {
    holds(
      await convert('test_outlook_msg.msg', readFileSync(path.join(fixtures, 'test_outlook_msg.msg'))),
      [
        '- From: M. C. Kurtuluş <test.sender@example.com>',
        '- To: test.recipient@example.com',
        '- Subject: Test Email Message',
        '- Date: 2024-12-22T08:23:00Z',
        'This is the body of the test email message',
      ],
      ['- Cc:'],
    );
  });
});

describe('backend: scans are read at a resolution OCR can use, header and footer bands included', () => {
  const pgm = (width: number, height: number, value = 200) =>
    Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1'), Buffer.alloc(width * height, value)]);

  it('a page scanned at a low resolution is enlarged twice; pictures and large scans are not', () => {
    const page = enlargeSmallScan(pgm(850, 1100), 40_000_000);
    assert.match(page.subarray(0, 20).toString('latin1'), /^P5\n1700 2200\n255\n/);
    assert.equal(page.length, Buffer.byteLength('P5\n1700 2200\n255\n') + 1700 * 2200);
    assert.equal(page[page.length - 1], 200);
    assert.equal(enlargeSmallScan(pgm(300, 120), 40_000_000).length, pgm(300, 120).length);
    assert.equal(enlargeSmallScan(pgm(2550, 3300), 40_000_000).length, pgm(2550, 3300).length);
    // Never past the pixel bound of OCR.
    assert.equal(enlargeSmallScan(pgm(850, 1100), 1_000_000).length, pgm(850, 1100).length);
  });

  it("a band's lines that the page's reading missed are kept (a letterhead), those it read are not repeated", () => {
    const top = cropPgm(pgm(100, 200), 0, 0.15)!;
    assert.match(top.subarray(0, 16).toString('latin1'), /^P5\n100 30\n255\n/);
    assert.deepEqual(
      missingLines(
        'SEATTLE GENERAL HOSPITAL\nDepartment of Internal Medicine\n~ ,',
        'Department of Internal Medicine\n1200 Healthcare Avenue',
      ),
      ['SEATTLE GENERAL HOSPITAL'],
    );
  });
});
