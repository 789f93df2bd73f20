// The addresses of the pages that more than one module names (issue 36: route paths declared
// once): the router mounts them, and links, redirects, e-mails and the sitemap name them, all
// from here. A page only its own module links to keeps its path there.
export const PAGE_PATHS = {
  howItWorks: '/how-it-works',
  agentGuide: '/agent-guide',
  agentGuideReference: '/agent-guide/reference',
  data: '/data',
  signIn: '/sign-in',
  signInVerify: '/sign-in/verify',
  newReport: '/reports/new',
  myReports: '/profile/reports',
  keys: '/profile/agents',
} as const;
