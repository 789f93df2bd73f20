// The licence of the directory's open data (dumps, feeds, the API's bodies): CC BY 4.0, so
// anyone may reuse it with attribution. Recorded in docs/decisions.md.
export const DATA_LICENCE = {
  id: 'CC-BY-4.0',
  name: 'Creative Commons Attribution 4.0 International (CC BY 4.0)',
  url: 'https://creativecommons.org/licenses/by/4.0/',
  attribution: 'Agent-Compatibility Directory contributors',
} as const;
