// Errors of the HTML side, in the site's layout; never a stack or an internal message.
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { HttpProblem } from '../problem.js';

function renderError(res: Response, status: number, title: string, detail: string): void {
  res.status(status);
  res.render('errors/error', { title, detail }, (error: Error | null, html?: string) => {
    // A page that cannot render must still answer.
    res.type('html').send(error || html === undefined ? `<!doctype html><title>${status}</title><h1>${status}</h1>` : html);
  });
}

export const htmlNotFound: RequestHandler = (_req, res) => {
  renderError(res, 404, 'Page not found', 'There is no page at this address.');
};

export const htmlErrorHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  if (error instanceof HttpProblem && error.status < 500) {
    for (const [name, value] of Object.entries(error.init.headers ?? {})) res.setHeader(name, value);
    renderError(res, error.status, error.init.title, error.init.detail ?? '');
    return;
  }
  const status = (error as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    renderError(res, status, 'Bad request', 'The request could not be understood.');
    return;
  }
  req.log?.error({ err: error }, 'unhandled error');
  renderError(res, 500, 'Something went wrong', 'Please try again in a moment.');
};
