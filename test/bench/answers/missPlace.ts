/**
 * Where an answer that does not quote the expected sentence went wrong: grounding, when none of the
 * turn's sources holds the sentence, or the choice of sentence, when one does and the answer quoted
 * another. A source can hold the sentence under a heading that names another section: neighbouring
 * chunks of a file are joined into one source named by the first chunk's heading, so whether a
 * source holds it is read from its text, never from its heading.
 */

/** A source of an answer, as the chat numbers it. */
export interface NumberedSource {
  number: number;
  content: string;
}

/** The numbers of the sources whose text holds an expected sentence (`holds` compares one text with the expected ones). */
export function sourcesHolding(sources: readonly NumberedSource[], holds: (text: string) => boolean): number[] {
  return sources.filter((source) => holds(source.content)).map((source) => source.number);
}

/** How a question's answer fares: quoted first, quoted later, or missed with the sentence in the sources or in none. */
export type Outcome = 'first' | 'quoted' | 'missed, in the sources' | 'missed, not in the sources';

export function outcome(quotedFirst: boolean, quoted: boolean, holding: readonly number[]): Outcome {
  if (quotedFirst) return 'first';
  if (quoted) return 'quoted';
  return holding.length > 0 ? 'missed, in the sources' : 'missed, not in the sources';
}

/** The detail table's mark: a miss names the sources that hold the sentence, so the answer's choice can be looked at. */
export function outcomeMark(quotedFirst: boolean, quoted: boolean, holding: readonly number[]): string {
  const o = outcome(quotedFirst, quoted, holding);
  if (o === 'missed, in the sources') return `**missed**, in [${holding.join(', ')}]`;
  if (o === 'missed, not in the sources') return '**missed**, not in sources';
  return o;
}
