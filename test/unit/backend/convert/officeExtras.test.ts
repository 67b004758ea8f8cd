import assert from 'node:assert/strict';
import { convertWithNotes } from '../../../../src/backend/convert/index';
import { formatNumber } from '../../../../src/backend/convert/numbering';
import * as corpus from './corpus';

async function convert(filename: string, data: Uint8Array): Promise<string> {
  return (await convertWithNotes(filename, data, { skipOcr: true, maxBytes: 64 * 1024 * 1024 })).markdown;
}

function holds(markdown: string, must: (string | RegExp)[]) {
  for (const m of must) {
    const ok = typeof m === 'string' ? markdown.includes(m) : m.test(markdown);
    assert.ok(ok, `missing ${String(m)} in:\n${markdown}`);
  }
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A DOCX package from its body (and optional extra parts), as Word lays it out. */
function docx(body: string, parts: Record<string, string>, prefix = 'w', ns = W): Promise<Buffer> {
  const overrides = Object.keys(parts)
    .map((p) => `<Override PartName="/${p}" ContentType="application/xml"/>`)
    .join('');
  const rels = Object.keys(parts)
    .map((p, i) => {
      const type = p.replace(/^word\/|\.xml$/g, '');
      return `<Relationship Id="rX${i}" Type="${REL}/${type}" Target="${p.replace(/^word\//, '')}"/>`;
    })
    .join('');
  return corpus.zipOf({
    '[Content_Types].xml':
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      `${overrides}</Types>`,
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
    'word/_rels/document.xml.rels': `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`,
    'word/document.xml': `<?xml version="1.0"?><${prefix}:document ${ns}><${prefix}:body>${body}</${prefix}:body></${prefix}:document>`,
    ...parts,
  });
}

describe('backend: automatic numbering, comments and charts in office files', function () {
  this.timeout(60_000);

  describe('Word automatic numbering', () => {
    const lvl = (ilvl: number, fmt: string, text: string, extra = '') =>
      `<w:lvl w:ilvl="${ilvl}"><w:start w:val="1"/><w:numFmt w:val="${fmt}"/>${extra}<w:lvlText w:val="${text}"/></w:lvl>`;
    const numbering =
      `<?xml version="1.0"?><w:numbering ${W}>` +
      `<w:abstractNum w:abstractNumId="0">${lvl(0, 'decimal', '%1', '<w:pStyle w:val="Heading1"/>')}${lvl(1, 'decimal', '%1.%2', '<w:pStyle w:val="Heading2"/>')}${lvl(2, 'decimal', '%1.%2.%3', '<w:pStyle w:val="Heading3"/>')}</w:abstractNum>` +
      `<w:abstractNum w:abstractNumId="1">${lvl(0, 'lowerLetter', '%1)')}${lvl(1, 'upperRoman', '%2.')}</w:abstractNum>` +
      `<w:abstractNum w:abstractNumId="2">${lvl(0, 'bullet', '•')}</w:abstractNum>` +
      '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>' +
      '<w:num w:numId="3"><w:abstractNumId w:val="2"/></w:num>' +
      '<w:num w:numId="4"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num>' +
      '</w:numbering>';
    const style = (id: string, name: string, level: number) =>
      `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/><w:pPr><w:numPr><w:ilvl w:val="${level}"/><w:numId w:val="1"/></w:numPr><w:outlineLvl w:val="${level}"/></w:pPr></w:style>`;
    const styles = `<?xml version="1.0"?><w:styles ${W}>${style('Heading1', 'heading 1', 0)}${style('Heading2', 'heading 2', 1)}${style('Heading3', 'heading 3', 2)}</w:styles>`;
    const para = (text: string, pPr = '') => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}<w:r><w:t>${esc(text)}</w:t></w:r></w:p>`;
    const heading = (n: number, text: string) => para(text, `<w:pStyle w:val="Heading${n}"/>`);
    const item = (numId: number, ilvl: number, text: string) =>
      para(text, `<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);

    it('headings numbered by their style get their number ("2.3.2 Software constraints")', async () => {
      const body =
        heading(1, 'Introduction') +
        heading(1, 'Design') +
        heading(2, 'Goals') +
        heading(2, 'Constraints') +
        heading(3, 'Hardware constraints') +
        heading(3, 'Software constraints') +
        heading(1, 'Results') +
        heading(2, 'Speed');
      const markdown = await convert('spec.docx', await docx(body, { 'word/numbering.xml': numbering, 'word/styles.xml': styles }));
      holds(markdown, [
        /# 1 Introduction/,
        /# 2 Design/,
        /## 2\.1 Goals/,
        /## 2\.2 Constraints/,
        /### 2\.2\.1 Hardware constraints/,
        /### 2\.2\.2 Software constraints/,
        /# 3 Results/,
        /## 3\.1 Speed/,
      ]);
    });

    it('list items get their lettered and roman numbers, restarts and start overrides; bullets stay bullets', async () => {
      const body =
        item(2, 0, 'first') +
        item(2, 1, 'nested one') +
        item(2, 1, 'nested two') +
        item(2, 0, 'second') +
        item(2, 1, 'nested again') +
        item(3, 0, 'a bullet') +
        item(4, 0, 'from five');
      const markdown = await convert('list.docx', await docx(body, { 'word/numbering.xml': numbering, 'word/styles.xml': styles }));
      holds(markdown, ['a) first', 'I. nested one', 'II. nested two', 'b) second', 'I. nested again', /[-*]\s+a bullet/]);
      // numId 4 shares abstract list 1, but its start override makes its first item "e)".
      holds(markdown, ['e) from five']);
    });

    it('number formats', () => {
      assert.deepEqual(
        [formatNumber(4, 'upperRoman'), formatNumber(14, 'lowerRoman'), formatNumber(28, 'lowerLetter'), formatNumber(3, 'decimalZero')],
        ['IV', 'xiv', 'bb', '03'],
      );
    });
  });
});
