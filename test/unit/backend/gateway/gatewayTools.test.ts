import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startTestBackend, tempDir, type TestBackend } from '../helpers';

describe('backend: gateway tools', () => {
  let t: TestBackend;
  let site: Server;
  let siteUrl: string;
  before(async () => {
    t = await startTestBackend();
    site = createServer((req, res) => {
      if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          '<html><head><title>Team page</title></head><body><h2>Contacts</h2><p>Write to <a href="mailto:x@example.com">us</a>.</p><script>evil()</script></body></html>',
        );
      } else if (req.url === '/notes.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('plain notes');
      } else if (req.url === '/moved') {
        res.writeHead(302, { location: '/page' });
        res.end();
      } else {
        res.writeHead(404);
        res.end('missing');
      }
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  after(async () => {
    await t.close();
    await new Promise((resolve) => site.close(resolve));
  });

  it('skillshare finds people in the bundled sample directory', async () => {
    const reply = await t.gw('POST', '/v1/tools/skillshare', { query: 'someone who knows Kubernetes and Terraform' });
    assert.equal(reply.status, 200);
    assert.ok(Array.isArray(reply.json));
    const [best] = reply.json;
    assert.equal(best.name, 'Amara Okafor');
    assert.deepEqual(best.top_match_terms.slice(0, 2).sort(), ['Kubernetes', 'Terraform']);
    assert.ok(best.information.some((i: string) => i.includes('Platform Engineering')));
    assert.match(best.skillshare_link, /^https:\/\//);
    assert.deepEqual((await t.gw('POST', '/v1/tools/skillshare', { query: 'underwater basket weaving' })).json, []);
    assert.equal((await t.gw('POST', '/v1/tools/skillshare', {})).status, 400);
  });

  it('skillshare reads a --skills file', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'people.json');
    await writeFile(
      file,
      JSON.stringify([{ name: 'Zed', skills: ['COBOL'], information: ['Mainframes'], skillshare_link: 'https://x/zed' }]),
    );
    const other = await startTestBackend({ skillsFile: file });
    try {
      const reply = await other.gw('POST', '/v1/tools/skillshare', { query: 'cobol' });
      assert.deepEqual(
        reply.json.map((p: { name: string }) => p.name),
        ['Zed'],
      );
    } finally {
      await other.close();
    }
  });

  it('web crawl returns markdown with the title, follows redirects and reports failures per URL', async () => {
    const reply = await t.gw('POST', '/v1/tools/web/crawl', {
      urls: [`${siteUrl}/page`, `${siteUrl}/notes.txt`, `${siteUrl}/gone`, `${siteUrl}/moved`],
    });
    assert.equal(reply.status, 200, reply.text);
    const [page, notes, gone, moved] = reply.json.results;
    assert.equal(page.title, 'Team page');
    assert.match(page.content, /## Contacts/);
    assert.match(page.content, /\[us\]\(mailto:x@example.com\)/);
    assert.ok(!page.content.includes('evil'));
    assert.equal(notes.content.trim(), 'plain notes');
    assert.equal(gone.error, 'HTTP 404 Not Found');
    assert.equal(moved.title, 'Team page');
  });

  it('web crawl validates its URLs', async () => {
    assert.equal((await t.gw('POST', '/v1/tools/web/crawl', { urls: [] })).status, 400);
    const ftp = await t.gw('POST', '/v1/tools/web/crawl', { urls: ['ftp://example.com/x'] });
    assert.equal(ftp.status, 400);
    assert.equal(ftp.json.error.param, 'urls[0]');
    assert.equal((await t.gw('POST', '/v1/tools/web/crawl', { urls: Array(11).fill(`${siteUrl}/page`) })).status, 400);
  });

  it('web search and research answer 501 without an upstream, after validating', async () => {
    const search = await t.gw('POST', '/v1/tools/web/search', { query: 'news' });
    assert.equal(search.status, 501);
    assert.equal(search.json.error.type, 'not_implemented');
    assert.equal(search.json.error.code, 'local_mode', "the client words this case in the user's language");
    assert.equal(search.json.error.message, "Web search needs your company's gateway; DocChat's Local mode has none.");
    assert.doesNotMatch(
      search.json.error.message,
      /--upstream|\/tools\//,
      'neither a backend flag nor an API path is anything a user can act on',
    );
    assert.equal((await t.gw('POST', '/v1/tools/web/research', { query: 'topic' })).status, 501);
    assert.equal((await t.gw('GET', '/v1/tools/web/research/research_1')).status, 501);
    assert.equal((await t.gw('POST', '/v1/tools/web/search', {})).status, 400);
  });
});
