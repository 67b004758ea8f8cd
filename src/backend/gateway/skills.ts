/**
 * Skillshare over a people directory (a JSON file): people whose skills and information share
 * the most (rarest) words with the query, best first. Skills count twice as much as other
 * information; `top_match_terms` are the skills and phrases that matched.
 */
import { readFileSync } from 'node:fs';
import { tokenize } from '../search/tokenize';
import sampleDirectory from './sample-skills.json';

export interface Person {
  name: string;
  skills: string[];
  information: string[];
  skillshare_link: string;
}

export interface SkillMatch {
  name: string;
  information: string[];
  skillshare_link: string;
  top_match_terms: string[];
  score: number;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function parseDirectory(raw: unknown, source: string): Person[] {
  const list = Array.isArray(raw) ? raw : (raw as { people?: unknown })?.people;
  if (!Array.isArray(list)) throw new Error(`${source}: expected a JSON array of people (or {"people": [...]}).`);
  return list.map((entry, i) => {
    const person = entry as Record<string, unknown>;
    if (typeof person?.name !== 'string' || !person.name.trim()) throw new Error(`${source}: person ${i + 1} has no "name".`);
    return {
      name: person.name,
      skills: strings(person.skills),
      information: strings(person.information),
      skillshare_link: typeof person.skillshare_link === 'string' ? person.skillshare_link : '',
    };
  });
}

export function loadDirectory(file: string | undefined): Person[] {
  if (!file) return parseDirectory(sampleDirectory, 'bundled sample directory');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the skills file ${file}: ${(error as Error).message}`);
  }
  return parseDirectory(raw, file);
}

interface Phrase {
  text: string;
  terms: Set<string>;
  weight: number;
}

export class SkillDirectory {
  private readonly phrases: Phrase[][];
  private readonly df = new Map<string, number>();

  constructor(private readonly people: Person[]) {
    this.phrases = people.map((p) => [
      ...p.skills.map((text) => ({ text, terms: new Set(tokenize(text)), weight: 2 })),
      ...p.information.map((text) => ({ text, terms: new Set(tokenize(text)), weight: 1 })),
      { text: p.name, terms: new Set(tokenize(p.name)), weight: 1 },
    ]);
    for (const phrases of this.phrases) {
      const terms = new Set(phrases.flatMap((ph) => [...ph.terms]));
      for (const term of terms) this.df.set(term, (this.df.get(term) ?? 0) + 1);
    }
  }

  get size(): number {
    return this.people.length;
  }

  search(query: string, limit = 10): SkillMatch[] {
    const terms = [...new Set(tokenize(query))];
    const n = this.people.length;
    const matches: SkillMatch[] = [];
    this.people.forEach((person, i) => {
      let score = 0;
      const matched: string[] = [];
      for (const term of terms) {
        const hits = this.phrases[i]!.filter((ph) => ph.terms.has(term));
        if (!hits.length) continue;
        const idf = Math.log(1 + n / (this.df.get(term) ?? 1));
        score += idf * Math.max(...hits.map((h) => h.weight));
        for (const hit of hits.sort((a, b) => b.weight - a.weight)) if (!matched.includes(hit.text)) matched.push(hit.text);
      }
      if (score > 0) {
        matches.push({
          name: person.name,
          information: [...(person.skills.length ? [`Skills: ${person.skills.join(', ')}`] : []), ...person.information],
          skillshare_link: person.skillshare_link,
          top_match_terms: matched.slice(0, 5),
          score: Math.round(score * 1000) / 1000,
        });
      }
    });
    return matches.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name)).slice(0, limit);
  }
}
