// Requests Node's HTTP parser refuses before Express sees them (a header section over 16 KB,
// bytes that are not HTTP) get a problem+json answer naming the problem, not an empty 400/431.
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ProblemCode } from '../problem-types.js';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem.js';

const ANSWERS: Record<string, { status: number; code: ProblemCode; title: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers-too-large',
    title: 'Request header fields too large',
    detail: 'The request line and headers must stay under 16 KB together: shorten the URL (fewer or shorter query parameters) or the headers.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'request-timeout',
    title: 'Request timeout',
    detail: 'The request did not arrive in time.',
  },
};

const MALFORMED: { status: number; code: ProblemCode; title: string; detail: string } = { status: 400, code: 'malformed-request', title: 'Malformed request', detail: 'The request is not valid HTTP/1.1.' };

export function answerClientErrors(server: Server, baseUrl: string): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Nothing to answer on a connection that is already gone or half-written.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = ANSWERS[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify(problemBody(answer, { baseUrl }));
    socket.end(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
