// What the author's pages of a report share (the forms, the review page, My reports): the
// addresses of one report's pages, and its moderation states in the author's words.

/** Moderation states as the author reads them. */
export const STATUS_LABELS = { PENDING: 'Waiting for moderation', APPROVED: 'Approved and public', REJECTED: 'Rejected' } as const;

export const reviewPath = (id: string) => `/reports/${id}/review`;
export const editPath = (id: string) => `/reports/${id}/edit`;
