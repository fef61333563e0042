import type { AttemptRecord, DeliveryResult } from '../store/delivery-types.ts';

/**
 * Delivery results as they cross to the writer thread: numbers in one Float64Array, texts in flat
 * arrays. A structured clone of flat arrays costs a fraction of JSON (whose every body and header
 * string is escaped again inside the outer text) or of a clone of many small objects — and this
 * is paid once per delivery on the engine's thread. NaN stands for null in the numbers.
 */
export interface ResultColumns {
  /** Per result: deliveryId, attemptCount, firstAttemptAt, nextAttemptAt, deadlineAt, attempts. */
  numbers: Float64Array;
  /** Per result: status, lastError, body, signature. */
  texts: (string | null)[];
  /** Per attempt: startedAt, durationMs, responseStatus, retryAt. */
  attemptNumbers: Float64Array;
  /** Per attempt: url, requestHeaders, responseHeaders, responseBody, errorCode, errorMessage, outcome. */
  attemptTexts: (string | null)[];
}

const NUMBERS = 6;
const TEXTS = 4;
const ATTEMPT_NUMBERS = 4;
const ATTEMPT_TEXTS = 7;

const orNaN = (value: number | null) => (value === null ? NaN : value);
const orNull = (value: number) => (Number.isNaN(value) ? null : value);

export function toColumns(results: readonly DeliveryResult[]): ResultColumns {
  let attemptTotal = 0;
  for (const result of results) attemptTotal += result.attempts.length;
  const numbers = new Float64Array(results.length * NUMBERS);
  const texts: (string | null)[] = [];
  const attemptNumbers = new Float64Array(attemptTotal * ATTEMPT_NUMBERS);
  const attemptTexts: (string | null)[] = [];
  let a = 0;
  results.forEach((r, i) => {
    const n = i * NUMBERS;
    numbers[n] = r.deliveryId;
    numbers[n + 1] = r.attemptCount;
    numbers[n + 2] = r.firstAttemptAt;
    numbers[n + 3] = orNaN(r.nextAttemptAt);
    numbers[n + 4] = r.deadlineAt;
    numbers[n + 5] = r.attempts.length;
    texts.push(r.status, r.lastError, r.body, r.signature);
    for (const attempt of r.attempts) {
      const m = a++ * ATTEMPT_NUMBERS;
      attemptNumbers[m] = attempt.startedAt;
      attemptNumbers[m + 1] = attempt.durationMs;
      attemptNumbers[m + 2] = orNaN(attempt.responseStatus);
      attemptNumbers[m + 3] = orNaN(attempt.retryAt);
      attemptTexts.push(attempt.url, attempt.requestHeaders, attempt.responseHeaders, attempt.responseBody,
        attempt.errorCode, attempt.errorMessage, attempt.outcome);
    }
  });
  return { numbers, texts, attemptNumbers, attemptTexts };
}

export function fromColumns({ numbers, texts, attemptNumbers, attemptTexts }: ResultColumns): DeliveryResult[] {
  const results: DeliveryResult[] = [];
  let a = 0;
  for (let i = 0; i < numbers.length / NUMBERS; i++) {
    const n = i * NUMBERS;
    const t = i * TEXTS;
    const attempts: AttemptRecord[] = [];
    for (let k = 0; k < numbers[n + 5]!; k++, a++) {
      const m = a * ATTEMPT_NUMBERS;
      const s = a * ATTEMPT_TEXTS;
      attempts.push({
        url: attemptTexts[s]!,
        startedAt: attemptNumbers[m]!,
        durationMs: attemptNumbers[m + 1]!,
        requestHeaders: attemptTexts[s + 1]!,
        responseStatus: orNull(attemptNumbers[m + 2]!),
        responseHeaders: attemptTexts[s + 2]!,
        responseBody: attemptTexts[s + 3]!,
        errorCode: attemptTexts[s + 4] as AttemptRecord['errorCode'],
        errorMessage: attemptTexts[s + 5]!,
        outcome: attemptTexts[s + 6] as AttemptRecord['outcome'],
        retryAt: orNull(attemptNumbers[m + 3]!),
      });
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
    });
  }
  return results;
}
