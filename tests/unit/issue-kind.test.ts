// The error kinds Issues group by (electron/core/store/issue-kind.ts), read from what the webhook sender
// records: its own classification of a failed request (classifyError: the code and the sentence), an
// HTTP status, and a round that sent nothing (a transform that failed, a purged message).
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../electron/core/delivery/webhook-sender.ts';
import { issueKeyOf, issueKind } from '../../electron/core/store/issue-kind.ts';
import type { DeliveryResult } from '../../electron/core/store/delivery-types.ts';

const failure = (code: string, message = 'failed') => Object.assign(new Error(message), { code });
const sent = (error: Error, timedOut = false) => {
  const { code, message } = classifyError(error, timedOut, 5000, 'https://hooks.example/x');
  return issueKind({ errorCode: code, status: null, message, transform: false });
};
const http = (status: number) => issueKind({ errorCode: 'http', status, message: `the receiver answered ${status}`, transform: false });

describe('issueKind', () => {
  it('tells the sender\'s failures apart', () => {
    expect(sent(failure('ECONNREFUSED'))).toBe('connection_refused');
    expect(sent(failure('EHOSTUNREACH'))).toBe('connection_refused');
    expect(sent(failure('ENOTFOUND'))).toBe('dns');
    expect(sent(failure('EAI_AGAIN'))).toBe('dns');
    expect(sent(failure('UND_ERR_CONNECT_TIMEOUT'))).toBe('timeout');
    expect(sent(new Error('timeout'), true)).toBe('timeout');
    expect(sent(failure('ECONNRESET'))).toBe('connection_reset');
    expect(sent(failure('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe('tls');
    expect(sent(failure('ERR_TLS_CERT_ALTNAME_INVALID'))).toBe('tls');
  });

  it('reads an HTTP answer by its status', () => {
    expect(http(400)).toBe('http_4xx');
    expect(http(429)).toBe('http_4xx');
    expect(http(413)).toBe('too_large');
    expect(http(500)).toBe('http_5xx');
    expect(http(503)).toBe('http_5xx');
    expect(http(302)).toBe('other');
  });

  it('keys a round that sent nothing by its own error, with no URL and no status', () => {
    const base: DeliveryResult = { deliveryId: 1, status: 'retrying', attemptCount: 1, firstAttemptAt: 0, nextAttemptAt: 5, deadlineAt: 9, lastError: null, body: null, signature: null, attempts: [] };
    expect(issueKeyOf({ ...base, lastError: 'transform failed: boom', transformRun: '{"outcome":"failed"}' })).toEqual({ url: '', status: 0, kind: 'transform', error: 'transform failed: boom', at: null });
    expect(issueKeyOf({ ...base, status: 'failed', lastError: 'the message was purged; nothing was sent' })).toMatchObject({ kind: 'other', url: '' });
    expect(issueKeyOf({ ...base, lastError: 'the body is too large to send' })).toMatchObject({ kind: 'too_large' });
  });

  it('keys a round by its last attempt that failed: its URL, status and start', () => {
    const attempt = { url: 'https://a.example/hook', startedAt: 7, durationMs: 1, requestHeaders: '{}', responseStatus: 503, responseHeaders: null, responseBody: null, errorCode: 'http' as const, errorMessage: 'the receiver answered 503; will retry', outcome: 'retry' as const, retryAt: 5 };
    const result: DeliveryResult = { deliveryId: 1, status: 'retrying', attemptCount: 1, firstAttemptAt: 0, nextAttemptAt: 5, deadlineAt: 9, lastError: 'x', body: null, signature: null, attempts: [attempt, { ...attempt, url: 'https://b.example/hook', startedAt: 8, responseStatus: null, errorCode: 'timeout', errorMessage: 'https://b.example did not answer within 5 s; will retry' }] };
    expect(issueKeyOf(result)).toEqual({ url: 'https://b.example/hook', status: 0, kind: 'timeout', error: 'https://b.example did not answer within 5 s; will retry', at: 8 });
    expect(issueKeyOf({ ...result, attempts: [attempt] })).toEqual({ url: 'https://a.example/hook', status: 503, kind: 'http_5xx', error: attempt.errorMessage, at: 7 });
  });
});
