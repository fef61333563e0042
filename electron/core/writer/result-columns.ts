import type { AttemptRecord, DeliveryResult, SharedRequest } from '../store/delivery-types.ts';
import type { BodyShape } from '../../../shared/webhook-body.ts';

/**
 * Delivery results as they cross to the writer thread: numbers in one Float64Array, texts in flat
 * arrays. A structured clone of flat arrays costs a fraction of JSON (whose every body and header
 * string is escaped again inside the outer text) or of a clone of many small objects — and this
 * is paid once per delivery on the engine's thread. NaN stands for null in the numbers. A request
 * that carried several deliveries (an attempt's `carriedBy`) crosses once, its attempts by index, and
 * comes out as one object again, which the recorder records once.
 */
export interface ResultColumns {
  /** Per result: deliveryId, attemptCount, firstAttemptAt, nextAttemptAt, deadlineAt, attempts. */
  numbers: Float64Array;
  /** Per result: status, lastError, body, signature, shaping, skipReason, transformRun, bodyShape. */
  texts: (string | null)[];
  /** Per attempt: startedAt, durationMs, responseStatus, retryAt, index of its carrying request (NaN: none). */
  attemptNumbers: Float64Array;
  /** Per attempt: url, requestHeaders, responseHeaders, responseBody (null when carried: the request's), errorCode, errorMessage, outcome, headerSet, transformRun. */
  attemptTexts: (string | null)[];
  /** Per carrying request: startedAt, durationMs, responseStatus. */
  requestNumbers: Float64Array;
  /** Per carrying request: url, requestHeaders, responseHeaders, responseBody, errorCode, errorMessage. */
  requestTexts: (string | null)[];
}

const NUMBERS = 6;
const TEXTS = 8;
const ATTEMPT_NUMBERS = 5;
const ATTEMPT_TEXTS = 9;
const REQUEST_NUMBERS = 3;
const REQUEST_TEXTS = 6;

const orNaN = (value: number | null) => (value === null ? NaN : value);
const orNull = (value: number) => (Number.isNaN(value) ? null : value);

export function toColumns(results: readonly DeliveryResult[]): ResultColumns {
  let attemptTotal = 0;
  const requests = new Map<SharedRequest, number>();
  for (const result of results) {
    attemptTotal += result.attempts.length;
    for (const attempt of result.attempts) if (attempt.carriedBy && !requests.has(attempt.carriedBy)) requests.set(attempt.carriedBy, requests.size);
  }
  const numbers = new Float64Array(results.length * NUMBERS);
  const texts: (string | null)[] = [];
  const attemptNumbers = new Float64Array(attemptTotal * ATTEMPT_NUMBERS);
  const attemptTexts: (string | null)[] = [];
  const requestNumbers = new Float64Array(requests.size * REQUEST_NUMBERS);
  const requestTexts: (string | null)[] = [];
  for (const [request, index] of requests) {
    const m = index * REQUEST_NUMBERS;
    requestNumbers[m] = request.startedAt;
    requestNumbers[m + 1] = request.durationMs;
    requestNumbers[m + 2] = orNaN(request.responseStatus);
    requestTexts.push(request.url, request.requestHeaders, request.responseHeaders, request.responseBody, request.errorCode, request.errorMessage);
  }
  let a = 0;
  results.forEach((r, i) => {
    const n = i * NUMBERS;
    numbers[n] = r.deliveryId;
    numbers[n + 1] = r.attemptCount;
    numbers[n + 2] = r.firstAttemptAt;
    numbers[n + 3] = orNaN(r.nextAttemptAt);
    numbers[n + 4] = r.deadlineAt;
    numbers[n + 5] = r.attempts.length;
    texts.push(r.status, r.lastError, r.body, r.signature, r.shaping ?? null, r.skipReason ?? null, r.transformRun ?? null, r.bodyShape ?? null);
    for (const attempt of r.attempts) {
      const m = a++ * ATTEMPT_NUMBERS;
      const carried = attempt.carriedBy !== undefined;
      attemptNumbers[m] = carried ? NaN : attempt.startedAt;
      attemptNumbers[m + 1] = carried ? NaN : attempt.durationMs;
      attemptNumbers[m + 2] = carried ? NaN : orNaN(attempt.responseStatus);
      attemptNumbers[m + 3] = orNaN(attempt.retryAt);
      attemptNumbers[m + 4] = carried ? requests.get(attempt.carriedBy!)! : NaN;
      if (carried) attemptTexts.push(null, null, null, null, attempt.errorCode, attempt.errorMessage, attempt.outcome, null, attempt.transformRun ?? null);
      else {
        attemptTexts.push(attempt.url, attempt.requestHeaders, attempt.responseHeaders, attempt.responseBody,
          attempt.errorCode, attempt.errorMessage, attempt.outcome, attempt.headerSet ?? null, attempt.transformRun ?? null);
      }
    }
  });
  return { numbers, texts, attemptNumbers, attemptTexts, requestNumbers, requestTexts };
}

/**
 * The request and its answer, where an attempt's columns and a carrying request's hold them alike: numbers
 * startedAt, durationMs, responseStatus from `m`; texts url, requestHeaders, responseHeaders, responseBody from `s`.
 */
function exchangeAt(numbers: Float64Array, texts: (string | null)[], m: number, s: number) {
  return {
    url: texts[s]!,
    startedAt: numbers[m]!,
    durationMs: numbers[m + 1]!,
    requestHeaders: texts[s + 1]!,
    responseStatus: orNull(numbers[m + 2]!),
    responseHeaders: texts[s + 2]!,
    responseBody: texts[s + 3]!,
  };
}

export function fromColumns({ numbers, texts, attemptNumbers, attemptTexts, requestNumbers, requestTexts }: ResultColumns): DeliveryResult[] {
  const requests: SharedRequest[] = [];
  for (let k = 0; k < requestNumbers.length / REQUEST_NUMBERS; k++) {
    const m = k * REQUEST_NUMBERS;
    const s = k * REQUEST_TEXTS;
    requests.push({
      ...exchangeAt(requestNumbers, requestTexts, m, s),
      errorCode: requestTexts[s + 4] as SharedRequest['errorCode'],
      errorMessage: requestTexts[s + 5]!,
    });
  }
  const results: DeliveryResult[] = [];
  let a = 0;
  for (let i = 0; i < numbers.length / NUMBERS; i++) {
    const n = i * NUMBERS;
    const t = i * TEXTS;
    const attempts: AttemptRecord[] = [];
    for (let k = 0; k < numbers[n + 5]!; k++, a++) {
      const m = a * ATTEMPT_NUMBERS;
      const s = a * ATTEMPT_TEXTS;
      const own = {
        errorCode: attemptTexts[s + 4] as AttemptRecord['errorCode'],
        errorMessage: attemptTexts[s + 5]!,
        outcome: attemptTexts[s + 6] as AttemptRecord['outcome'],
        retryAt: orNull(attemptNumbers[m + 3]!),
        ...(attemptTexts[s + 8] === null ? {} : { transformRun: attemptTexts[s + 8]! }),
      };
      const carriedBy = Number.isNaN(attemptNumbers[m + 4]!) ? undefined : requests[attemptNumbers[m + 4]!]!;
      attempts.push(
        carriedBy
          ? { ...carriedBy, ...own, carriedBy }
          : {
              ...exchangeAt(attemptNumbers, attemptTexts, m, s),
              ...(attemptTexts[s + 7] === null ? {} : { headerSet: attemptTexts[s + 7]! }),
              ...own,
            },
      );
    }
    results.push({
      deliveryId: numbers[n]!,
      status: texts[t] as DeliveryResult['status'],
      attemptCount: numbers[n + 1]!,
      firstAttemptAt: numbers[n + 2]!,
      nextAttemptAt: orNull(numbers[n + 3]!),
      deadlineAt: numbers[n + 4]!,
      lastError: texts[t + 1]!,
      body: texts[t + 2]!,
      signature: texts[t + 3]!,
      attempts,
      // Only what a destination's filters or transform set (issue 28): the others' results carry none.
      ...(texts[t + 4] === null ? {} : { shaping: texts[t + 4]! }),
      ...(texts[t + 5] === null ? {} : { skipReason: texts[t + 5]! }),
      ...(texts[t + 6] === null ? {} : { transformRun: texts[t + 6]! }),
      ...(texts[t + 7] === null ? {} : { bodyShape: texts[t + 7] as BodyShape }),
    });
  }
  return results;
}
