// Errors of the HTML side, in the site's layout; never a stack or an internal message.
import path from 'node:path';
import ejs from 'ejs';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { Refusal } from '../../errors.js';
import { HttpProblem } from '../problem.js';
import { answeredAlready, classifyError } from './errors.js';

/**
 * Renders the error page at once, not in a later tick as `res.render` does: an answer given
 * by a request's deadline (deadline.ts) is then complete before the request's own work can
 * try to answer too.
 */
function renderError(res: Response, status: number, title: string, detail: string): void {
  res.status(status);
  const app = res.app;
  const file = path.join(String(app.get('views')), 'errors/error.ejs');
  let html: string | undefined;
  ejs.renderFile(file, { ...app.locals, ...res.locals, title, detail, cache: app.enabled('view cache') }, (error, out) => {
    if (!error) html = out;
  });
  // A page that cannot render must still answer.
  res.type('html').send(html ?? `<!doctype html><title>${status}</title><h1>${status}</h1>`);
}

export const htmlNotFound: RequestHandler = (_req, res) => {
  renderError(res, 404, 'Page not found', 'There is no page at this address.');
};

export const htmlErrorHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (answeredAlready(error, req, res, next)) return;
  const { problem, log } = classifyError(error);
  if (log) req.log?.[log]({ err: error }, problem.status >= 500 ? 'request failed' : 'input refused by the database');
  for (const [name, value] of Object.entries(problem.headers ?? {})) res.setHeader(name, value);
  if (problem.status === 503) {
    renderError(res, 503, 'The directory is resting', `Its database is not answering right now. Try again in ${problem.headers?.['Retry-After'] ?? 'a few'} seconds.`);
  } else if (problem.status >= 500) {
    renderError(res, 500, 'Something went wrong', 'Please try again in a moment.');
  } else if (error instanceof HttpProblem || error instanceof Refusal) {
    renderError(res, problem.status, problem.title, problem.detail ?? '');
  } else {
    renderError(res, problem.status, 'Bad request', problem.detail ?? 'The request could not be understood.');
  }
};
