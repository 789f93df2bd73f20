// The columns the in-memory listing (listing.ts) keeps: typed arrays indexed by a merchant's
// slot, grown as merchants arrive. Typed arrays rather than an object per entry: a search reads
// a few numbers of up to 100,000 entries, and a Map of objects cost 300-1,000 ns an entry
// (lookups, scattered objects, a 700 MB heap to collect) where these cost a few.
import { GLOBAL_REGION } from '../../countries.js';

/** Room for `n` slots: the columns grow by half again (at least 1,024) when full. */
const roomFor = (n: number, capacity: number) => (n <= capacity ? capacity : Math.max(1_024, Math.ceil(n * 1.5)));

function grown<T extends Float64Array | Int32Array | Uint32Array | Uint8Array | Int8Array>(column: T, capacity: number): T {
  if (column.length >= capacity) return column;
  const bigger = new (column.constructor as new (n: number) => T)(capacity);
  bigger.set(column);
  return bigger;
}

/** 32-bit words for a bit per slot of `capacity` slots. */
export const wordsFor = (capacity: number) => (capacity + 31) >>> 5;

/** 1 when a merchant of these regions serves `region` (the merchants repository's `region` condition). */
const servesRegion = (regions: readonly string[], region: string): number => (regions.includes(region) || regions.includes(GLOBAL_REGION) ? 1 : 0);

/** What the merchants themselves hold: names for the (name, id) order, the category, regions and sponsorship. */
export class MerchantColumns {
  readonly ids: string[] = [];
  readonly names: string[] = [];
  readonly regions: Array<readonly string[]> = [];
  alive = new Uint8Array(0);
  /** The place in (name, id) order; fractional between renumberings. */
  rank = new Float64Array(0);
  /** The category as a small number (-1 none). */
  category = new Int32Array(0);
  /** The sponsorship's start and end in ms; none: +Infinity both. */
  sponsorStart = new Float64Array(0);
  sponsorEnd = new Float64Array(0);
  /** A bit per slot with a sponsorship (running or not): the only ones a search tests for running. */
  sponsorBits = new Uint32Array(0);
  private readonly categories = new Map<string, number>();
  /** Each distinct set of regions once (a few hundred for 100,000 merchants): an array per merchant was 28 MB of heap to collect. */
  private readonly regionSets = new Map<string, readonly string[]>();
  /** Per region asked for, which slots serve it (built at the first search for it, kept up to date). */
  private readonly inRegion = new Map<string, Uint8Array>();

  /** The number of a category id; -2 for one no merchant has. */
  categoryNumber(id: string): number {
    return this.categories.get(id) ?? -2;
  }

  set(slot: number, row: { id: string; name: string; categoryId: string | null; regions: readonly string[]; sponsorStart: number; sponsorEnd: number }): void {
    this.reserve(slot + 1);
    this.ids[slot] = row.id;
    this.names[slot] = row.name;
    const key = row.regions.join(',');
    let regions = this.regionSets.get(key);
    if (!regions) this.regionSets.set(key, (regions = row.regions));
    this.regions[slot] = regions;
    for (const [region, serves] of this.inRegion) serves[slot] = servesRegion(regions, region);
    this.alive[slot] = 1;
    let category = -1;
    if (row.categoryId !== null) {
      category = this.categories.get(row.categoryId) ?? this.categories.size;
      this.categories.set(row.categoryId, category);
    }
    this.category[slot] = category;
    this.sponsorStart[slot] = row.sponsorStart;
    this.sponsorEnd[slot] = row.sponsorEnd;
    if (row.sponsorStart === Number.POSITIVE_INFINITY) this.sponsorBits[slot >>> 5]! &= ~(1 << (slot & 31));
    else this.sponsorBits[slot >>> 5]! |= 1 << (slot & 31);
  }

  /**
   * Which slots serve `region` (GLOBAL ones serve every region): a byte per slot. Reading each
   * entry's regions, an array on the heap, cost 25-30 ms a search over 100,000 merchants. At most
   * one per country code, plus GLOBAL (the query's schema refuses anything else): 250 × 100 KB.
   */
  slotsInRegion(region: string): Uint8Array {
    let serves = this.inRegion.get(region);
    if (!serves) {
      serves = new Uint8Array(this.alive.length);
      for (let slot = 0; slot < this.alive.length; slot++) if (this.alive[slot]) serves[slot] = servesRegion(this.regions[slot]!, region);
      this.inRegion.set(region, serves);
    }
    return serves;
  }

  private reserve(n: number): void {
    const capacity = roomFor(n, this.alive.length);
    if (capacity === this.alive.length) return;
    this.alive = grown(this.alive, capacity);
    for (const [region, serves] of this.inRegion) this.inRegion.set(region, grown(serves, capacity));
    this.rank = grown(this.rank, capacity);
    this.category = grown(this.category, capacity);
    this.sponsorStart = grown(this.sponsorStart, capacity);
    this.sponsorEnd = grown(this.sponsorEnd, capacity);
    this.sponsorBits = grown(this.sponsorBits, wordsFor(capacity));
  }
}

/**
 * A list's slots in one sort's order: an Int32Array with room to grow. Its elements are off the
 * heap, which a garbage collection does not walk: as JavaScript arrays, the 2.4 million slots of
 * 100,000 merchants' lists were 24 MB of heap and a sixth of every full collection's time.
 */
export class SlotOrder {
  private slots: Int32Array;
  private size: number;

  private constructor(slots: Int32Array) {
    this.slots = slots;
    this.size = slots.length;
  }

  /** `slots` in `compare`'s order. */
  static sorted(slots: readonly number[], compare: (a: number, b: number) => number): SlotOrder {
    return new SlotOrder(Int32Array.from(slots).sort(compare));
  }

  /** The slots in order (a view: valid until the order next changes). */
  view(): Int32Array {
    return this.slots.subarray(0, this.size);
  }

  insert(at: number, slot: number): void {
    if (this.size === this.slots.length) {
      const bigger = new Int32Array(Math.max(1_024, Math.ceil(this.size * 1.5)));
      bigger.set(this.slots);
      this.slots = bigger;
    }
    this.slots.copyWithin(at + 1, at, this.size);
    this.slots[at] = slot;
    this.size += 1;
  }

  removeAt(at: number): void {
    this.slots.copyWithin(at, at + 1, this.size);
    this.size -= 1;
  }
}

/** One entry's numbers as a list's sorts and filters read them. */
export interface EntryValues {
  reportCount: number;
  last: number;
  rating: number;
  reachLevel: number;
  reachConfidence: number;
  statusBits: number;
  /** Facet token numbers and their times in ms, alternating. */
  facets: readonly number[];
}

const HALF = 2 ** 32;

/** One list's entries (the whole directory, or one agent's summaries), by merchant slot. */
export class ListColumns {
  has = new Uint8Array(0);
  /** `has` as a bit per slot, which a search starts from. */
  hasBits = new Uint32Array(0);
  reportCount = new Int32Array(0);
  last = new Float64Array(0);
  rating = new Float64Array(0);
  reachLevel = new Int8Array(0);
  reachConfidence = new Int8Array(0);
  /** The 42 status bits (aggregation/status-bits.ts) as their low and high 32. */
  bitsLo = new Int32Array(0);
  bitsHi = new Int32Array(0);
  /** Where an entry's facets start in the pool, and how many. */
  facetStart = new Int32Array(0);
  facetCount = new Int32Array(0);
  facetTokens = new Int32Array(1_024);
  facetTimes = new Float64Array(1_024);
  private facetsUsed = 0;
  private facetsLive = 0;
  /**
   * Per facet token (by its number), which slots have it: a bit per slot, kept up to date as
   * entries are set, so that a search tests a token at once and scans an entry's facets only for
   * the time (a days filter). Scanning every entry's facets for the token cost 10-17 ms a search
   * over the 100,000 merchants' ~20 tokens each; building a byte per slot at a token's first
   * search cost the same on that search (the first of each token after a start, up to 100 ms).
   * About 60 tokens of 100,000 slots are 750 KB a list.
   */
  private tokenBits: Uint32Array[] = [];

  set(slot: number, v: EntryValues): void {
    this.reserve(slot + 1);
    if (this.has[slot]) this.delete(slot);
    this.has[slot] = 1;
    this.hasBits[slot >>> 5]! |= 1 << (slot & 31);
    this.reportCount[slot] = v.reportCount;
    this.last[slot] = v.last;
    this.rating[slot] = v.rating;
    this.reachLevel[slot] = v.reachLevel;
    this.reachConfidence[slot] = v.reachConfidence;
    this.bitsLo[slot] = v.statusBits % HALF;
    this.bitsHi[slot] = Math.floor(v.statusBits / HALF);
    const count = v.facets.length / 2;
    this.poolRoom(count);
    this.facetStart[slot] = this.facetsUsed;
    this.facetCount[slot] = count;
    for (let i = 0; i < count; i++) {
      const token = v.facets[2 * i]!;
      this.facetTokens[this.facetsUsed + i] = token;
      this.facetTimes[this.facetsUsed + i] = v.facets[2 * i + 1]!;
      const bits = (this.tokenBits[token] ??= new Uint32Array(wordsFor(this.has.length)));
      bits[slot >>> 5]! |= 1 << (slot & 31);
    }
    this.facetsUsed += count;
    this.facetsLive += count;
  }

  delete(slot: number): void {
    if (!this.has[slot]) return;
    this.has[slot] = 0;
    this.hasBits[slot >>> 5]! &= ~(1 << (slot & 31));
    const start = this.facetStart[slot]!;
    for (let i = start; i < start + this.facetCount[slot]!; i++) this.tokenBits[this.facetTokens[i]!]![slot >>> 5]! &= ~(1 << (slot & 31));
    this.facetsLive -= this.facetCount[slot]!;
    this.facetCount[slot] = 0;
  }

  /** The slots with an entry. */
  slots(): number[] {
    const slots: number[] = [];
    for (let slot = 0; slot < this.has.length; slot++) if (this.has[slot]) slots.push(slot);
    return slots;
  }

  /** Which slots have the facet `token`: bit `slot & 31` of word `slot >>> 5`; undefined when none ever had it. */
  slotsWithToken(token: number): Uint32Array | undefined {
    return this.tokenBits[token];
  }

  /** The time of the entry's facet `token`, or NaN. */
  facetTime(slot: number, token: number): number {
    const start = this.facetStart[slot]!;
    const end = start + this.facetCount[slot]!;
    for (let i = start; i < end; i++) if (this.facetTokens[i] === token) return this.facetTimes[i]!;
    return Number.NaN;
  }

  private reserve(n: number): void {
    const capacity = roomFor(n, this.has.length);
    if (capacity === this.has.length) return;
    this.has = grown(this.has, capacity);
    this.hasBits = grown(this.hasBits, wordsFor(capacity));
    this.reportCount = grown(this.reportCount, capacity);
    this.last = grown(this.last, capacity);
    this.rating = grown(this.rating, capacity);
    this.reachLevel = grown(this.reachLevel, capacity);
    this.reachConfidence = grown(this.reachConfidence, capacity);
    this.bitsLo = grown(this.bitsLo, capacity);
    this.bitsHi = grown(this.bitsHi, capacity);
    this.facetStart = grown(this.facetStart, capacity);
    this.facetCount = grown(this.facetCount, capacity);
    this.tokenBits = this.tokenBits.map((bits) => grown(bits, wordsFor(capacity)));
  }

  /**
   * Room for `count` more facets at the end of the pool. Entries set again leave their old
   * facets behind: when the pool is full, the live ones are copied into a pool twice their size.
   */
  private poolRoom(count: number): void {
    if (this.facetsUsed + count <= this.facetTokens.length) return;
    const capacity = Math.max(1_024, 2 * (this.facetsLive + count));
    const tokens = new Int32Array(capacity);
    const times = new Float64Array(capacity);
    let used = 0;
    for (let slot = 0; slot < this.has.length; slot++) {
      if (!this.has[slot]) continue;
      const start = this.facetStart[slot]!;
      const n = this.facetCount[slot]!;
      tokens.set(this.facetTokens.subarray(start, start + n), used);
      times.set(this.facetTimes.subarray(start, start + n), used);
      this.facetStart[slot] = used;
      used += n;
    }
    this.facetTokens = tokens;
    this.facetTimes = times;
    this.facetsUsed = used;
  }
}
