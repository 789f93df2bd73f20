// The owners' operations in the OpenAPI document (http/openapi.ts): claims, then what a verified claim lets an owner or vendor say.
import { CLAIM_RULES } from '../../modules/claims/rules.js';
import { componentRef, header, ID_LENGTH, jsonBody, ok, ownerOperation, pathParam, privateHeaders, problem, reportId, SLUG_MAX_LENGTH } from './operations.js';

/** The account's claims: list, start, read, check. */
export function claimPaths(): Record<string, unknown> {
  return {
    '/claims': {
      get: ownerOperation({
        operationId: 'listClaims',
        summary: "The account's own claims",
        description: 'Every claim this account made, newest first, with its status and exactly what to publish for each method.',
        responses: { '200': ok('The claims.', componentRef('ClaimList'), privateHeaders) },
      }),
      post: ownerOperation({
        operationId: 'startClaim',
        summary: 'Claim a merchant (its website) or an agent (its vendor website)',
        description: `${CLAIM_RULES.methods} ${CLAIM_RULES.sharedHost} ${CLAIM_RULES.recheck} An account holds one open claim of a merchant or agent: claiming it again answers that claim (200).`,
        requestBody: jsonBody('ClaimStart'),
        responses: {
          '201': ok('Claimed, pending proof: `methods` says what to publish.', componentRef('ClaimAnswer'), { ...privateHeaders, Location: header('The claim in this API.') }),
          '200': ok('This account already holds an open claim of it: that claim.', componentRef('ClaimAnswer'), privateHeaders),
          '404': problem('No public merchant or active agent has this slug or id.'),
          '409': problem('A merchant or agent without a website (`no-website-to-claim`), or one whose claim was revoked by a moderator (`claim-revoked`).'),
        },
      }),
    },
    '/claims/{id}': {
      get: ownerOperation({
        operationId: 'getClaim',
        summary: 'One of the account\'s claims',
        description: 'Where the claim stands and exactly what to publish for each method; another account\'s claim is not found.',
        parameters: [pathParam('id', 'Claim id (a UUID).', ID_LENGTH)],
        responses: {
          '200': ok('The claim.', componentRef('ClaimAnswer'), privateHeaders),
          '404': problem('No claim of this account has this id.'),
        },
      }),
    },
    '/claims/{id}/check': {
      post: ownerOperation({
        operationId: 'checkClaim',
        summary: 'Look for the proof now',
        description: `The body is optional: \`{"method": "dns"|"file"|"meta"}\` checks one method; without it each allowed method is tried in turn until one verifies. ${CLAIM_RULES.fetcher}`,
        parameters: [pathParam('id', 'Claim id (a UUID).', ID_LENGTH)],
        requestBody: { required: false, content: { 'application/json': { schema: componentRef('ClaimCheckRequest') } } },
        responses: {
          '200': ok('What the check found: verified, failed (with the reason) or pending (could not finish now).', componentRef('ClaimCheckAnswer'), privateHeaders),
          '404': problem('No claim of this account has this id.'),
          '409': problem('A revoked claim cannot be checked (`claim-revoked`).'),
        },
      }),
    },
  };
}

/** A statement by the merchant's owner or the agent's vendor: one operation for either side of a claim. */
function statementPut(side: {
  operationId: string;
  summary: string;
  description: string;
  of: 'Merchant' | 'Agent';
  schemas: 'OwnerStatement' | 'VendorStatement';
  notFound: string;
}) {
  return ownerOperation({
    operationId: side.operationId,
    summary: side.summary,
    description: side.description,
    parameters: [pathParam('slugOrId', `${side.of} slug or id.`, SLUG_MAX_LENGTH)],
    requestBody: jsonBody(`${side.schemas}Request`),
    responses: {
      '200': ok('Saved and published.', componentRef(`${side.schemas}Answer`), privateHeaders),
      '404': problem(side.notFound),
    },
  });
}

/** What a verified claim allows: the owner and vendor statements, a reply under a report, a correction request. */
export function ownerStatementPaths(): Record<string, unknown> {
  return {
    '/merchants/{slugOrId}/owner-statement': {
      put: statementPut({
        operationId: 'putOwnerStatement',
        summary: "Write or replace the merchant's owner statement",
        description:
          "For the holder of a verified claim of this merchant. Published with the owner's attribution and the declaration date as `ownerCompatibility`; it never counts toward scores, statuses or report counts. While the claim is in its grace period the statement stays; once it lapses or is revoked the statement is no longer shown.",
        of: 'Merchant',
        schemas: 'OwnerStatement',
        notFound: 'No public merchant has this slug or id.',
      }),
    },
    '/agents/{slugOrId}/vendor-statement': {
      put: statementPut({
        operationId: 'putVendorStatement',
        summary: "Write or replace the agent's vendor statement",
        description: "For the holder of a verified claim of this agent's vendor website. Published on the agent's page and in the registry with the vendor's attribution and date; never evidence.",
        of: 'Agent',
        schemas: 'VendorStatement',
        notFound: 'No active agent has this slug or id.',
      }),
    },
    '/reports/{id}/replies': {
      post: ownerOperation({
        operationId: 'replyToReport',
        summary: "The owner's (or vendor's) one public reply under an approved report",
        description:
          'For the holder of a verified claim of the report\'s merchant (or agent). One reply per report and claim: posting again replaces it and sends it back to moderation. A reply is published under the report, with who wrote it and when, once a moderator approves it; it never changes the report or what it counts for.',
        parameters: [reportId],
        requestBody: jsonBody('ReplyRequest'),
        responses: {
          '201': ok('Saved, pending moderation.', componentRef('ReplyAnswer'), privateHeaders),
          '200': ok('Identical to the reply already saved: nothing changed.', componentRef('ReplyAnswer'), privateHeaders),
          '404': problem('No published report has this id.'),
        },
      }),
    },
    '/merchants/{slugOrId}/corrections': {
      post: ownerOperation({
        operationId: 'requestCorrection',
        summary: "Ask the moderators to correct the merchant's details",
        description: 'For the holder of a verified claim of this merchant: a proposed name, website, category or service regions, with a note. Nothing changes until a moderator approves it.',
        parameters: [pathParam('slugOrId', 'Merchant slug or id.', SLUG_MAX_LENGTH)],
        requestBody: jsonBody('CorrectionRequest'),
        responses: {
          '201': ok('Queued for the moderators.', componentRef('CorrectionAnswer'), privateHeaders),
          '404': problem('No public merchant has this slug or id.'),
        },
      }),
    },
  };
}
