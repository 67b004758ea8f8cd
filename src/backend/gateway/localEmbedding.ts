/**
 * `local-hashing-embed`: a lexical embedding by feature hashing, not a neural model.
 * Features: the tokens of the search tokenizer (weight 1), adjacent token pairs (0.5) and the
 * character trigrams of each token (0.25, which makes near spellings similar). Each feature is
 * hashed (FNV-1a) to a dimension and a sign; the vector is scaled to unit length, so a dot
 * product is the cosine similarity. Similar vectors mean shared words, not shared meaning. Its
 * tokens are those of before numbers counted in search and contractions were written out
 * (`numbers: false, contractions: false`): a model's vectors do
 * not change under the same name, so vectors stored earlier stay comparable with new ones.
 */
import { tokenize } from '../search/tokenize';

export const LOCAL_EMBEDDING_MODEL = 'local-hashing-embed';
export const LOCAL_EMBEDDING_DEFAULT_DIMENSIONS = 256;
export const LOCAL_EMBEDDING_MAX_DIMENSIONS = 4096;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function hashingEmbedding(text: string, dimensions = LOCAL_EMBEDDING_DEFAULT_DIMENSIONS): number[] {
  const vector = new Float64Array(dimensions);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    vector[hash % dimensions]! += hash & 0x80000000 ? -weight : weight;
  };
  const tokens = tokenize(text, { numbers: false, contractions: false });
  tokens.forEach((token, i) => {
    add(`w:${token}`, 1);
    if (i > 0) add(`b:${tokens[i - 1]} ${token}`, 0.5);
    const padded = `^${token}$`;
    for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, 0.25);
  });
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  return Array.from(vector, (value) => (norm > 0 ? Math.round((value / norm) * 1e6) / 1e6 : 0));
}
