// A small seeded PRNG for the demo data. sfc32 rather than a 32-bit-state generator such as
// mulberry32: the demo draws millions of numbers, and a 2^32 state space would repeat
// whole sequences between differently seeded streams.

/** A 32-bit integer hash (splitmix32's finaliser): spreads nearby inputs far apart. */
function mix32(value: number): number {
  let z = (value + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}

/** Hashes a list of 32-bit integers into one; order matters. */
export function hash32(...parts: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) h = mix32(h ^ mix32(part | 0));
  return h;
}

/**
 * A bijection on 32-bit unsigned integers keyed by `key`: distinct inputs always give
 * distinct outputs, which is what makes identifiers derived from it collision-free.
 */
export function permute32(value: number, key: number): number {
  let x = (value ^ key) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform unsigned 32-bit integer. */
  uint32(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** True with the given probability. */
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks an item with probability proportional to its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  /** A new shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** `count` distinct items in random order (count is capped at items.length). */
  sample<T>(items: readonly T[], count: number): T[];
}

// A class rather than a closure-returning factory: the demo creates one generator per row,
// millions of them, and prototype methods cost nothing per instance.
class Sfc32 implements Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(a: number, b: number, c: number, d: number) {
    this.s0 = a >>> 0;
    this.s1 = b >>> 0;
    this.s2 = c >>> 0;
    this.s3 = d >>> 0;
    // The first outputs of sfc32 still resemble the seed words.
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.s0 + this.s1) | 0) + this.s3) | 0;
    this.s3 = (this.s3 + 1) | 0;
    this.s0 = this.s1 ^ (this.s1 >>> 9);
    this.s1 = (this.s2 + (this.s2 << 3)) | 0;
    const rotated = (this.s2 << 21) | (this.s2 >>> 11);
    this.s2 = (rotated + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.uint32() / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of items) total += weight;
    if (!(total > 0)) throw new RangeError('weighted pick needs a positive total weight');
    let roll = this.next() * total;
    for (const [item, weight] of items) {
      roll -= weight;
      if (roll < 0) return item;
    }
    // Floating-point rounding can leave a sliver past the last item.
    return items[items.length - 1]![0];
  }

  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const held = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = held;
    }
    return copy;
  }

  sample<T>(items: readonly T[], count: number): T[] {
    return this.shuffle(items).slice(0, Math.max(0, count));
  }
}

/** sfc32 seeded from up to four 32-bit words. */
function createRng(a: number, b = 0, c = 0, d = 1): Rng {
  return new Sfc32(a, b, c, d);
}

/**
 * An independent stream for one entity, so that each row depends only on the seed and its
 * own coordinates, never on how many numbers were drawn before it or on the batch size.
 */
export function rngFor(seed: number, stream: number, index: number): Rng {
  return createRng(hash32(seed, stream, index), hash32(index, seed), hash32(stream, index, 0x5eed), mix32(index) | 1);
}
