// What every public list and report response says about itself (spec section 1).
export const DISCLAIMER =
  'Community-reported experience, not guaranteed capability or confirmed merchant policy. ' +
  'A listing or search result does not certify that a merchant works with any agent, and ' +
  'sponsored listings are advertising, never evidence that a site works.';

/** Public lists use 24 items per page (spec section 8). */
export const PAGE_SIZE = 24;
/** Deeper pages are refused: nobody pages that far, and OFFSET cost grows with it. */
export const MAX_PAGE = 10_000;

export interface Links {
  readonly baseUrl: string;
}

export const methodologyUrl = ({ baseUrl }: Links) => `${baseUrl}/how-it-works`;

export function notice(links: Links) {
  return { methodology: methodologyUrl(links), disclaimer: DISCLAIMER };
}

export function listEnvelope<T>(links: Links, data: T[], total: number, page: number) {
  return { data, ...notice(links), total, page, pageSize: PAGE_SIZE };
}

export const categoryPageUrl = ({ baseUrl }: Links, slug: string) => `${baseUrl}/categories/${slug}`;
export const agentPageUrl = ({ baseUrl }: Links, slug: string) => `${baseUrl}/agents/${slug}`;
export const merchantPageUrl = ({ baseUrl }: Links, slug: string) => `${baseUrl}/merchants/${slug}`;
export const merchantApiUrl = ({ baseUrl }: Links, slug: string) => `${baseUrl}/api/v1/merchants/${slug}`;
export const agentMerchantsApiUrl = ({ baseUrl }: Links, slug: string) => `${baseUrl}/api/v1/agents/${slug}/merchants`;
export const reportApiUrl = ({ baseUrl }: Links, id: string) => `${baseUrl}/api/v1/reports/${id}`;
export const ownReportApiUrl = ({ baseUrl }: Links, id: string) => `${baseUrl}/api/v1/automation/reports/${id}`;

/** A merchant's canonical category, in the one shape every response gives it (categoryInfo). */
export function categoryInfoOf(links: Links, category: { name: string; slug: string } | null) {
  return category ? { name: category.name, slug: category.slug, url: categoryPageUrl(links, category.slug) } : null;
}
