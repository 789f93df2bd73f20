// Errors of the HTML side. Pages keep the site's look; no stack or internal message is shown.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { HttpProblem } from '../problem.js';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(status: number, title: string, detail: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — Agent-Compatibility Directory</title></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p><p><a href="/">Back to the directory</a></p></main></body></html>
`;
}

export const htmlNotFound: RequestHandler = (_req, res) => {
  res.status(404).type('html').send(page(404, 'Page not found', 'There is no page at this address.'));
};

export const htmlErrorHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  if (error instanceof HttpProblem && error.status < 500) {
    res.status(error.status).type('html').send(page(error.status, error.init.title, error.init.detail ?? ''));
    return;
  }
  const status = (error as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    res.status(status).type('html').send(page(status, 'Bad request', 'The request could not be understood.'));
    return;
  }
  req.log?.error({ err: error }, 'unhandled error');
  res.status(500).type('html').send(page(500, 'Something went wrong', 'Please try again in a moment.'));
};
