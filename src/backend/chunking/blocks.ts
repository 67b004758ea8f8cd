/** Splits markdown into the blocks chunking must respect: headings, fenced code, paragraphs. */
export type Block =
  | { kind: 'heading'; level: number; title: string; text: string }
  | { kind: 'code'; fence: string; info: string; body: string; text: string }
  | { kind: 'text'; text: string };

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;

export function parseBlocks(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length) blocks.push({ kind: 'text', text: paragraph.join('\n') });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) {
      endParagraph();
      continue;
    }
    const fence = FENCE_OPEN.exec(line);
    if (fence && !(fence[1]![0] === '`' && fence[2]!.includes('`'))) {
      endParagraph();
      const marker = fence[1]!;
      const body: string[] = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[j]!);
        if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length) break;
        body.push(lines[j]!);
      }
      const info = fence[2]!.trim();
      const bodyText = body.join('\n');
      // An unclosed fence runs to the end of the document (CommonMark); close it in the chunk text.
      blocks.push({ kind: 'code', fence: marker, info, body: bodyText, text: `${marker}${info}\n${bodyText}\n${marker}` });
      i = j;
      continue;
    }
    const heading = ATX_HEADING.exec(line);
    if (heading) {
      endParagraph();
      blocks.push({ kind: 'heading', level: heading[1]!.length, title: (heading[2] ?? '').trim(), text: line.trim() });
      continue;
    }
    const setext = SETEXT_UNDERLINE.exec(line);
    if (setext && paragraph.length === 1) {
      const level = setext[1]![0] === '=' ? 1 : 2;
      const title = paragraph[0]!.trim();
      paragraph = [];
      blocks.push({ kind: 'heading', level, title, text: `${'#'.repeat(level)} ${title}` });
      continue;
    }
    paragraph.push(line);
  }
  endParagraph();
  return blocks;
}
