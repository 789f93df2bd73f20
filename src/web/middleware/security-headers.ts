// Security headers (helmet), one set for the HTML pages and a smaller one for the JSON API.
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { Config } from '../../config/env.js';

const https = (config: Config) => config.origin.startsWith('https:');

/**
 * Pages: a strict Content-Security-Policy (scripts and styles only from our own files, no
 * inline script, style or handler, no plugins, no framing, forms only to us) and helmet's other
 * defaults. Referrer-Policy is same-origin, not helmet's no-referrer: under no-referrer
 * browsers send `Origin: null` on form posts, which the Origin rule must refuse. HSTS only on
 * an https deployment (browsers ignore it over http).
 */
export function pageSecurityHeaders(config: Config): RequestHandler {
  return helmet({
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: https(config),
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https(config) ? { upgradeInsecureRequests: [] } : {}),
      },
    },
  });
}

/**
 * The API: JSON is never a document to render, so its policy allows nothing and no framing;
 * nosniff keeps browsers from reading it as anything else. The headers that only matter for
 * HTML documents (XSS auditor, download options, DNS prefetch, Flash policies, opener and
 * agent-cluster isolation) are left out: every byte of a header is paid on every cached read.
 */
export function apiSecurityHeaders(config: Config): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: https(config),
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });
}
