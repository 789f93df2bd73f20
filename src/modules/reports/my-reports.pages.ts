// "My reports" (/profile/reports): every report of the signed-in account, whichever agent it is
// about and however it was sent (form, API, agent key), with its moderation state and the
// moderators' feedback, and the way to its review page and its edit form. Routes:
// http/routers/pages.ts.
import type { RequestHandler } from 'express';
import type { PrismaClient } from '../../db/client.js';
import { formatDate, isoDay } from '../../dates.js';
import { formInput, redirectWhenSaved, setPageFlash, takePageFlash } from '../../forms.js';
import { decisionNoticesForm, decisionNoticesOn, setDecisionNotices } from '../accounts/accounts.service.js';
import { editPath, reviewPath, STATUS_LABELS } from './author-view.js';
import { postedValues } from './report-form.fields.js';
import { ownReportsPage } from './report-form.repository.js';
import { cacheControl } from '../../web/cache-control.js';
import { PAGE_PATHS } from '../../paths.js';

export const MY_REPORTS_PATH = PAGE_PATHS.myReports;
/** Where "My reports" posts the choice about decision e-mails. */
export const NOTIFICATIONS_PATH = '/profile/notifications';
const PAGE_SIZE = 24;

/** GET /profile/reports?page=: a page of the account's reports, the most recently changed first, with the choice about decision e-mails. */
export function myReportsPage(deps: { prisma: PrismaClient }): RequestHandler {
  return async (req, res) => {
    const account = res.locals.account!;
    const asked = typeof req.query.page === 'string' && /^[1-9]\d{0,5}$/.test(req.query.page) ? Number(req.query.page) : 1;
    let list = await ownReportsPage(deps.prisma, account.id, asked, PAGE_SIZE);
    const totalPages = Math.max(1, Math.ceil(list.total / PAGE_SIZE));
    // Past the end (reports are never deleted, but a bookmark can be): the last page.
    const current = Math.min(asked, totalPages);
    if (current !== asked) list = await ownReportsPage(deps.prisma, account.id, current, PAGE_SIZE);
    const notifyDecisions = await decisionNoticesOn(deps.prisma, account.id);
    cacheControl(res, 'no-store').render('pages/my-reports', {
      title: 'My reports',
      pageFlash: takePageFlash(req.session),
      reports: list.rows.map((r) => ({
        ...r,
        statusLabel: STATUS_LABELS[r.status],
        reviewUrl: reviewPath(r.id),
        editUrl: editPath(r.id),
        screenshots: r._count.evidence,
      })),
      counts: list.counts,
      total: list.total,
      currentPage: current,
      totalPages,
      pageHref: (n: number) => (n === 1 ? MY_REPORTS_PATH : `${MY_REPORTS_PATH}?page=${n}`),
      formatDate,
      isoDay,
      notifyDecisions,
      notificationsAction: NOTIFICATIONS_PATH,
    });
  };
}

/** POST /profile/notifications: the decision e-mails on or off (an unticked box is not posted: off). */
export function notificationsPost(deps: { prisma: PrismaClient }): RequestHandler {
  return async (req, res) => {
    const { notifyDecisions } = formInput(decisionNoticesForm, postedValues(req.body));
    const { on, changed } = await setDecisionNotices(deps.prisma, res.locals.account!.id, notifyDecisions);
    setPageFlash(
      req.session,
      on
        ? changed
          ? 'Saved: you get an e-mail whenever a moderator decides on one of your reports.'
          : 'Nothing changed: you already get an e-mail on every decision.'
        : changed
          ? 'Saved: you no longer get e-mails about moderation decisions. This page still shows every decision.'
          : 'Nothing changed: decision e-mails were already off.',
    );
    await redirectWhenSaved(req, res, `${MY_REPORTS_PATH}#notifications`);
  };
}
