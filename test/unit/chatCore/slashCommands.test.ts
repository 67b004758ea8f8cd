import * as assert from 'node:assert/strict';
import { isToolCommand, MAX_CRAWL_URLS, normaliseWebUrl, parseToolCommand } from '../../../src/features/gatewayTools';

describe('tool slash commands', () => {
  it('leaves ordinary questions and other commands alone', () => {
    assert.equal(parseToolCommand('What is the deploy process?'), undefined);
    assert.equal(parseToolCommand('/webhook setup'), undefined);
    assert.equal(parseToolCommand('/search rollback'), undefined);
    assert.equal(isToolCommand('explain /web please'), false);
    assert.equal(isToolCommand('  /research topic'), true);
  });

  it('parses /web and /research with their whole argument, case-insensitively', () => {
    assert.deepEqual(parseToolCommand('/web  solar panels\nin 2025 '), {
      ok: true,
      command: { name: 'web', query: 'solar panels\nin 2025' },
    });
    assert.deepEqual(parseToolCommand('/Research battery recycling'), {
      ok: true,
      command: { name: 'research', topic: 'battery recycling' },
    });
  });

  it('answers with the usage when the argument is missing', () => {
    assert.deepEqual(parseToolCommand('/web'), { ok: false, name: 'web', error: 'Usage: /web <query>' });
    assert.deepEqual(parseToolCommand('/crawl   '), { ok: false, name: 'crawl', error: 'Usage: /crawl <url…>' });
    assert.deepEqual(parseToolCommand('/research'), { ok: false, name: 'research', error: 'Usage: /research <topic>' });
  });

  it('refuses a query over the service limit', () => {
    const parsed = parseToolCommand(`/web ${'a'.repeat(10_001)}`);
    assert.equal(parsed?.ok, false);
    assert.match(!parsed!.ok ? parsed!.error : '', /too long .*10,000/);
  });

  it('parses /crawl URLs: separated by spaces or commas, de-duplicated, bare hosts as https', () => {
    const parsed = parseToolCommand('/crawl https://a.example/x, <http://b.example/y> example.com/docs https://a.example/x');
    assert.deepEqual(parsed, {
      ok: true,
      command: { name: 'crawl', urls: ['https://a.example/x', 'http://b.example/y', 'https://example.com/docs'] },
    });
  });

  it('refuses non-web URLs and too many URLs', () => {
    const bad = parseToolCommand('/crawl https://ok.example file:///etc/passwd');
    assert.deepEqual(bad, { ok: false, name: 'crawl', error: 'Not an http(s) URL: file:///etc/passwd. Usage: /crawl <url…>' });
    assert.equal(parseToolCommand('/crawl javascript:alert(1)')?.ok, false);
    const many = Array.from({ length: MAX_CRAWL_URLS + 1 }, (_, i) => `https://e.example/${i}`).join(' ');
    const tooMany = parseToolCommand(`/crawl ${many}`);
    assert.equal(tooMany?.ok, false);
    assert.match(!tooMany!.ok ? tooMany!.error : '', /At most 10 URLs/);
  });

  it('normalises web URLs', () => {
    assert.equal(normaliseWebUrl('HTTPS://Example.com'), 'https://example.com/');
    assert.equal(normaliseWebUrl('not a url'), undefined);
    assert.equal(normaliseWebUrl('mailto:a@b.c'), undefined);
  });
});
