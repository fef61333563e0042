// How long the ingestion endpoint waits for a slow request, and how many connections it holds at
// once. Node's defaults (60 s for a request's headers, 300 s for the whole request, checked every
// 30 s; no cap on connections) let a thousand local connections trickling their headers hold a
// thousand file descriptors: under a limit of 1,024 open files the store could not open its own
// files, and every client's request failed. And what a connection that is not HTTP, or too slow, is answered.
import fs from 'node:fs';
import type { Duplex } from 'node:stream';

/**
 * A request's headers, from its first byte: real clients send them in one write of a few hundred
 * bytes, in milliseconds on loopback or a LAN; 10 s leaves room for a paused or very slow client and
 * frees a connection that trickles its headers six times sooner than Node's 60 s.
 */
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * A whole request, body included: the largest body ingestion takes is read in well under a second
 * on loopback; 60 s carries megabytes over a link as slow as 1 Mbit/s (Node's default is 300 s).
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * An idle keep-alive connection between requests. Real SDKs keep their connections open between
 * batches (analytics-node flushes every few seconds; browsers reuse connections): closing sooner
 * would make them reconnect for every batch. Node's agent and undici read the `Keep-Alive: timeout=65`
 * answer header and let go of an idle socket just before; clients that do not read it (browsers)
 * keep theirs up to about a minute, so a longer server timeout than theirs avoids closing a
 * connection just as a client reuses it (a reset, which a client may not retry for a POST).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** How often Node looks for requests past those timeouts (its default, 30 s, would let a slow one live 40 s). */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/**
 * The most connections ingestion holds at once: a quarter of the files this process may open (the
 * store's files, worker threads, outgoing webhooks and the built-in receiver's connections need the
 * rest), between 32 and 4,096. With Linux's common limit of 1,024: 256, far more than real clients
 * open (an SDK keeps a few; the ingestion benchmark uses 8).
 */
export function maxIngestConnections(openFiles = openFileLimit()): number {
  return Math.min(4_096, Math.max(32, Math.floor(openFiles / 4)));
}

/**
 * How many files this process may open: the soft limit in /proc/self/limits (Linux; Node raises it to
 * the hard limit as it starts), else 1,024.
 */
export function openFileLimit(): number {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    if (line) return line[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(line[1]);
  } catch {
    // not Linux
  }
  return 1_024;
}

/**
 * The server's `clientError`: bytes that are not HTTP, and a request that did not arrive in time, get
 * a JSON answer too; then the connection is let go of, even when the client never closes its side (one
 * that trickles its request does not read the answer: an ended socket would wait for it, holding its
 * descriptor).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, code, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['408 Request Timeout', 'request_timeout', `the request did not arrive in time (its headers within ${HEADERS_TIMEOUT_MS / 1000} s, all of it within ${REQUEST_TIMEOUT_MS / 1000} s); send it again`]
      : ['400 Bad Request', 'bad_request', `not a valid HTTP request (${error.code ?? error.message})`];
  const body = JSON.stringify({ success: false, error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
