// Requests that node's HTTP parser refuses before any handler sees them (headers past maxHeaderSize,
// a malformed request line, a request that took too long to arrive) get the same JSON
// `{error, code}` body as every other error, instead of node's bare status line.
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { RoostError } from '../../protocol/errors.js';

function errorFor(code: string | undefined): RoostError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new RoostError('HEADERS_TOO_LARGE', 'the request headers are too large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new RoostError('PAYLOAD_TOO_LARGE', 'the chunk extensions of the body are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RoostError('REQUEST_TIMEOUT', 'the request did not arrive in time');
    default:
      return new RoostError('VALIDATION_ERROR', 'the request is not valid HTTP');
  }
}

export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // As node does by default: nothing can be answered on a socket that is gone or already has a response under way.
    const response = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) return void socket.destroy();
    const error = errorFor(err.code);
    const body = JSON.stringify(error.toBody());
    socket.end(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
