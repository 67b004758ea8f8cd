/**
 * Charts (DrawingML chart parts, in presentations, workbooks and documents) as text: the title,
 * then the series as a small table (categories × series), so a chart's figures can be found.
 */
import { markdownTable } from './markdown';
import { attr, findAll, findFirst, squash, textOf, type XmlNode } from './xml';

/** A chart part: its title, then its series as a table (categories × series). */
export function chartToMarkdown(chart: XmlNode): string {
  const title = findFirst(chart, 'c:title');
  const titleText = title ? squash(findAll(title, 'a:t').map(textOf).join(' ')) : '';
  const series = findAll(chart, 'c:ser').map((ser) => {
    const name = squash(
      findAll(findFirst(ser, 'c:tx') ?? { name: '', attrs: {}, children: [] }, 'c:v', 'a:t')
        .map(textOf)
        .join(' '),
    );
    const points = (tag: string) => {
      const holder = findFirst(ser, tag);
      const values = new Map<number, string>();
      if (holder) {
        for (const pt of findAll(holder, 'c:pt')) values.set(Number(attr(pt, 'idx') ?? 0), textOf(findFirst(pt, 'c:v') ?? pt).trim());
      }
      return values;
    };
    // Scatter and bubble charts hold their points as x and y values.
    const categories = points('c:cat');
    const values = points('c:val');
    return { name, categories: categories.size ? categories : points('c:xVal'), values: values.size ? values : points('c:yVal') };
  });
  const lines: string[] = [titleText ? `Chart: ${titleText}` : 'Chart'];
  if (series.length) {
    const count = Math.max(...series.map((s) => Math.max(s.categories.size, s.values.size)));
    const header = ['', ...series.map((s, i) => s.name || `Series ${i + 1}`)];
    const rows = Array.from({ length: count }, (_, i) => [
      series[0]!.categories.get(i) ?? String(i + 1),
      ...series.map((s) => s.values.get(i) ?? ''),
    ]);
    lines.push('', markdownTable([header, ...rows]));
  }
  return lines.join('\n');
}
