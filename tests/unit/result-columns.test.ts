// Delivery results cross to the writer thread as columns (writer/result-columns.ts): every field of
// every result and attempt must come back as it went, nulls included, through a real structured clone.
import { deserialize, serialize } from 'node:v8';
import { expect, it } from 'vitest';
import type { DeliveryResult, SharedRequest } from '../../electron/core/store/delivery-types.ts';
import { fromColumns, toColumns } from '../../electron/core/writer/result-columns.ts';

const results: DeliveryResult[] = [
  {
    deliveryId: 7,
    status: 'delivered',
    attemptCount: 1,
    firstAttemptAt: 1_763_719_200_000,
    nextAttemptAt: null,
    deadlineAt: 1_763_733_600_000,
    lastError: null,
    body: '{"version":1,"type":"track","event":"Café ☕ \\"quoted\\""}',
    signature: '5099cab379b3be52908387457007040cc934ef86',
    attempts: [
      {
        url: 'http://127.0.0.1:9/a',
        startedAt: 1_763_719_200_001,
        durationMs: 3.4,
        requestHeaders: '{}',
        headerSet: '{"User-Agent":"Sluice/1.0","X-Signature":null}',
        responseStatus: 200,
        responseHeaders: '{"content-length":"2"}',
        responseBody: 'ok',
        errorCode: null,
        errorMessage: null,
        outcome: 'success',
        retryAt: null,
      },
    ],
  },
  // A round that sent nothing (message purged): no attempts, nothing to keep but the state.
  { deliveryId: 8, status: 'failed', attemptCount: 0, firstAttemptAt: 5, nextAttemptAt: null, deadlineAt: 6, lastError: 'gone', body: null, signature: null, attempts: [] },
  {
    deliveryId: 9,
    status: 'retrying',
    attemptCount: 3,
    firstAttemptAt: 10,
    nextAttemptAt: 20,
    deadlineAt: 30,
    lastError: 'refused',
    body: '{}',
    signature: null,
    attempts: [
      { url: 'http://127.0.0.1:9/b', startedAt: 11, durationMs: 0, requestHeaders: '{"User-Agent":"Sluice/1.0"}', responseStatus: null, responseHeaders: null, responseBody: null, errorCode: 'connect', errorMessage: 'refused', outcome: 'retry', retryAt: 20 },
      { url: 'http://127.0.0.1:9/c', startedAt: 12, durationMs: 5000.5, requestHeaders: '{}', headerSet: '{"webhook-timestamp":null}', responseStatus: 503, responseHeaders: '{}', responseBody: '', errorCode: 'http', errorMessage: '503', outcome: 'retry', retryAt: 20 },
    ],
  },
];

it('results survive the trip to the writer as columns, field for field', () => {
  expect(fromColumns(deserialize(serialize(toColumns(results))))).toEqual(results);
});

it('an empty group is empty on arrival', () => {
  expect(fromColumns(toColumns([]))).toEqual([]);
});

it('a request that carried several deliveries crosses once and arrives as one object, each attempt\'s own outcome and error kept', () => {
  const request: SharedRequest = {
    url: 'http://127.0.0.1:9/v1/batch', startedAt: 40, durationMs: 7.5, requestHeaders: '{"Authorization":"Basic x"}',
    responseStatus: 200, responseHeaders: '{"x":"1"}', responseBody: '{"success":true}', errorCode: null, errorMessage: null,
  };
  const other: SharedRequest = { ...request, startedAt: 50, responseStatus: null, responseBody: null, errorCode: 'reset', errorMessage: 'reset' };
  const carried = (deliveryId: number, attempts: DeliveryResult['attempts']): DeliveryResult => ({
    deliveryId, status: 'delivered', attemptCount: 1, firstAttemptAt: 40, nextAttemptAt: null, deadlineAt: 90, lastError: null, body: '{}', signature: null, attempts,
  });
  const group = [
    carried(1, [{ ...request, outcome: 'success', retryAt: null, carriedBy: request }]),
    carried(2, [{ ...request, errorCode: 'http', errorMessage: 'rejected alone', outcome: 'final', retryAt: null, carriedBy: request }]),
    carried(3, [{ ...other, outcome: 'retry', retryAt: 60, carriedBy: other }]),
    results[0]!,
  ];
  const columns = toColumns(group);
  expect(columns.requestTexts).toHaveLength(2 * 6); // each request once
  const arrived = fromColumns(deserialize(serialize(columns)));
  expect(arrived).toEqual(group);
  expect(arrived[0]!.attempts[0]!.carriedBy).toBe(arrived[1]!.attempts[0]!.carriedBy); // one object: recorded once
  expect(arrived[2]!.attempts[0]!.carriedBy).not.toBe(arrived[0]!.attempts[0]!.carriedBy);
  expect(arrived[3]!.attempts[0]!.carriedBy).toBeUndefined();
});
