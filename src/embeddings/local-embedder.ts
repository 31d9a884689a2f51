// The offline embedder: deterministic feature hashing of words, word pairs and canonical skills. No model, no network.
//
// Measured on the resume-screening set (1,000 resumes, 100 roles; vector search alone): MRR about 0.90 at 512
// dimensions and 0.92 at 1024, against 0.92 for BM25. Collisions are the main loss, not the weighting: a corpus IDF
// added almost nothing, so none is used and a vector depends on its own text only.
import { extractSkills, skillKey } from '../text/skills.js';
import { tokenize } from '../text/tokenize.js';
import type { EmbedOptions, Embedder } from './embedder.js';

export const LOCAL_EMBEDDING_MODEL = 'local-hash-v1';
export const LOCAL_EMBEDDING_DIMENSION = 512;

// Relative weights. Skills count twice: "Kubernetes" and "k8s" meet there even when the words differ.
const WEIGHT = { word: 1, pair: 0.5, skill: 2 } as const;
// Distinct seeds keep the word "go", the pair "go ..." and the skill "go" in separate hash spaces.
const SEED = { word: 0x9e3779b9, pair: 0x85ebca6b, skill: 0xc2b2ae35 } as const;
// Texts are embedded in slices so a big batch does not hold the event loop for its whole length.
const SLICE = 64;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 units, finished by murmur's mixer so low bits (the bucket) and the top bit (the sign) are independent. */
function hash(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix(h);
}

function count(map: Map<number, number>, key: number): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** The embedding of one text: L2-normalised, identical bit for bit for identical input. */
export function embedLocal(text: string, dimension = LOCAL_EMBEDDING_DIMENSION): number[] {
  const vector = new Float64Array(dimension);
  const tokens = tokenize(text);
  const words = new Map<number, number>();
  const pairs = new Map<number, number>();
  const skills = new Map<number, number>();
  const wordHashes = tokens.map((t) => hash(t, SEED.word));
  for (const h of wordHashes) count(words, h);
  for (let i = 1; i < wordHashes.length; i++) count(pairs, fmix((Math.imul(wordHashes[i - 1]!, 31) ^ wordHashes[i]! ^ SEED.pair) >>> 0));
  for (const skill of extractSkills(text)) count(skills, hash(skillKey(skill), SEED.skill));

  const add = (features: Map<number, number>, weight: number) => {
    for (const [h, tf] of features) {
      // Sublinear term frequency; the top hash bit signs the feature so collisions cancel instead of pile up.
      const value = weight * (1 + Math.log(tf));
      vector[h % dimension]! += h >>> 31 ? -value : value;
    }
  };
  add(words, WEIGHT.word);
  add(pairs, WEIGHT.pair);
  add(skills, WEIGHT.skill);

  let norm = 0;
  for (const x of vector) norm += x * x;
  if (norm === 0) {
    // No words at all (empty, or placeholders only): a fixed unit vector keeps cosine distance defined.
    vector[hash('', SEED.word) % dimension] = 1;
    norm = 1;
  }
  const scale = 1 / Math.sqrt(norm);
  return Array.from(vector, (x) => x * scale);
}

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The local embedder; a non-default dimension gets its own model id so its vectors are never mixed with 512's. */
export function createLocalEmbedder(opts: { dimension?: number } = {}): Embedder {
  const dimension = opts.dimension ?? LOCAL_EMBEDDING_DIMENSION;
  if (!Number.isInteger(dimension) || dimension < 8) throw new RangeError(`bad embedding dimension ${dimension}`);
  const model = dimension === LOCAL_EMBEDDING_DIMENSION ? LOCAL_EMBEDDING_MODEL : `${LOCAL_EMBEDDING_MODEL}-${dimension}`;
  return {
    model,
    dimension,
    async embed(texts: string[], embedOpts: EmbedOptions = {}): Promise<number[][]> {
      await embedOpts.beforeSend?.();
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i++) {
        if (i > 0 && i % SLICE === 0) await yieldToLoop();
        embedOpts.signal?.throwIfAborted();
        out.push(embedLocal(texts[i]!, dimension));
      }
      return out;
    },
  };
}
