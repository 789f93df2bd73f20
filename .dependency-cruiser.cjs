/**
 * The house's one direction (issue 36, docs/decisions.md "One direction"), from the bottom:
 *   core      src/*.ts basics, config/, db/, mail/, outbound/ (no feature, no web)
 *   features  src/modules/**: services, repositories, schemas, rules (no web)
 *   web kit   src/web/: problems, middleware, the admin page kit (the HTTP edge's tools)
 *   pages     src/modules/**\/*.pages.ts: a feature's web sublayer, over the web kit
 *   edges     src/http/ (routers, OpenAPI) and src/mcp/ (the MCP server), siblings
 *   runtime   src/app.ts (the one place that composes), service.ts, server.ts, upkeep.ts,
 *             cli/, demo/
 * Every rule says which arrow would run back up.
 */
const CORE = '^src/(?:(?:clock|dates|errors|forms|logger|metrics|net|problem-types|text)\\.ts$|config/|db/|mail/|outbound/)';
const PAGES = '^src/modules/.+\\.pages\\.ts$';
const RUNTIME = '^src/(?:(?:app|service|server|upkeep)\\.ts$|cli/|demo/)';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'A circle has no direction: split the shared part out.', from: {}, to: { circular: true } },
    {
      name: 'core-stays-down',
      severity: 'error',
      comment: 'The core knows no feature, no web and no edge.',
      from: { path: CORE },
      to: { path: '^src/(?:modules|web|http|mcp)/|' + RUNTIME },
    },
    {
      name: 'features-know-no-web',
      severity: 'error',
      comment: 'Services, repositories and rules never import the web kit, an edge or a page.',
      from: { path: '^src/modules/', pathNot: PAGES },
      to: { path: '^src/(?:web|http|mcp)/|' + PAGES + '|' + RUNTIME },
    },
    {
      name: 'web-kit-below-pages-and-edges',
      severity: 'error',
      comment: 'The web kit serves pages and edges; it never imports them.',
      from: { path: '^src/web/' },
      to: { path: '^src/(?:http|mcp)/|' + PAGES + '|' + RUNTIME },
    },
    {
      name: 'pages-below-edges',
      severity: 'error',
      comment: 'A page is mounted by an edge; it never imports one.',
      from: { path: PAGES },
      to: { path: '^src/(?:http|mcp)/|' + RUNTIME },
    },
    { name: 'http-beside-mcp', severity: 'error', comment: 'HTTP and MCP are siblings: app.ts mounts both.', from: { path: '^src/http/' }, to: { path: '^src/mcp/|' + RUNTIME } },
    { name: 'mcp-beside-http', severity: 'error', comment: 'HTTP and MCP are siblings over the web kit.', from: { path: '^src/mcp/' }, to: { path: '^src/http/|' + RUNTIME } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
