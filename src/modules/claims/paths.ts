// Where owners find their claims, for the pages, the e-mails and the guide.
export const OWNER_PAGE_PATH = '/profile/claims';
