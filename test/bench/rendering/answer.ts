/** A reproducible ~100 KB markdown answer of the kinds a model writes, and its split into deltas. */
import { rng, WordSource } from '../backend/corpus';

const LANGUAGES = ['ts', 'python', 'bash', 'json'];

export function markdownAnswer(targetChars: number): string {
  const random = rng(2024);
  const words = new WordSource(5_000, rng(99));
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const inline = () => {
    const sentence = words.sentence(10 + Math.floor(random() * 10));
    const w = sentence.split(' ');
    const i = Math.floor(random() * (w.length - 2));
    const kind = random();
    if (kind < 0.25) w[i] = `**${w[i]}**`;
    else if (kind < 0.45) w[i] = `\`${w[i]}()\``;
    else if (kind < 0.6) w[i] = `[${w[i]}](https://docs.example.com/${w[i]})`;
    else if (kind < 0.7) w[i] = `*${w[i]}*`;
    return `${w.join(' ')}${random() < 0.3 ? ` [${1 + Math.floor(random() * 3)}]` : ''}`;
  };
  const blocks: string[] = [];
  let length = 0;
  let section = 0;
  while (length < targetChars) {
    const r = random();
    let block: string;
    if (r < 0.08) block = `${random() < 0.5 ? '##' : '###'} ${words.sentence(4).slice(0, -1)} ${++section}`;
    else if (r < 0.45) block = Array.from({ length: 2 + Math.floor(random() * 3) }, inline).join(' ');
    else if (r < 0.6) block = Array.from({ length: 3 + Math.floor(random() * 4) }, () => `- ${inline()}`).join('\n');
    else if (r < 0.68) block = Array.from({ length: 3 + Math.floor(random() * 3) }, (_, i) => `${i + 1}. ${inline()}`).join('\n');
    else if (r < 0.82) {
      const lang = pick(LANGUAGES);
      const lines = Array.from(
        { length: 8 + Math.floor(random() * 20) },
        (_, i) => `${i % 4 === 0 ? '' : '  '}const ${words.word()}${i} = ${words.word()}("${words.word()}", ${i}); // ${words.word()}`,
      );
      block = `\`\`\`${lang}\n${lines.join('\n')}\n\`\`\``;
    } else if (r < 0.9) {
      const rows = Array.from(
        { length: 4 + Math.floor(random() * 5) },
        () => `| ${words.word()} | ${words.word()} ${words.word()} | ${Math.floor(random() * 1000)} |`,
      );
      block = ['| Name | Description | Value |', '| --- | --- | ---: |', ...rows].join('\n');
    } else block = `> ${inline()}\n> ${inline()}`;
    blocks.push(block);
    length += block.length + 2;
  }
  return `${blocks.join('\n\n')}\n`;
}

/** Splits the text into exactly `count` deltas at random points (mid-word and mid-line, as tokens arrive). */
export function splitDeltas(text: string, count: number): string[] {
  const random = rng(7);
  const cuts = new Set<number>();
  while (cuts.size < count - 1) cuts.add(1 + Math.floor(random() * (text.length - 1)));
  const points = [0, ...[...cuts].sort((a, b) => a - b), text.length];
  return points.slice(1).map((end, i) => text.slice(points[i], end));
}
