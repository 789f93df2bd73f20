// The directory's lists held in memory (issue 38): every public merchant and every summary of an
// agent with approved reports, reduced to what the search filters and sorts read, each list
// kept in every sort order. A search marks its matches as bits, then walks one order as far as
// its page needs: well under a millisecond for most filters, at any depth, where
// PostgreSQL walked an OFFSET of tens of thousands of index entries with a heap fetch each
// (0.4-1.2 s at 100,000 merchants).
//
// It answers exactly what the merchants repository's `searchMerchants` answers in SQL (the
// filter-pages test compares both): the same conditions, the same order ("name" ties by PostgreSQL's C collation, which is code
// point order, then id), sponsored listings running at `now` first. Searches with `q` (ILIKE)
// are left to SQL. The keeper (listing-store.ts) loads it, patches the merchants each directory
// version changed, and serves it only when it is as new as the version a request settled.
import type { OutcomeKey, StageKey } from '../aggregation/constants.js';
import { facetToken } from '../aggregation/facets.js';
import { ListColumns, MerchantColumns, SlotOrder, wordsFor, type EntryValues } from './listing-columns.js';

type Sort = 'recent' | 'popular' | 'name' | 'rating' | 'reach';

/** A directory search: what it filters on, its order and its page (the merchants repository's `MerchantSearch` adds how SQL reads it). */
export interface ListingSearch {
  q?: string;
  categoryId?: string;
  agentId?: string;
  outcome?: OutcomeKey;
  stage?: StageKey;
  region?: string;
  days?: number;
  minReports?: number;
  /** Needs agentId (as the three below): the agent's reach is at least this ladder level (1-6). */
  reachLevel?: number;
  /** The agent's summary shares a bit with this mask: a task has one of some statuses (aggregation/status-bits.ts). */
  statusMask?: number;
  /** The agent's reach confidence rank is at least this (0 low, 1 medium, 2 high). */
  minConfidence?: number;
  sort: Sort;
  offset: number;
  limit: number;
  now: Date;
}

/** What a search finds: its matches, its sponsored matches, and its page's merchants in order. */
export interface Found {
  total: number;
  sponsored: number;
  ids: string[];
}

/** A search's page in one string: two pages with equal identities list the same merchants, in the same order, of the same totals. */
export function pageIdentity(found: Found): string {
  return `${found.total}/${found.sponsored}/${found.ids.join(',')}`;
}

/**
 * The page a list answer showed, and how to find it again now: while it is the same, the answer
 * is (web/middleware/response-cache.ts `cachePage`).
 */
export interface PageCheck {
  identity: string;
  /** The page's identity at `now`, as the listing finds it once it is as new as the directory (null: it cannot say). */
  identityAt(now: Date): Promise<string | null>;
}

/** One merchant as the lists read it: `last` NaN when it has no report; sponsorship ends at Infinity when open. */
export interface ListedMerchant {
  id: string;
  name: string;
  categoryId: string | null;
  regions: readonly string[];
  reportCount: number;
  last: number;
  /** The report facets (aggregation/facets.ts): token to the newest report's time in ms. */
  facets: Record<string, string>;
  sponsorStart: number;
  sponsorEnd: number;
}

/** One agent's summary of a merchant (report_count > 0), its facets as stored. */
export interface ListedSummary extends Omit<EntryValues, 'facets'> {
  merchantId: string;
  agentId: string;
  facets: Record<string, string>;
}

const AGENT_SORTS: readonly Sort[] = ['recent', 'popular', 'name', 'rating', 'reach'];
const DIRECTORY_SORTS: readonly Sort[] = ['recent', 'popular', 'name'];
const WHOLE_DIRECTORY = '';
const HALF = 2 ** 32;

/** PostgreSQL's C collation: code point order (UTF-16 order differs above the surrogates). */
export function codePointCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Where `slot` goes (or is) in `order` by `compare`: the first place not before it. */
function lowerBound(order: ArrayLike<number>, slot: number, compare: (a: number, b: number) => number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(order[mid]!, slot) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One list (the whole directory, or one agent's summaries): its columns, and each sort's order of its slots. */
class List extends ListColumns {
  readonly orders = new Map<Sort, SlotOrder>();
  constructor(readonly sorts: readonly Sort[]) {
    super();
  }
}

/**
 * A search's marks, a bit per slot (bit `slot & 31` of word `slot >>> 5`): its matches that are
 * not sponsored listings running now, and those that are (searches run one at a time: nothing
 * awaits inside).
 */
let rest = new Uint32Array(32);
let running = new Uint32Array(32);

/** The number of bits set in a 32-bit word. */
function bitCount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/**
 * Clears the marked slots whose `column` value is below `min` (or NaN): `keepWhere` without a
 * call per slot, for the conditions that compare one column (days, minReports, reach,
 * confidence), the first of which may test most of 100,000 slots.
 */
function keepAtLeast(bits: Uint32Array, words: number, column: Float64Array | Int32Array | Int8Array, min: number): void {
  for (let w = 0; w < words; w++) {
    let word = bits[w]!;
    let kept = word;
    while (word !== 0) {
      const low = word & -word;
      if (!(column[(w << 5) + 31 - Math.clz32(low)]! >= min)) kept &= ~low;
      word ^= low;
    }
    bits[w] = kept;
  }
}

/** Clears the marked slots that fail `test`, word by word, testing only the slots marked. */
function keepWhere(bits: Uint32Array, words: number, test: (slot: number) => boolean): void {
  for (let w = 0; w < words; w++) {
    let word = bits[w]!;
    let kept = word;
    while (word !== 0) {
      const low = word & -word;
      if (!test((w << 5) + 31 - Math.clz32(low))) kept &= ~low;
      word ^= low;
    }
    bits[w] = kept;
  }
}

export class Listing {
  private readonly slotOf = new Map<string, number>();
  private readonly m = new MerchantColumns();
  private readonly lists = new Map<string, List>([[WHOLE_DIRECTORY, new List(DIRECTORY_SORTS)]]);
  private readonly tokens = new Map<string, number>();

  /**
   * Sorts every list once its rows are in (`add`, `addSummary`), yielding between sorts so that
   * a large build does not hold the event loop.
   */
  async sortAll(pause = () => Promise.resolve()): Promise<void> {
    const byName = SlotOrder.sorted(this.lists.get(WHOLE_DIRECTORY)!.slots(), (a, b) => this.nameCompare(a, b));
    byName.view().forEach((slot, i) => (this.m.rank[slot] = i));
    for (const list of this.lists.values()) {
      for (const sort of list.sorts) {
        list.orders.set(sort, sort === 'name' && list.sorts === DIRECTORY_SORTS ? byName : SlotOrder.sorted(list.slots(), this.comparator(list, sort)));
        await pause();
      }
    }
  }

  /**
   * Replaces what the listing holds of these merchants with their rows now (a merchant without a
   * row is no longer public): each leaves every order, then returns to its place.
   */
  patch(ids: readonly string[], merchants: readonly ListedMerchant[], summaries: readonly ListedSummary[]): void {
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined || !this.m.alive[slot]) continue;
      for (const list of this.lists.values()) {
        if (!list.has[slot]) continue;
        for (const [sort, order] of list.orders) remove(order, slot, this.comparator(list, sort));
        list.delete(slot);
      }
      this.m.alive[slot] = 0;
    }
    const changed = merchants.map((row) => this.add(row));
    for (const row of summaries) this.addSummary(row);
    const directory = this.lists.get(WHOLE_DIRECTORY)!;
    const names = directory.orders.get('name')!;
    for (const slot of changed) this.placeByName(names, slot);
    for (const list of this.lists.values()) {
      // An agent's first summary starts a list: its orders are built whole.
      if (list.orders.size === 0) for (const sort of list.sorts) list.orders.set(sort, SlotOrder.sorted(list.slots(), this.comparator(list, sort)));
      else {
        for (const [sort, order] of list.orders) {
          if (order === names) continue;
          const compare = this.comparator(list, sort);
          for (const slot of changed) if (list.has[slot]) order.insert(lowerBound(order.view(), slot, compare), slot);
        }
      }
    }
  }

  /**
   * The search's page (merchant ids), its matches and its sponsored matches; null for a search SQL
   * must answer (`q`). The matches are marked first (`mark`, in slot order, reading each column
   * front to back), and only then is the sort's order walked, as far as the page needs: from the
   * end for a page nearer the end. Walking the whole order and testing each entry there read
   * every column at random and cost 3-6 ms a filtered search over 100,000 merchants.
   */
  search(s: ListingSearch): Found | null {
    if (s.q) return null;
    const list = this.lists.get(s.agentId ?? WHOLE_DIRECTORY);
    const order = list?.orders.get(s.sort)?.view();
    if (!list || !order) return list || !s.agentId ? null : { total: 0, sponsored: 0, ids: [] };
    const words = wordsFor(list.has.length);
    if (rest.length < words) {
      rest = new Uint32Array(words);
      running = new Uint32Array(words);
    }
    const { total, sponsored } = this.mark(s, list, words);
    // Sponsored matches first, then the rest, each in the sort's order.
    const end = Math.min(total, s.offset + s.limit);
    const slots: number[] = [];
    if (s.offset < sponsored) pick(order, running, s.offset, Math.min(end, sponsored), sponsored, slots);
    if (end > sponsored) pick(order, rest, Math.max(s.offset, sponsored) - sponsored, end - sponsored, total - sponsored, slots);
    return { total, sponsored, ids: slots.map((slot) => this.m.ids[slot]!) };
  }

  /**
   * Marks the list's entries that `searchConditions` and `summaryConditions` (merchants/merchants.repository.ts)
   * keep, in `rest` or, when a sponsored listing running at `now`, in `running`, and counts
   * them. The list's entries and each report facet are bits already, ANDed a word at a time; a
   * condition on a column tests only the slots still marked. A condition the search does not set
   * reads nothing.
   */
  private mark(s: ListingSearch, list: List, words: number): { total: number; sponsored: number } {
    const bits = rest;
    bits.set(list.hasBits.subarray(0, words));
    const facet = facetToken(s.outcome, s.stage);
    const token = facet === null ? undefined : this.tokens.get(facet);
    if (facet !== null) {
      const withToken = token === undefined ? undefined : list.slotsWithToken(token);
      if (withToken === undefined) bits.fill(0, 0, words);
      else for (let w = 0; w < words; w++) bits[w]! &= withToken[w]!;
    }
    if (s.categoryId) {
      const wanted = this.m.categoryNumber(s.categoryId);
      const category = this.m.category;
      keepWhere(bits, words, (slot) => category[slot] === wanted);
    }
    if (s.region !== undefined) {
      const inRegion = this.m.slotsInRegion(s.region);
      keepWhere(bits, words, (slot) => inRegion[slot] === 1);
    }
    if (s.days) {
      const since = s.now.getTime() - s.days * 86_400_000;
      // With a facet, that facet as new as `since`; else the newest report (NaN, none, is never).
      if (token !== undefined) keepWhere(bits, words, (slot) => list.facetTime(slot, token) >= since);
      else if (facet === null) keepAtLeast(bits, words, list.last, since);
    }
    if ((s.minReports ?? 0) > 0) keepAtLeast(bits, words, list.reportCount, s.minReports!);
    if ((s.reachLevel ?? 0) > 0) keepAtLeast(bits, words, list.reachLevel, s.reachLevel!);
    if ((s.minConfidence ?? 0) > 0) keepAtLeast(bits, words, list.reachConfidence, s.minConfidence!);
    if (s.statusMask !== undefined) {
      const lo = s.statusMask % HALF | 0;
      const hi = Math.floor(s.statusMask / HALF) | 0;
      const { bitsLo, bitsHi } = list;
      keepWhere(bits, words, (slot) => (bitsLo[slot]! & lo) !== 0 || (bitsHi[slot]! & hi) !== 0);
    }
    // The sponsored listings among the matches: only merchants with a sponsorship are looked at.
    const now = s.now.getTime();
    const { sponsorStart, sponsorEnd, sponsorBits } = this.m;
    let total = 0;
    let sponsored = 0;
    for (let w = 0; w < words; w++) {
      const word = bits[w]!;
      if (word === 0) {
        running[w] = 0;
        continue;
      }
      let candidates = word & (sponsorBits[w] ?? 0);
      let runs = 0;
      while (candidates !== 0) {
        const low = candidates & -candidates;
        const slot = (w << 5) + 31 - Math.clz32(low);
        if (sponsorStart[slot]! <= now && now < sponsorEnd[slot]!) runs |= low;
        candidates ^= low;
      }
      running[w] = runs;
      bits[w] = word & ~runs;
      total += bitCount(word);
      sponsored += bitCount(runs);
    }
    return { total, sponsored };
  }

  /** `orderSegments`' order (merchants/merchants.repository.ts) for one list: then name, then id. */
  private comparator(list: List, sort: Sort): (a: number, b: number) => number {
    const rank = this.m.rank;
    const { reportCount, last, rating, reachLevel, reachConfidence } = list;
    const byName = (a: number, b: number) => rank[a]! - rank[b]!;
    const popular = (a: number, b: number) => reportCount[b]! - reportCount[a]! || byName(a, b);
    // Newest first, merchants without a report (NaN) last (an agent's entries always have one).
    const recent = (a: number, b: number) => {
      const x = last[a]!;
      const y = last[b]!;
      if (x !== x || y !== y) return (x !== x) === (y !== y) ? byName(a, b) : x !== x ? 1 : -1;
      return y - x || byName(a, b);
    };
    switch (sort) {
      case 'name':
        return byName;
      case 'popular':
        return popular;
      case 'recent':
        return recent;
      case 'rating':
        return (a, b) => rating[b]! - rating[a]! || popular(a, b);
      case 'reach':
        return (a, b) => reachLevel[b]! - reachLevel[a]! || reachConfidence[b]! - reachConfidence[a]! || recent(a, b);
    }
  }

  private nameCompare(a: number, b: number): number {
    const { names, ids } = this.m;
    return codePointCompare(names[a]!, names[b]!) || (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0);
  }

  /** Puts a merchant in (name, id) order and gives it a rank between its neighbours' (renumbering all when none is left). */
  private placeByName(order: SlotOrder, slot: number): void {
    const at = lowerBound(order.view(), slot, (a, b) => this.nameCompare(a, b));
    order.insert(at, slot);
    const names = order.view();
    const rank = this.m.rank;
    const before = at > 0 ? rank[names[at - 1]!]! : -1;
    const after = at + 1 < names.length ? rank[names[at + 1]!]! : before + 2;
    const middle = (before + after) / 2;
    if (middle > before && middle < after) rank[slot] = middle;
    else names.forEach((s, i) => (rank[s] = i));
  }

  /** A public merchant's row (before `sortAll`, or through `patch`). */
  add(row: ListedMerchant): number {
    let slot = this.slotOf.get(row.id);
    if (slot === undefined) {
      slot = this.slotOf.size;
      this.slotOf.set(row.id, slot);
    }
    this.m.set(slot, row);
    this.lists.get(WHOLE_DIRECTORY)!.set(slot, { ...row, rating: 0, reachLevel: 0, reachConfidence: 0, statusBits: 0, facets: this.facetNumbers(row.facets) });
    return slot;
  }

  /** A summary of a merchant already added. */
  addSummary(row: ListedSummary): void {
    const slot = this.slotOf.get(row.merchantId);
    if (slot === undefined || !this.m.alive[slot]) return;
    let list = this.lists.get(row.agentId);
    if (!list) this.lists.set(row.agentId, (list = new List(AGENT_SORTS)));
    list.set(slot, { ...row, facets: this.facetNumbers(row.facets) });
  }

  private facetNumbers(facets: Record<string, string>): number[] {
    const numbers: number[] = [];
    for (const token in facets) {
      let id = this.tokens.get(token);
      if (id === undefined) this.tokens.set(token, (id = this.tokens.size));
      numbers.push(id, Date.parse(facets[token]!));
    }
    return numbers;
  }
}

/** Whether `slot`'s bit is set. */
const marked = (bits: Uint32Array, slot: number): boolean => ((bits[slot >>> 5]! >>> (slot & 31)) & 1) === 1;

/**
 * Appends to `slots` the entries marked in `bits` at places [from, to) among the `count` so
 * marked, in `order`: walking from the start, or back from the end when the places are nearer it.
 */
function pick(order: Int32Array, bits: Uint32Array, from: number, to: number, count: number, slots: number[]): void {
  if (from >= to) return;
  if (from <= count - to) {
    for (let i = 0, seen = 0; i < order.length && seen < to; i++) {
      const slot = order[i]!;
      if (!marked(bits, slot)) continue;
      if (seen >= from) slots.push(slot);
      seen++;
    }
    return;
  }
  // Places counted from the end: [count - to, count - from).
  const picked: number[] = [];
  for (let i = order.length - 1, seen = 0; i >= 0 && seen < count - from; i--) {
    const slot = order[i]!;
    if (!marked(bits, slot)) continue;
    if (seen >= count - to) picked.push(slot);
    seen++;
  }
  for (let i = picked.length - 1; i >= 0; i--) slots.push(picked[i]!);
}

function remove(order: SlotOrder, slot: number, compare: (a: number, b: number) => number): void {
  const slots = order.view();
  let at = lowerBound(slots, slot, compare);
  if (slots[at] !== slot) at = slots.indexOf(slot);
  if (at >= 0) order.removeAt(at);
}
