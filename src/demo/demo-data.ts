// The deterministic demo directory: fictional merchants on reserved example domains,
// fictional agents and contributors, and a year of community reports.
//
// Pure: no I/O and no clock. The same options give the same rows, byte for byte, whatever
// the batch size, because every row draws from its own PRNG stream keyed by the seed and the
// row's index (prng.ts rngFor). Reports are the one sequential part: they carry per-account
// counters across batches, which is what keeps (account, agent, merchant) unique.
import type {
  Account,
  Agent,
  Category,
  CategoryLegacyName,
  Merchant,
  OwnerStatement,
  Report,
  Sponsorship,
} from '../generated/prisma/client.js';
import type {
  FailureReason,
  Outcome,
  ReportStatus,
  SponsorshipSource,
  Stage,
  SubmissionChannel,
  TaskKey,
} from '../generated/prisma/enums.js';
import { hash32, permute32, rngFor, type Rng } from './prng.js';
import { TASKS as TASK_KEYS, STAGE_STEP, STAGES } from '../modules/aggregation/constants.js';
import { deriveOutcome } from '../modules/reports/content.js';

export { deriveOutcome } from '../modules/reports/content.js';

export const DEFAULT_DEMO_SEED = 42;
export const DEFAULT_DEMO_MERCHANTS = 60;
export const DEFAULT_DEMO_REPORTS = 600;
export const DEFAULT_BATCH_SIZE = 5_000;
/** Reports are spread over this many days before `now`. */
const REPORT_WINDOW_DAYS = 358;
// Far beyond any useful demo, and well inside what identifiers (a 32-bit row index) and
// the generator's per-account and per-merchant arrays can hold.
const MAX_DEMO_MERCHANTS = 10_000_000;
const MAX_DEMO_REPORTS = 100_000_000;
const MAX_DEMO_ACCOUNTS = 10_000_000;

export interface DemoOptions {
  /** The moment the demo is generated for: every date lies on or before it. */
  now: Date;
  seed?: number;
  merchants?: number;
  reports?: number;
  /** Contributor accounts (the moderator comes on top). Default: derived from reports. */
  accounts?: number;
}

export interface ResolvedDemoOptions {
  readonly now: Date;
  readonly seed: number;
  readonly merchants: number;
  readonly reports: number;
  readonly accounts: number;
}

export interface DemoCounts {
  categories: number;
  categoryLegacyNames: number;
  agents: number;
  accounts: number;
  merchants: number;
  sponsorships: number;
  ownerStatements: number;
  reports: number;
}

/** Timestamps are ISO 8601 strings in UTC with milliseconds; dates are YYYY-MM-DD. */
type Timestamp = string;
type DateOnly = string;
type TaskResults = Partial<Record<TaskKey, Outcome>>;

/**
 * A table's columns as the demo writes them, typed from the schema's model (a renamed or
 * retyped column fails to compile here): timestamps as ISO strings, dates as YYYY-MM-DD.
 */
type Written<M, K extends keyof M> = { [F in K]: M[F] extends Date ? Timestamp : M[F] extends Date | null ? Timestamp | null : M[F] };
type Stamps = 'id' | 'createdAt' | 'updatedAt';

export type CategoryRow = Written<Category, Stamps | 'name' | 'slug'>;
export type CategoryLegacyNameRow = Written<CategoryLegacyName, 'id' | 'name' | 'slug' | 'categoryId' | 'createdAt'>;
export type AgentRow = Written<Agent, Stamps | 'slug' | 'name' | 'vendor' | 'description' | 'active'>;
export type AccountRow = Written<Account, Stamps | 'email' | 'role' | 'suspended' | 'suspendedReason' | 'suspendedAt' | 'lastSignInAt'>;
/** Every demo merchant has a category. */
export type MerchantRow = Written<Merchant, Stamps | 'slug' | 'name' | 'website' | 'category' | 'serviceRegions' | 'isPublic' | 'approvedCanonical'> & {
  categoryId: string;
};
export type SponsorshipRow = Written<Sponsorship, Stamps | 'merchantId' | 'source' | 'placement' | 'disclosure' | 'startsAt' | 'endsAt' | 'billingId'>;
export type OwnerStatementRow = Written<OwnerStatement, Stamps | 'merchantId' | 'statement' | 'ownershipEvidence'> & {
  taskClaims: TaskResults;
  declaredAt: DateOnly;
};
export type ReportRow = Written<
  Report,
  | Stamps
  | 'accountId'
  | 'merchantId'
  | 'agentId'
  | 'status'
  | 'channel'
  | 'outcome'
  | 'outcomeSupplied'
  | 'experience'
  | 'agentVersion'
  | 'region'
  | 'task'
  | 'stage'
  | 'failureReason'
  | 'humanIntervention'
  | 'privacyConfirmed'
  | 'moderationFeedback'
  | 'moderationNotes'
  | 'moderatedAt'
  | 'moderatedById'
> & { capabilityResults: TaskResults; testedAt: DateOnly | null };

export interface DemoData {
  readonly options: ResolvedDemoOptions;
  readonly counts: DemoCounts;
  /** Each call starts a fresh pass that yields the table's rows in batches. */
  categories(): Generator<CategoryRow[]>;
  categoryLegacyNames(): Generator<CategoryLegacyNameRow[]>;
  agents(): Generator<AgentRow[]>;
  accounts(): Generator<AccountRow[]>;
  merchants(): Generator<MerchantRow[]>;
  sponsorships(): Generator<SponsorshipRow[]>;
  ownerStatements(): Generator<OwnerStatementRow[]>;
  reports(): Generator<ReportRow[]>;
}

export interface DemoRows {
  categories: CategoryRow[];
  categoryLegacyNames: CategoryLegacyNameRow[];
  agents: AgentRow[];
  accounts: AccountRow[];
  merchants: MerchantRow[];
  sponsorships: SponsorshipRow[];
  ownerStatements: OwnerStatementRow[];
  reports: ReportRow[];
}

// Fixed catalogue

interface CategorySpec {
  readonly name: string;
  readonly slug: string;
  readonly legacyNames: readonly string[];
  /** Share of merchants whose products need configuring (size, date, colour...). */
  readonly optionsShare: number;
  readonly suffixes: readonly string[];
  readonly tasks: readonly string[];
}

const CATEGORIES: readonly CategorySpec[] = [
  {
    name: 'Home & Garden',
    slug: 'home-garden',
    legacyNames: ['Home and Garden Supplies'],
    optionsShare: 0.6,
    suffixes: ['Home Goods', 'Garden Supply', 'Interiors', 'Hardware'],
    tasks: ['Buy a set of three plant pots', 'Order a replacement lampshade', 'Add a 15 m garden hose to the cart'],
  },
  {
    name: 'Electronics',
    slug: 'electronics',
    legacyNames: ['Consumer Electronics'],
    optionsShare: 0.6,
    suffixes: ['Electronics', 'Gadgets', 'Audio', 'Computing'],
    tasks: ['Buy a 2 m USB-C charging cable', 'Compare two pairs of wireless headphones', 'Order a 128 GB memory card'],
  },
  {
    name: 'Fashion & Apparel',
    slug: 'fashion-apparel',
    legacyNames: ['Clothing and Accessories'],
    optionsShare: 0.85,
    suffixes: ['Apparel', 'Outfitters', 'Boutique', 'Footwear'],
    tasks: ['Buy a plain T-shirt in size M', 'Order two pairs of running socks', 'Find a rain jacket under 80 in the shop currency'],
  },
  {
    name: 'Books & Media',
    slug: 'books-media',
    legacyNames: ['Books'],
    optionsShare: 0.1,
    suffixes: ['Books', 'Records', 'Press', 'Media'],
    tasks: ['Order a paperback novel', 'Buy a vinyl record', 'Pre-order a graphic novel'],
  },
  {
    name: 'Grocery & Food',
    slug: 'grocery-food',
    legacyNames: ['Food & Drink'],
    optionsShare: 0.3,
    suffixes: ['Market', 'Grocers', 'Pantry', 'Provisions'],
    tasks: ['Order a weekly vegetable box', 'Buy 500 g of coffee beans', 'Add pantry staples to the basket'],
  },
  {
    name: 'Health & Beauty',
    slug: 'health-beauty',
    legacyNames: [],
    optionsShare: 0.3,
    suffixes: ['Apothecary', 'Skincare', 'Wellness', 'Beauty'],
    tasks: ['Reorder a face moisturiser', 'Buy a travel toothbrush', 'Order vitamin D tablets'],
  },
  {
    name: 'Sports & Outdoors',
    slug: 'sports-outdoors',
    legacyNames: ['Outdoor Gear'],
    optionsShare: 0.6,
    suffixes: ['Outfitters', 'Cycles', 'Sports', 'Gear'],
    tasks: ['Buy a rechargeable bike light', 'Order a bag of climbing chalk', 'Find a two-person tent'],
  },
  {
    name: 'Toys & Games',
    slug: 'toys-games',
    legacyNames: [],
    optionsShare: 0.3,
    suffixes: ['Toys', 'Games', 'Playthings', 'Workshop'],
    tasks: ['Buy a 1000-piece jigsaw puzzle', 'Order a board game for four players', 'Find a kite for a child'],
  },
  {
    name: 'Travel & Tickets',
    slug: 'travel-tickets',
    legacyNames: ['Travel'],
    optionsShare: 0.9,
    suffixes: ['Tickets', 'Travel', 'Stays', 'Passes'],
    tasks: ['Book a one-way train ticket', 'Reserve a hotel room for two nights', 'Buy two festival day passes'],
  },
  {
    name: 'Pets',
    slug: 'pets',
    legacyNames: ['Pet Supplies'],
    optionsShare: 0.4,
    suffixes: ['Pet Supply', 'Pet Shop', 'Feed Store', 'Aquatics'],
    tasks: ['Order a bag of dry dog food', 'Buy a cat scratching post', 'Reorder aquarium filter cartridges'],
  },
];

// The first merchants have hand-written names, six per category in CATEGORIES order.
const CURATED_MERCHANTS: readonly string[] = [
  'Lumen Lamps', 'Fernhollow Garden Supply', 'Copperkettle Kitchenware', 'Quiet Loom Textiles', 'Birch & Bolt Hardware', 'Tidewater Tiles',
  'Voltbay Electronics', 'Pixelmoor Cameras', 'Circuit Sparrow', 'Northbeam Audio', 'Kettledrum Computers', 'Glowwire Gadgets',
  'Button & Bobbin', 'Marigold Mercantile', 'Saltmarsh Outerwear', 'Velvet Heron Boutique', 'Cobble Road Shoes', 'Indigo Thistle',
  'Dogeared Lantern Books', 'Paper Lantern Press Shop', 'Vinyl Attic', 'Inkwell & Quill Booksellers', 'Midnight Reel Films', 'Cardstock Comics',
  'Hearth & Harvest Market', 'Pantry Owl', 'Orchard Row Grocers', 'Brine & Barrel Deli', 'Little Mill Baking Supply', 'Saffron Street Spices',
  'Moss & Mineral Apothecary', 'Clearwater Skincare', 'Daybreak Vitamins', 'Lather Lab', 'Willowbark Wellness', 'Brightsmile Dental Supply',
  'Switchback Summit Outfitters', 'Riverstone Cycles', 'Tideline Surf Co.', 'Granite Grip Climbing', 'Fairway Finch Golf', 'Trailhead Tent Works',
  'Tin Robot Toys', 'Puzzle Burrow', 'Kite & Comet', 'Meeple Harbor Games', 'Marble Run Workshop', 'Paper Crane Hobbies',
  'Gatehouse Rail Tickets', 'Harborline Ferries', 'Starlit Stays', 'Roundtrip Rook', 'Festival Lantern Tickets', 'Peak Pass Lifts',
  'Wag & Whisker Supply', 'Barkside Bakery', 'Aquarium Alcove', 'Feather & Seed Aviary', 'Tabby Tuesday', 'Hoof & Hay Farm Store',
];

const NAME_FIRST = [
  'Amber', 'Bramble', 'Cedar', 'Dapple', 'Ember', 'Foxglove', 'Gull', 'Hazel', 'Ivy', 'Juniper', 'Kestrel', 'Larch',
  'Maple', 'Nettle', 'Oakmoss', 'Pebble', 'Quince', 'Rowan', 'Sorrel', 'Thistle', 'Umber', 'Vale', 'Willow', 'Yarrow', 'Zephyr',
];
const NAME_SECOND = ['Hollow', 'Lane', 'Harbor', 'Ridge', 'Meadow', 'Brook', 'Hill', 'Yard', 'Field', 'Gate', 'Works', 'Row', 'Wharf', 'Cove', 'Mill'];

interface AgentSpec {
  readonly slug: string;
  readonly name: string;
  readonly vendor: string;
  readonly description: string;
  readonly active: boolean;
  /** 0..1: how well it copes with awkward interfaces and payment steps. */
  readonly skill: number;
  /** Probability that it gets through a required sign-in. */
  readonly loginSkill: number;
  /** Relative popularity among contributors. */
  readonly popularity: number;
  readonly majorVersion: number;
}

const AGENTS: readonly AgentSpec[] = [
  {
    slug: 'errand-otter',
    name: 'Errand Otter',
    vendor: 'Otterbyte Labs',
    description: 'General-purpose shopping agent that drives a remote browser and asks its user before any payment.',
    active: true,
    skill: 0.85,
    loginSkill: 0.8,
    popularity: 26,
    majorVersion: 4,
  },
  {
    slug: 'basket-pilot',
    name: 'Basket Pilot',
    vendor: 'Quillmoor AI',
    description: 'Browser extension that fills carts and checkout forms from a shopping list.',
    active: true,
    skill: 0.72,
    loginSkill: 0.6,
    popularity: 22,
    majorVersion: 2,
  },
  {
    slug: 'tote-runner',
    name: 'Tote Runner',
    vendor: 'Small Hours Software',
    description: 'Headless agent for routine reorders; works best on simple, server-rendered shops.',
    active: true,
    skill: 0.58,
    loginSkill: 0.45,
    popularity: 18,
    majorVersion: 1,
  },
  {
    slug: 'marlin-shopper',
    name: 'Marlin Shopper',
    vendor: 'Bluefin Automata',
    description: 'Research-first agent that compares offers across shops before buying.',
    active: true,
    skill: 0.48,
    loginSkill: 0.3,
    popularity: 14,
    majorVersion: 3,
  },
  {
    slug: 'quill-cart',
    name: 'Quill Cart',
    vendor: 'Inkcap Systems',
    description: 'Lightweight open agent that reads pages as text; struggles with script-heavy widgets.',
    active: true,
    skill: 0.35,
    loginSkill: 0.15,
    popularity: 12,
    majorVersion: 0,
  },
  {
    slug: 'ledger-lark',
    name: 'Ledger Lark',
    vendor: 'Larkspur Dynamics',
    description: 'Discontinued by its vendor; kept for its historical reports.',
    active: false,
    skill: 0.42,
    loginSkill: 0.2,
    popularity: 8,
    majorVersion: 1,
  },
];

const REGIONS = ['US', 'GB', 'DE', 'FR', 'CA', 'AU', 'JP', 'NL', 'ES', 'IT', 'SE', 'IE', 'NZ'] as const;
const REGION_WEIGHTS: readonly (readonly [string, number])[] = REGIONS.map((code) => [
  code,
  code === 'US' ? 6 : code === 'GB' ? 4 : code === 'DE' || code === 'FR' || code === 'CA' ? 2.5 : 1,
]);

// Identifiers and time

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;

// Each table's code goes into its identifiers (4 bits) and keys its PRNG streams.
const Table = {
  Category: 1,
  LegacyName: 2,
  Agent: 3,
  Contributor: 4,
  Moderator: 5,
  Merchant: 6,
  Sponsorship: 7,
  OwnerStatement: 8,
  Report: 9,
  Context: 15,
} as const;
type Table = (typeof Table)[keyof typeof Table];

// Hand-rolled formatting: Number#toString(16) on large numbers and Date#toISOString each cost
// about a microsecond, which at several calls per row dominated a million-report run.
const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const hex16 = (value: number): string => HEX2[(value >>> 8) & 0xff]! + HEX2[value & 0xff]!;
const hex32 = (value: number): string => hex16(value >>> 16) + hex16(value & 0xffff);
const hex48 = (value: number): string => {
  const high = Math.floor(value / 0x1_0000_0000);
  return hex16(high) + hex32(value - high * 0x1_0000_0000);
};

// Formatted calendar days, memoised: deterministic, and bounded by the days a run spans.
const dayStrings = new Map<number, string>();
function dayString(day: number): DateOnly {
  let text = dayStrings.get(day);
  if (text === undefined) {
    text = new Date(day * DAY).toISOString().slice(0, 10);
    dayStrings.set(day, text);
  }
  return text;
}

/** The same string as `new Date(ms).toISOString()`, for years 0000-9999. */
function iso(ms: number): Timestamp {
  const day = Math.floor(ms / DAY);
  let rest = ms - day * DAY;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${dayString(day)}T${PAD2[hours]!}:${PAD2[minutes]!}:${PAD2[seconds]!}.${PAD3[millis]!}Z`;
}
const dateOnly = (ms: number): DateOnly => dayString(Math.floor(ms / DAY));

/**
 * A UUID version 7: the row's creation time in milliseconds, the table code, 38 hashed bits,
 * and a keyed bijection of the row index in the last 32 bits. Two rows of one table can never
 * share an id (distinct indexes give distinct permuted values), rows of different tables
 * differ in the table code, and the ids sort by creation time like uuid(7) defaults do.
 */
function demoUuid(seed: number, table: Table, index: number, ms: number): string {
  const noise = hash32(seed, table, index);
  const randA = (table << 8) | (noise & 0xff);
  const high30 = hash32(noise, index) & 0x3fff_ffff;
  const low32 = permute32(index, hash32(seed, table, 0x1d));
  const time = hex48(ms);
  return `${time.slice(0, 8)}-${time.slice(8)}-${hex16(0x7000 | randA)}-${hex16(0x8000 | (high30 >>> 16))}-${hex16(high30 & 0xffff)}${hex32(low32)}`;
}

function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/&/g, ' ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** How many i in [0, n) have i % mod === rem. */
function countResidue(n: number, mod: number, rem: number): number {
  return n > rem ? Math.floor((n - 1 - rem) / mod) + 1 : 0;
}

// Which merchants are hidden, sponsored or carry an owner statement: fixed residues, so the
// default 60 merchants get 3 hidden, 4 sponsored (2 of each source) and 5 owner statements,
// and larger runs keep the same proportions. The hidden and sponsored residues never meet.
const isHiddenMerchant = (i: number): boolean => i % 25 === 7;
const SPONSORED = { every: 15, offset: 3 } as const;
const OWNER_STATEMENT = { every: 12, offset: 5 } as const;
const SUSPENDED_CONTRIBUTOR = 13;

function positiveInteger(name: string, value: number | undefined, fallback: number, max: number): number {
  const result = value ?? fallback;
  if (!Number.isSafeInteger(result) || result < 1 || result > max) {
    throw new RangeError(`${name} must be a positive integer up to ${max.toLocaleString('en-US')}, got ${String(result)}`);
  }
  return result;
}

export function resolveDemoOptions(options: DemoOptions): ResolvedDemoOptions {
  if (!(options.now instanceof Date) || !Number.isFinite(options.now.getTime())) {
    throw new RangeError('now must be a valid Date');
  }
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${String(options.seed)}`);
  const merchants = positiveInteger('merchants', options.merchants, DEFAULT_DEMO_MERCHANTS, MAX_DEMO_MERCHANTS);
  const reports = positiveInteger('reports', options.reports, DEFAULT_DEMO_REPORTS, MAX_DEMO_REPORTS);
  const pairs = AGENTS.length * merchants;
  // A few dozen contributors for the default demo, about twenty reports each at scale, and
  // always twice the (account, agent, merchant) capacity the reports need.
  const derivedAccounts = Math.max(40, Math.ceil(reports / 20), Math.ceil((2 * reports) / pairs));
  if (options.accounts === undefined && derivedAccounts > MAX_DEMO_ACCOUNTS) {
    throw new RangeError(`${reports} reports need more merchants than ${merchants}`);
  }
  const accounts = positiveInteger('accounts', options.accounts, derivedAccounts, MAX_DEMO_ACCOUNTS);
  if (accounts * pairs < reports) {
    throw new RangeError(
      `${reports} reports need more than ${accounts} accounts x ${AGENTS.length} agents x ${merchants} merchants`,
    );
  }
  return Object.freeze({ now: new Date(options.now.getTime()), seed, merchants, reports, accounts });
}

// Merchants' and accounts' hidden character, which drives the reports

type MerchantKind = 'friendly' | 'neutral' | 'captcha' | 'blocking';

interface MerchantProfile {
  readonly index: number;
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly category: number;
  readonly isPublic: boolean;
  readonly regions: readonly string[];
  readonly createdMs: number;
  readonly kind: MerchantKind;
  /** 0..1: how awkward its pages are for an agent. */
  readonly difficulty: number;
  readonly loginRequired: boolean;
  readonly hasOptions: boolean;
  /** Probability that the payment step defeats an average agent. */
  readonly paymentFriction: number;
}

const KIND_WEIGHTS: readonly (readonly [MerchantKind, number])[] = [
  ['friendly', 34],
  ['neutral', 34],
  ['captcha', 19],
  ['blocking', 13],
];

function merchantProfile(seed: number, nowMs: number, i: number): MerchantProfile {
  const rng = rngFor(seed, Table.Merchant, i);
  const category = i < CURATED_MERCHANTS.length ? Math.floor(i / 6) : rng.int(0, CATEGORIES.length - 1);
  const spec = CATEGORIES[category]!;
  let name: string;
  let slug: string;
  if (i < CURATED_MERCHANTS.length) {
    name = CURATED_MERCHANTS[i]!;
    slug = slugify(name);
  } else {
    name = `${rng.pick(NAME_FIRST)} ${rng.pick(NAME_SECOND)} ${rng.pick(spec.suffixes)}`;
    // Generated names repeat at scale; the index keeps the slug (and the domain) unique.
    slug = `${slugify(name)}-${i.toString(36)}`;
  }
  const regions = rng.chance(0.15)
    ? ['GLOBAL']
    : [...new Set([rng.weighted(REGION_WEIGHTS), rng.weighted(REGION_WEIGHTS), rng.weighted(REGION_WEIGHTS)].slice(0, rng.int(1, 3)))].sort();
  const kind = rng.weighted(KIND_WEIGHTS);
  const difficultyRange: Record<MerchantKind, readonly [number, number]> = {
    friendly: [0.03, 0.18],
    neutral: [0.12, 0.4],
    captcha: [0.12, 0.4],
    blocking: [0.2, 0.5],
  };
  const [low, high] = difficultyRange[kind];
  const createdMs = nowMs - 370 * DAY - rng.int(0, 390 * DAY);
  return {
    index: i,
    id: demoUuid(seed, Table.Merchant, i, createdMs),
    name,
    slug,
    category,
    isPublic: !isHiddenMerchant(i),
    regions,
    createdMs,
    kind,
    difficulty: low + rng.next() * (high - low),
    loginRequired: rng.chance(kind === 'friendly' ? 0.15 : 0.35),
    hasOptions: rng.chance(spec.optionsShare),
    paymentFriction: 0.03 + rng.next() * (kind === 'friendly' ? 0.12 : 0.32),
  };
}

// Mostly their own *.example domains; a few on the other reserved example domains.
function merchantWebsite(profile: MerchantProfile): string {
  if (profile.index % 20 === 11) return `https://www.example.net/shops/${profile.slug}`;
  if (profile.index % 20 === 17) return `https://${profile.slug}.example.com`;
  return `https://${profile.slug}.example`;
}

function merchantRow(seed: number, nowMs: number, profile: MerchantProfile): MerchantRow {
  // A second stream, so that row-only details can change without reshaping the reports.
  const rng = rngFor(seed, Table.Merchant, profile.index + 0x4000_0000);
  const spec = CATEGORIES[profile.category]!;
  const legacy = spec.legacyNames.length > 0 && rng.chance(0.25) ? rng.pick(spec.legacyNames) : undefined;
  const updatedMs = rng.chance(0.3) ? nowMs - rng.int(1 * DAY, 60 * DAY) : profile.createdMs;
  return {
    id: profile.id,
    slug: profile.slug,
    name: profile.name,
    website: merchantWebsite(profile),
    category: legacy ?? spec.name,
    categoryId: categoryId(seed, nowMs, profile.category),
    serviceRegions: [...profile.regions],
    isPublic: profile.isPublic,
    approvedCanonical: profile.isPublic && !rng.chance(0.08),
    createdAt: iso(profile.createdMs),
    updatedAt: iso(Math.max(updatedMs, profile.createdMs)),
  };
}

const categoryCreatedMs = (nowMs: number, c: number): number => nowMs - 800 * DAY + c * MINUTE;
const categoryId = (seed: number, nowMs: number, c: number): string =>
  demoUuid(seed, Table.Category, c, categoryCreatedMs(nowMs, c));
const agentCreatedMs = (nowMs: number, g: number): number => nowMs - 790 * DAY + g * 7 * DAY;
const agentId = (seed: number, nowMs: number, g: number): string => demoUuid(seed, Table.Agent, g, agentCreatedMs(nowMs, g));
const moderatorCreatedMs = (nowMs: number): number => nowMs - 800 * DAY + HOUR;
const moderatorId = (seed: number, nowMs: number): string =>
  demoUuid(seed, Table.Moderator, 0, moderatorCreatedMs(nowMs));

function contributorCreatedMs(seed: number, nowMs: number, a: number): number {
  return nowMs - 366 * DAY - rngFor(seed, Table.Contributor, a).int(0, 380 * DAY);
}

// A test run, simulated step by step so that stages, failure reasons, task outcomes and the
// overall outcome agree with each other and with the merchant's and agent's character.


const STAGE_LABEL: Record<Stage, string> = {
  ACCESS: 'first page load',
  BROWSE: 'search page',
  DETAILS: 'product page',
  CONFIGURE: 'option picker',
  CART: 'cart',
  CHECKOUT: 'checkout',
  SHIPPING: 'shipping form',
  PAYMENT_APPROVAL: 'payment step',
  PURCHASE: 'order confirmation',
};

type Goal = 'BROWSE' | 'DETAILS' | 'CART' | 'PAYMENT_APPROVAL' | 'PURCHASE';
const GOAL_WEIGHTS: readonly (readonly [Goal, number])[] = [
  ['BROWSE', 5],
  ['DETAILS', 9],
  ['CART', 20],
  ['PAYMENT_APPROVAL', 38],
  ['PURCHASE', 28],
];

type Failure = Exclude<FailureReason, 'NONE'>;

interface Journey {
  stage: Stage;
  failure: FailureReason;
  failedAt: Stage | null;
  humanIntervention: boolean;
  tasks: TaskResults;
  /** The last task touched, for contributors who only record that one. */
  lastTask: TaskKey;
  /** What the contributor would call the overall outcome. */
  verdict: Outcome;
}

interface ForcedRun {
  readonly goal: Goal;
  readonly failAt?: Stage;
  readonly reason?: Failure;
  readonly verdict?: Outcome;
  readonly mode: RecordingMode;
  readonly status: ReportStatus;
  /** The contributor left out the stage and the failure reason. */
  readonly noDetail?: boolean;
}

type RecordingMode = 'derived' | 'both' | 'verdictOnly' | 'lastTaskOnly';
const MODE_WEIGHTS: readonly (readonly [RecordingMode, number])[] = [
  ['derived', 55],
  ['both', 26],
  ['verdictOnly', 12],
  ['lastTaskOnly', 7],
];

// Spread evenly through every run of at least this many reports, these guarantee that each
// outcome, stage, failure reason and moderation status occurs, whatever the seed.
const SHOWCASE: readonly ForcedRun[] = [
  { goal: 'PURCHASE', mode: 'derived', status: 'APPROVED' },
  { goal: 'PAYMENT_APPROVAL', failAt: 'ACCESS', reason: 'EXPLICIT_BLOCK', mode: 'derived', status: 'APPROVED' },
  { goal: 'PURCHASE', failAt: 'BROWSE', reason: 'CAPTCHA', mode: 'both', status: 'APPROVED' },
  { goal: 'CART', failAt: 'CONFIGURE', reason: 'INTERFACE', mode: 'derived', status: 'APPROVED' },
  { goal: 'PAYMENT_APPROVAL', failAt: 'CHECKOUT', reason: 'AUTHENTICATION', mode: 'derived', status: 'APPROVED' },
  { goal: 'PAYMENT_APPROVAL', failAt: 'SHIPPING', reason: 'INTERFACE', mode: 'both', status: 'APPROVED' },
  { goal: 'PURCHASE', failAt: 'PAYMENT_APPROVAL', reason: 'PAYMENT', mode: 'derived', status: 'APPROVED' },
  { goal: 'DETAILS', failAt: 'DETAILS', reason: 'INTERFACE', verdict: 'DOES_NOT_WORK', mode: 'verdictOnly', status: 'APPROVED' },
  { goal: 'CART', failAt: 'CART', reason: 'OTHER', verdict: 'UNSURE', mode: 'verdictOnly', status: 'APPROVED' },
  { goal: 'PAYMENT_APPROVAL', mode: 'derived', status: 'PENDING' },
  { goal: 'CART', failAt: 'ACCESS', reason: 'CAPTCHA', mode: 'derived', status: 'REJECTED' },
  { goal: 'BROWSE', mode: 'both', status: 'APPROVED' },
];

// A panel of regular testers, so that the demo shows the whole scale of verdicts: pairs
// reported often and alike (high and medium confidence), recently and long ago, in agreement
// and in conflict, through checkout and stopped at the door. Each panel account reports each of
// its pairs once; panel accounts take no part in the ordinary walk below, so the unique
// (account, agent, merchant) still holds by construction. Used only when the demo is big
// enough for it (the default demo is); its reports are the last indexes.
interface PanelPair {
  readonly agent: number;
  readonly kind: MerchantKind;
  readonly reports: number;
  /** Days before now of the newest and the oldest test. */
  readonly days: readonly [number, number];
  /** The runs, taken in turn. */
  readonly runs: ReadonlyArray<Omit<ForcedRun, 'mode' | 'status'>>;
  /** How the reports are recorded; default: every task, now and then with the outcome too. */
  readonly mode?: RecordingMode;
}

const PANEL_ACCOUNTS = 8;

const PANEL_PAIRS: readonly PanelPair[] = [
  { agent: 0, kind: 'friendly', reports: 7, days: [2, 80], runs: [{ goal: 'PURCHASE' }] },
  { agent: 1, kind: 'blocking', reports: 6, days: [3, 70], runs: [{ goal: 'CART', failAt: 'ACCESS', reason: 'EXPLICIT_BLOCK' }] },
  { agent: 0, kind: 'neutral', reports: 4, days: [5, 60], runs: [{ goal: 'PAYMENT_APPROVAL' }] },
  { agent: 2, kind: 'captcha', reports: 4, days: [4, 50], runs: [{ goal: 'PAYMENT_APPROVAL', failAt: 'CHECKOUT', reason: 'CAPTCHA' }] },
  { agent: 1, kind: 'friendly', reports: 6, days: [2, 40], runs: [{ goal: 'PAYMENT_APPROVAL' }, { goal: 'PAYMENT_APPROVAL', failAt: 'CHECKOUT', reason: 'CAPTCHA' }] },
  { agent: 3, kind: 'friendly', reports: 4, days: [230, 340], runs: [{ goal: 'PURCHASE' }] },
  { agent: 4, kind: 'captcha', reports: 4, days: [6, 70], runs: [{ goal: 'DETAILS', failAt: 'BROWSE', reason: 'CAPTCHA' }] },
  { agent: 2, kind: 'neutral', reports: 6, days: [1, 60], runs: [{ goal: 'CART' }] },
  { agent: 3, kind: 'neutral', reports: 3, days: [10, 60], runs: [{ goal: 'PURCHASE' }] },
  { agent: 4, kind: 'friendly', reports: 3, days: [8, 45], runs: [{ goal: 'PAYMENT_APPROVAL' }] },
  { agent: 0, kind: 'captcha', reports: 5, days: [2, 50], runs: [{ goal: 'PURCHASE', failAt: 'PURCHASE', reason: 'PAYMENT' }] },
  { agent: 1, kind: 'neutral', reports: 2, days: [3, 20], runs: [{ goal: 'CART', failAt: 'CONFIGURE', reason: 'INTERFACE' }] },
  { agent: 3, kind: 'blocking', reports: 5, days: [3, 60], runs: [{ goal: 'CART', failAt: 'ACCESS', reason: 'EXPLICIT_BLOCK' }] },
  { agent: 4, kind: 'neutral', reports: 4, days: [4, 40], runs: [{ goal: 'CART' }] },
  { agent: 2, kind: 'friendly', reports: 5, days: [2, 30], runs: [{ goal: 'PURCHASE' }] },
  // A report that names no step and gives only an overall result: no verdict can place it.
  { agent: 3, kind: 'neutral', reports: 1, days: [1, 1], mode: 'verdictOnly', runs: [{ goal: 'CART', failAt: 'CART', reason: 'OTHER', verdict: 'UNSURE', noDetail: true }] },
];

const PANEL_REPORTS = PANEL_PAIRS.reduce((sum, pair) => sum + pair.reports, 0);

/** The panel runs when the demo has room for it beside the ordinary walk. */
const panelFits = (merchants: number, reports: number, accounts: number) =>
  merchants >= 30 && reports >= 4 * PANEL_REPORTS && (accounts - PANEL_ACCOUNTS) * AGENTS.length * merchants >= reports;

/**
 * The merchant of each panel pair: the least popular public one of its kind not taken (the
 * ordinary walk favours popular merchants, so the panel's pairs keep their own character).
 */
function panelMerchants(profiles: readonly MerchantProfile[], rankToMerchant: Int32Array): MerchantProfile[] {
  const taken = new Set<number>();
  const scan = Array.from(rankToMerchant, (index) => profiles[index]!).reverse();
  return PANEL_PAIRS.map((pair) => {
    const pick = scan.find((m) => m.isPublic && m.kind === pair.kind && !taken.has(m.index)) ?? scan.find((m) => m.isPublic && !taken.has(m.index))!;
    taken.add(pick.index);
    return pick;
  });
}

function failureOutcome(rng: Rng, reason: Failure): Outcome {
  switch (reason) {
    case 'EXPLICIT_BLOCK':
    case 'CAPTCHA':
      return 'BLOCKED';
    case 'INTERFACE':
      return rng.chance(0.7) ? 'DOES_NOT_WORK' : 'PARTIAL';
    case 'AUTHENTICATION':
      return 'DOES_NOT_WORK';
    case 'PAYMENT':
      return rng.chance(0.6) ? 'DOES_NOT_WORK' : 'PARTIAL';
    case 'OTHER':
      return rng.chance(0.6) ? 'UNSURE' : 'DOES_NOT_WORK';
  }
}

// Which problem, if any, the agent meets at a stage. One roll per stage, split into bands.
function obstacle(rng: Rng, stage: Stage, merchant: MerchantProfile, agent: AgentSpec, forced: ForcedRun | undefined): Failure | null {
  if (forced) return forced.failAt === stage ? (forced.reason ?? 'OTHER') : null;
  const clumsy = merchant.difficulty * (1 - agent.skill);
  const captchaWall = merchant.kind === 'captcha';
  const roll = rng.next();
  let band = 0;
  switch (stage) {
    case 'ACCESS':
      if (roll < (band += merchant.kind === 'blocking' ? 0.72 : 0.01)) return 'EXPLICIT_BLOCK';
      if (roll < (band += captchaWall ? 0.42 : merchant.kind === 'neutral' ? 0.04 : 0.01)) return 'CAPTCHA';
      return roll < (band += clumsy * 0.1) ? 'INTERFACE' : null;
    case 'BROWSE':
      if (roll < (band += captchaWall ? 0.2 : 0.015)) return 'CAPTCHA';
      return roll < (band += clumsy * 0.5) ? 'INTERFACE' : null;
    case 'DETAILS':
      return roll < clumsy * 0.45 ? 'INTERFACE' : null;
    case 'CONFIGURE':
      return roll < clumsy * 1.3 ? 'INTERFACE' : null;
    case 'CART':
      if (roll < (band += captchaWall ? 0.1 : 0.01)) return 'CAPTCHA';
      if (roll < (band += clumsy * 0.8)) return 'INTERFACE';
      return roll < (band += 0.02) ? 'OTHER' : null;
    case 'CHECKOUT':
      if (merchant.loginRequired && roll < (band += 1 - agent.loginSkill)) return 'AUTHENTICATION';
      if (roll < (band += captchaWall ? 0.15 : 0.01)) return 'CAPTCHA';
      return roll < (band += clumsy * 0.6) ? 'INTERFACE' : null;
    case 'SHIPPING':
      if (roll < (band += clumsy * 0.5)) return 'INTERFACE';
      return roll < (band += 0.03) ? 'OTHER' : null;
    case 'PAYMENT_APPROVAL':
      return roll < merchant.paymentFriction * (1.2 - agent.skill) ? 'PAYMENT' : null;
    case 'PURCHASE':
      if (roll < (band += merchant.paymentFriction * 0.3)) return 'PAYMENT';
      return roll < (band += 0.04) ? 'OTHER' : null;
  }
}

function simulate(rng: Rng, merchant: MerchantProfile, agent: AgentSpec, goal: Goal, forced: ForcedRun | undefined): Journey {
  const tasks: TaskResults = {};
  let humanIntervention = false;
  let failure: FailureReason = 'NONE';
  let lastTask: TaskKey = 'ACCESS';
  const goalIndex = STAGES.indexOf(goal);

  let stage: Stage = 'ACCESS';
  let failedAt: Stage | null = null;
  for (let index = 0; index <= goalIndex; index++) {
    const step = STAGES[index]!;
    if (step === 'CONFIGURE' && !merchant.hasOptions && forced?.failAt !== 'CONFIGURE') continue;
    // A completed purchase is the PURCHASE stage; a purchase that did not complete got no
    // further than payment approval.
    stage = step === 'PURCHASE' ? 'PAYMENT_APPROVAL' : step;
    const task: TaskKey = STAGE_STEP[step];
    lastTask = task;
    if (step === 'CHECKOUT' && (merchant.loginRequired || (!forced && rng.chance(0.08)))) {
      lastTask = 'LOGIN';
      tasks.LOGIN = 'WORKS';
    }
    const problem = obstacle(rng, step, merchant, agent, forced);
    if (problem === null) {
      // Checkout spans three stages; it has worked only once the payment step is reached.
      if (task !== 'CHECKOUT' || step === 'PAYMENT_APPROVAL') tasks[task] ??= 'WORKS';
      if (step === 'PURCHASE') stage = 'PURCHASE';
      continue;
    }
    failure = problem;
    if (problem === 'CAPTCHA' && !forced && rng.chance(0.3)) {
      // The contributor solved the challenge and handed back to the agent.
      humanIntervention = true;
      tasks[task] = 'PARTIAL';
      if (step === 'PURCHASE') stage = 'PURCHASE';
      continue;
    }
    if (problem === 'AUTHENTICATION') tasks.LOGIN = 'DOES_NOT_WORK';
    tasks[task] = failureOutcome(rng, problem);
    lastTask = task;
    failedAt = step;
    break;
  }

  let verdict: Outcome;
  if (forced?.verdict) verdict = forced.verdict;
  else if (failedAt === null) verdict = humanIntervention ? 'PARTIAL' : 'WORKS';
  else if (failure === 'EXPLICIT_BLOCK' || failure === 'CAPTCHA') verdict = 'BLOCKED';
  else if (failure === 'OTHER') verdict = rng.chance(0.6) ? 'UNSURE' : 'PARTIAL';
  else verdict = STAGES.indexOf(failedAt!) <= STAGES.indexOf('DETAILS') ? 'DOES_NOT_WORK' : 'PARTIAL';

  return { stage, failure, failedAt, humanIntervention, tasks, lastTask, verdict };
}

const BROWSE_NOTES = [
  'Search returned relevant results on the first try.',
  'Category pages and search both worked; filters applied correctly.',
  'Browsing was smooth and prices were read correctly.',
  'Search needed a second, more specific query, but the right product came up.',
];
const SUCCESS_NOTES: Record<Goal, readonly string[]> = {
  BROWSE: ['Only checked that the catalogue can be browsed and searched.'],
  DETAILS: ['Product details, price and delivery estimate were all read correctly.', 'Stopped after reading the product page; stock and price matched what a person sees.'],
  CART: ['The item landed in the cart with the right options; I stopped there.', 'Added to the cart and changed the quantity without trouble.'],
  PAYMENT_APPROVAL: [
    'Reached the payment approval screen and stopped there as planned; no order was placed.',
    'Guest checkout and the shipping form worked; the agent waited for my approval before paying.',
  ],
  PURCHASE: [
    'Completed a real low-cost test order; the confirmation e-mail arrived a few minutes later.',
    'The agent placed the order after I approved the payment; the order shows in the account history.',
  ],
};
const FAILURE_NOTES: Record<Failure, readonly string[]> = {
  EXPLICIT_BLOCK: [
    'The site answered with an access-denied page that names automated clients.',
    'Every request from the agent got a "bots not allowed" page; a normal browser loaded fine.',
  ],
  CAPTCHA: [
    'A human-verification challenge appeared at the {stage} and the agent could not continue.',
    'The {stage} showed a CAPTCHA on every attempt.',
  ],
  INTERFACE: [
    'The {stage} uses a custom widget the agent could not operate.',
    'The agent could not find the controls on the {stage}; they only appear on hover.',
    'The {stage} kept resetting after the agent filled it in.',
  ],
  AUTHENTICATION: [
    'Checkout requires signing in, and the agent could not get through the login form.',
    'The shop asked for a one-time code sent by text message before checkout.',
  ],
  PAYMENT: [
    'The payment step asked for a bank confirmation that the agent could not pass.',
    'The card form sits in a frame the agent could not type into.',
  ],
  OTHER: [
    'The {stage} stopped responding; unclear whether this was the site or the agent.',
    'The item went out of stock during the test, so I could not tell how far it would have got.',
  ],
};
const INTERVENTION_NOTE = 'I solved the human-verification check myself, then handed control back to the agent.';

function experienceText(rng: Rng, journey: Journey, goal: Goal): string {
  const parts: string[] = [];
  if (journey.failedAt !== 'ACCESS' && journey.failedAt !== 'BROWSE' && STAGES.indexOf(goal) > STAGES.indexOf('BROWSE')) {
    parts.push(rng.pick(BROWSE_NOTES));
  }
  if (journey.humanIntervention) parts.push(INTERVENTION_NOTE);
  if (journey.failedAt) {
    parts.push(rng.pick(FAILURE_NOTES[journey.failure as Failure]).replace('{stage}', STAGE_LABEL[journey.failedAt]));
  } else {
    parts.push(rng.pick(SUCCESS_NOTES[goal]));
  }
  return parts.join(' ');
}

const REJECTION_FEEDBACK = [
  'Your experience text includes what looks like part of a card number. Please resubmit without payment details.',
  'The report seems to describe a different website from the one selected. Please check the merchant and resubmit.',
  'We could not tell from the report whether a real test took place. Please describe what the agent did.',
  'The experience text describes how to get around the site\'s bot protection; we do not publish bypass instructions.',
];
const REJECTION_NOTES = [
  'Second report from this account this week with pasted card digits.',
  'Screenshot shows another shop\'s header.',
  'Reads like a copy of the vendor\'s marketing page.',
];
const APPROVAL_NOTES = ['Matches the screenshots.', 'Consistent with the other recent reports for this agent.', 'Checked the shop myself: same result.'];

// Generation

function* inBatches<T>(count: number, batchSize: number, row: (index: number) => T): Generator<T[]> {
  for (let start = 0; start < count; start += batchSize) {
    const end = Math.min(count, start + batchSize);
    const batch: T[] = new Array<T>(end - start);
    for (let i = start; i < end; i++) batch[i - start] = row(i);
    yield batch;
  }
}

export interface DemoDataOptions {
  /** Rows per yielded batch; the rows themselves do not depend on it. */
  batchSize?: number;
}

export function createDemoData(options: DemoOptions, { batchSize = DEFAULT_BATCH_SIZE }: DemoDataOptions = {}): DemoData {
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a positive integer');
  const resolved = resolveDemoOptions(options);
  const { merchants: M, reports: N, accounts: A } = resolved;
  // Every stream is keyed by 32 bits; both halves of a larger seed count.
  const seed = hash32(resolved.seed >>> 0, Math.floor(resolved.seed / 0x1_0000_0000) | 0);
  const nowMs = resolved.now.getTime();
  const G = AGENTS.length;

  let profiles: MerchantProfile[] | undefined;
  const merchantProfiles = (): MerchantProfile[] => {
    profiles ??= Array.from({ length: M }, (_, i) => merchantProfile(seed, nowMs, i));
    return profiles;
  };

  const legacyNames = CATEGORIES.flatMap((spec, c) => spec.legacyNames.map((name) => ({ name, c })));

  const counts: DemoCounts = {
    categories: CATEGORIES.length,
    categoryLegacyNames: legacyNames.length,
    agents: G,
    accounts: A + 1,
    merchants: M,
    sponsorships: countResidue(M, SPONSORED.every, SPONSORED.offset),
    ownerStatements: countResidue(M, OWNER_STATEMENT.every, OWNER_STATEMENT.offset),
    reports: N,
  };

  function* categories(): Generator<CategoryRow[]> {
    yield CATEGORIES.map((spec, c) => ({
      id: categoryId(seed, nowMs, c),
      name: spec.name,
      slug: spec.slug,
      createdAt: iso(categoryCreatedMs(nowMs, c)),
      updatedAt: iso(categoryCreatedMs(nowMs, c)),
    }));
  }

  function* categoryLegacyNames(): Generator<CategoryLegacyNameRow[]> {
    yield legacyNames.map(({ name, c }, i) => {
      const createdMs = nowMs - 400 * DAY + i * MINUTE;
      return {
        id: demoUuid(seed, Table.LegacyName, i, createdMs),
        name,
        slug: slugify(name),
        categoryId: categoryId(seed, nowMs, c),
        createdAt: iso(createdMs),
      };
    });
  }

  function* agents(): Generator<AgentRow[]> {
    yield AGENTS.map((spec, g) => {
      const createdMs = agentCreatedMs(nowMs, g);
      // The inactive agent was deactivated half a year ago, after its last reports.
      const updatedMs = spec.active ? createdMs : nowMs - 180 * DAY;
      return {
        id: agentId(seed, nowMs, g),
        slug: spec.slug,
        name: spec.name,
        vendor: spec.vendor,
        description: spec.description,
        active: spec.active,
        createdAt: iso(createdMs),
        updatedAt: iso(updatedMs),
      };
    });
  }

  function contributor(a: number): AccountRow {
    const createdMs = contributorCreatedMs(seed, nowMs, a);
    const rng = rngFor(seed, Table.Contributor, a + 0x4000_0000);
    const lastSignInMs = nowMs - rng.int(1 * HOUR, 120 * DAY);
    const suspended = a === SUSPENDED_CONTRIBUTOR;
    const suspendedMs = nowMs - rng.int(1 * DAY, 40 * DAY);
    return {
      id: demoUuid(seed, Table.Contributor, a, createdMs),
      email: `tester${a + 1}@contributors.example`,
      role: 'USER',
      suspended,
      suspendedReason: suspended ? 'Repeatedly submitted reports containing payment details.' : null,
      suspendedAt: suspended ? iso(suspendedMs) : null,
      lastSignInAt: iso(lastSignInMs),
      createdAt: iso(createdMs),
      updatedAt: iso(suspended ? Math.max(suspendedMs, lastSignInMs) : lastSignInMs),
    };
  }

  function* accounts(): Generator<AccountRow[]> {
    const createdMs = moderatorCreatedMs(nowMs);
    const moderator: AccountRow = {
      id: moderatorId(seed, nowMs),
      email: 'moderator@directory.example',
      role: 'MODERATOR',
      suspended: false,
      suspendedReason: null,
      suspendedAt: null,
      lastSignInAt: iso(nowMs - 5 * HOUR),
      createdAt: iso(createdMs),
      updatedAt: iso(nowMs - 5 * HOUR),
    };
    let first = true;
    for (const batch of inBatches(A, batchSize, contributor)) {
      if (first) {
        first = false;
        // The moderator rides in the first batch; a full batch is split to respect batchSize.
        const withModerator = [moderator, ...batch];
        yield withModerator.slice(0, batchSize);
        if (withModerator.length > batchSize) yield withModerator.slice(batchSize);
      } else {
        yield batch;
      }
    }
  }

  function* merchants(): Generator<MerchantRow[]> {
    const all = merchantProfiles();
    yield* inBatches(M, batchSize, (i) => merchantRow(seed, nowMs, all[i]!));
  }

  function* sponsorships(): Generator<SponsorshipRow[]> {
    const all = merchantProfiles();
    const count = counts.sponsorships;
    yield* inBatches(count, batchSize, (k) => {
      const i = SPONSORED.offset + SPONSORED.every * k;
      const merchant = all[i]!;
      const rng = rngFor(seed, Table.Sponsorship, i);
      const source: SponsorshipSource = k % 2 === 0 ? 'subscription' : 'publisher_owned';
      const startsMs = nowMs - rng.int(5 * DAY, 90 * DAY);
      const endsMs = source === 'publisher_owned' && rng.chance(0.5) ? null : nowMs + rng.int(10 * DAY, 120 * DAY);
      const createdMs = startsMs - rng.int(1 * HOUR, 3 * DAY);
      return {
        id: demoUuid(seed, Table.Sponsorship, i, createdMs),
        merchantId: merchant.id,
        source,
        placement: rng.pick(['directory-top', 'category-top']),
        disclosure:
          source === 'subscription'
            ? `Sponsored: ${merchant.name} pays for this placement. Sponsorship is advertising, not evidence that AI agents can use this site.`
            : `Promoted: ${merchant.name} is owned by the directory's publisher and shown with the owner's authorization. Not evidence that AI agents can use this site.`,
        startsAt: iso(startsMs),
        endsAt: endsMs === null ? null : iso(endsMs),
        billingId: source === 'subscription' ? `sub_demo_${hex32(rng.uint32())}` : null,
        createdAt: iso(createdMs),
        updatedAt: iso(createdMs),
      };
    });
  }

  function* ownerStatements(): Generator<OwnerStatementRow[]> {
    const all = merchantProfiles();
    yield* inBatches(counts.ownerStatements, batchSize, (k) => {
      const i = OWNER_STATEMENT.offset + OWNER_STATEMENT.every * k;
      const merchant = all[i]!;
      const rng = rngFor(seed, Table.OwnerStatement, i);
      const declaredMs = nowMs - rng.int(10, 200) * DAY;
      const claims: TaskResults = {};
      // Owners tend to be optimistic, whatever their site actually does to agents.
      for (const task of TASK_KEYS) {
        if (rng.chance(0.7)) claims[task] = rng.weighted<Outcome>([['WORKS', 6], ['PARTIAL', 2], ['UNSURE', 1]]);
      }
      if (Object.keys(claims).length === 0) claims.ACCESS = 'WORKS';
      const host = new URL(merchantWebsite(merchant)).host;
      const createdMs = Date.parse(`${dateOnly(declaredMs)}T00:00:00.000Z`) + rng.int(8 * HOUR, 20 * HOUR);
      return {
        id: demoUuid(seed, Table.OwnerStatement, i, createdMs),
        merchantId: merchant.id,
        statement: rng.pick([
          `${merchant.name} welcomes shopping agents that identify themselves. Guest checkout is available in every region we ship to.`,
          `We test ${merchant.name} with common AI agents every quarter and fix what breaks. Payment still needs a human approval step.`,
          `Agents may browse and buy on ${merchant.name}; automated traffic above normal shopping rates is rate-limited.`,
        ]),
        taskClaims: claims,
        declaredAt: dateOnly(declaredMs),
        ownershipEvidence: rng.chance(0.8)
          ? rng.pick([
              `DNS TXT record on ${host} with token ods-${hex32(rng.uint32())}, checked by a moderator.`,
              `Reply received from the admin contact address of ${host}.`,
            ])
          : null,
        createdAt: iso(createdMs),
        updatedAt: iso(createdMs),
      };
    });
  }

  function* reports(): Generator<ReportRow[]> {
    const all = merchantProfiles();
    const pairs = G * M;
    const contextRng = rngFor(seed, Table.Context, 0);
    // Popularity order of merchants and activity order of accounts, decoupled from their
    // indexes so that the busiest merchant is not simply the first one.
    const rankToMerchant = Int32Array.from(contextRng.shuffle(Array.from({ length: M }, (_, i) => i)));
    const panel = panelFits(M, N, A);
    // Panel accounts are the last ones; the ordinary walk uses the others.
    const walkers = panel ? A - PANEL_ACCOUNTS : A;
    const regular = panel ? N - PANEL_REPORTS : N;
    const activityToAccount = Int32Array.from(contextRng.shuffle(Array.from({ length: walkers }, (_, a) => a)));

    // Each account walks its own run of (agent, merchant) pairs: its k-th report takes pair
    // (base + k) mod pairs. k never reaches `pairs` (a full account hands over to another),
    // so an account cannot repeat a pair, and distinct accounts are distinct triples: the
    // unique (account, agent, merchant) holds by construction at any scale.
    const agentWeights = AGENTS.map((spec, g) => [g, spec.popularity] as const);
    const base = new Float64Array(A);
    const accountIds: string[] = new Array<string>(A);
    for (let a = 0; a < A; a++) {
      const rng = rngFor(seed, Table.Contributor, a + 0x2000_0000);
      const g = rng.weighted(agentWeights);
      // Most runs start among the popular merchants.
      const startRank = Math.min(M - 1, Math.floor(M * rng.next() ** 2));
      base[a] = g * M + startRank;
      accountIds[a] = demoUuid(seed, Table.Contributor, a, contributorCreatedMs(seed, nowMs, a));
    }
    const reported = new Float64Array(A);
    let spill = 0;
    const agentIds = AGENTS.map((_, g) => agentId(seed, nowMs, g));
    const moderator = moderatorId(seed, nowMs);
    const windowStart = nowMs - REPORT_WINDOW_DAYS * DAY;
    const windowLength = REPORT_WINDOW_DAYS * DAY - 10 * MINUTE;
    const showcaseStride = regular >= SHOWCASE.length ? Math.floor(regular / SHOWCASE.length) : 0;
    const panelPairs = panel ? panelMerchants(all, rankToMerchant) : [];
    // Panel report k: its pair and its place among the pair's reports.
    const panelSlots = PANEL_PAIRS.flatMap((pair, p) => Array.from({ length: pair.reports }, (_, j) => ({ p, j })));

    const report = (i: number): ReportRow => {
      const rng = rngFor(seed, Table.Report, i);
      if (i >= regular) {
        const { p, j } = panelSlots[i - regular]!;
        const pair = PANEL_PAIRS[p]!;
        const [newest, oldest] = pair.days;
        const daysAgo = newest + ((oldest - newest) * j) / Math.max(1, pair.reports - 1);
        const createdMs = nowMs - Math.round(daysAgo * DAY) - rng.int(1 * HOUR, 6 * HOUR);
        const run = pair.runs[j % pair.runs.length]!;
        const mode = pair.mode ?? (j % 3 === 2 ? 'both' : 'derived');
        return reportRow(i, rng, A - PANEL_ACCOUNTS + j, panelPairs[p]!, pair.agent, { ...run, mode, status: 'APPROVED' }, createdMs, 1);
      }
      // A few very active contributors and a long tail.
      let a = activityToAccount[Math.min(walkers - 1, Math.floor(walkers * rng.next() ** 2))]!;
      if (reported[a]! >= pairs) {
        while (reported[spill]! >= pairs) spill++;
        a = spill;
      }
      const k = reported[a]!;
      reported[a] = k + 1;
      const pair = (base[a]! + k) % pairs;
      const g = Math.floor(pair / M);
      const merchant = all[rankToMerchant[pair % M]!]!;
      const agent = AGENTS[g]!;

      const forced =
        showcaseStride > 0 && i % showcaseStride === 0 && i / showcaseStride < SHOWCASE.length
          ? SHOWCASE[i / showcaseStride]
          : undefined;

      // Reports run in index order through the window; the inactive agent's all fall in the
      // older half, before it was discontinued.
      let position = (i + rng.next()) / regular;
      if (!agent.active) position *= 0.45;
      const createdMs = windowStart + Math.floor(position * windowLength);
      return reportRow(i, rng, a, merchant, g, forced, createdMs, position);
    };

    /** A report's row: its run simulated, its optional fields and its moderation. */
    const reportRow = (
      i: number,
      rng: Rng,
      a: number,
      merchant: MerchantProfile,
      g: number,
      forced: ForcedRun | undefined,
      createdMs: number,
      position: number,
    ): ReportRow => {
      const agent = AGENTS[g]!;

      let status: ReportStatus;
      if (forced) status = forced.status;
      else if (rng.chance(position >= 0.85 ? 0.62 : 0.03)) status = 'PENDING';
      else status = rng.chance(0.091) ? 'REJECTED' : 'APPROVED';

      const goal = forced?.goal ?? rng.weighted(GOAL_WEIGHTS);
      const journey = simulate(rng, merchant, agent, goal, forced);
      const mode = forced?.mode ?? rng.weighted(MODE_WEIGHTS);

      let capabilityResults: TaskResults;
      if (mode === 'verdictOnly') capabilityResults = {};
      else if (mode === 'lastTaskOnly') capabilityResults = { [journey.lastTask]: journey.tasks[journey.lastTask] ?? 'UNSURE' };
      else {
        // Task order, whatever order the run touched them in.
        capabilityResults = {};
        for (const t of TASK_KEYS) if (journey.tasks[t]) capabilityResults[t] = journey.tasks[t];
      }
      const outcomeSupplied = mode === 'both' || mode === 'verdictOnly';
      const outcome = outcomeSupplied ? journey.verdict : (deriveOutcome(capabilityResults) ?? journey.verdict);

      // Optional fields. Contributors who record every task sometimes skip stage and reason.
      const skipDetail = forced?.noDetail === true || (!forced && mode === 'derived' && rng.chance(0.08));
      const channel: SubmissionChannel = rng.chance(0.35) ? 'AGENT_KEY' : 'BROWSER';
      const experience = forced || rng.chance(0.65) ? experienceText(rng, journey, goal) : null;
      const testedMs = createdMs - rng.int(0, 4) * DAY;
      const testedAt = forced || rng.chance(0.9) ? dateOnly(testedMs) : null;
      const agentVersion = rng.chance(0.7)
        ? `${agent.majorVersion}.${Math.floor(position * 8)}.${rng.int(0, 9)}`
        : null;
      const localRegions = merchant.regions[0] === 'GLOBAL' ? REGIONS : merchant.regions;
      const region = rng.chance(0.5) ? rng.pick(localRegions) : null;
      const task = rng.chance(0.55) ? rng.pick(CATEGORIES[merchant.category]!.tasks) : null;
      const humanIntervention = journey.humanIntervention ? true : rng.chance(0.6) ? false : null;

      let moderatedMs: number | null = null;
      let moderationFeedback: string | null = null;
      let moderationNotes: string | null = null;
      let updatedMs = createdMs;
      if (status === 'PENDING') {
        // Some authors edited their pending report.
        if (rng.chance(0.15)) updatedMs = Math.min(nowMs, createdMs + rng.int(5 * MINUTE, 2 * DAY));
      } else {
        moderatedMs = Math.min(nowMs, createdMs + rng.int(20 * MINUTE, 72 * HOUR));
        updatedMs = moderatedMs;
        if (status === 'REJECTED') {
          moderationFeedback = rng.pick(REJECTION_FEEDBACK);
          if (rng.chance(0.5)) moderationNotes = rng.pick(REJECTION_NOTES);
        } else if (rng.chance(0.05)) {
          moderationNotes = rng.pick(APPROVAL_NOTES);
        }
      }

      return {
        id: demoUuid(seed, Table.Report, i, createdMs),
        accountId: accountIds[a]!,
        merchantId: merchant.id,
        agentId: agentIds[g]!,
        status,
        channel,
        capabilityResults,
        outcome,
        outcomeSupplied,
        experience,
        testedAt,
        agentVersion,
        region,
        task,
        stage: skipDetail ? null : journey.stage,
        failureReason: skipDetail ? null : journey.failure,
        humanIntervention,
        privacyConfirmed: true,
        moderationFeedback,
        moderationNotes,
        moderatedAt: moderatedMs === null ? null : iso(moderatedMs),
        moderatedById: moderatedMs === null ? null : moderator,
        createdAt: iso(createdMs),
        updatedAt: iso(updatedMs),
      };
    };

    yield* inBatches(N, batchSize, report);
  }

  return {
    options: resolved,
    counts,
    categories,
    categoryLegacyNames,
    agents,
    accounts,
    merchants,
    sponsorships,
    ownerStatements,
    reports,
  };
}

/** Every table's rows as arrays: for tests and small runs only. */
export function collectDemoData(options: DemoOptions, dataOptions?: DemoDataOptions): DemoRows {
  const data = createDemoData(options, dataOptions);
  const collect = <T>(batches: Generator<T[]>): T[] => [...batches].flat();
  return {
    categories: collect(data.categories()),
    categoryLegacyNames: collect(data.categoryLegacyNames()),
    agents: collect(data.agents()),
    accounts: collect(data.accounts()),
    merchants: collect(data.merchants()),
    sponsorships: collect(data.sponsorships()),
    ownerStatements: collect(data.ownerStatements()),
    reports: collect(data.reports()),
  };
}
