import { LOOP_HEADER } from '../../../shared/loop-guard.ts';
import type { DueDelivery } from '../store/deliveries-repo.ts';
import type { AttemptRecord } from '../store/delivery-types.ts';
import type { Destination } from '../store/destinations-repo.ts';
import type { PreparedBody } from './body-prefetch.ts';
import { gaveUpReason, nextAttemptAt, RETRY_WINDOW_MS } from './retry-schedule.ts';
import { errorOf, maxRetryAfter, resolveBody, type RoundOutcome, type RoundParts } from './round.ts';
import { USER_AGENT, type SendResult } from './webhook-sender.ts';

/** A forward request's body stays under this (Segment's Tracking API takes at most 500 KB per batch). */
export const MAX_FORWARD_BYTES = 500 * 1024 - 1024;

/** Where a tracking-api destination posts: `<url>/v1/batch`, or `url` itself when it already ends so. */
export function forwardUrl(url: string): string {
  const parsed = new URL(url);
  if (!/\/v1\/batch\/?$/.test(parsed.pathname)) parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/v1/batch`;
  return parsed.toString();
}

interface Item {
  delivery: DueDelivery;
  body: string;
  via: string | null;
}

/**
 * One round of a tracking-api destination (the engine's batch of its due deliveries): each message,
 * as the Tracking API takes it from a client (webhookBody's "forward" shape), goes in `{"batch": […]}`
 * requests of at most `batchSize` messages and MAX_FORWARD_BYTES, with the write key as Basic auth,
 * gzipped when asked — the same durable queue, retry schedule and attempt records as webhooks: a
 * request's answer is each of its messages' (2xx delivered; 5xx, 408, 429 and network errors retried;
 * another 4xx final, with the API's reason). Messages that passed through other Sluices go in
 * requests of their own, each with its Sluice-Loop chain; a replay to a typed URL goes there.
 */
export async function runForwardRound(
  parts: RoundParts,
  deliveries: readonly DueDelivery[],
  destination: Destination,
  prepared: readonly (PreparedBody | undefined)[],
  releaseSlot: () => void,
): Promise<RoundOutcome[]> {
  const api = destination.trackingApi!;
  const { clock, sender } = parts;
  const startedAt = clock.now();
  const outcomes: RoundOutcome[] = [];
  const groups = new Map<string, Item[][]>();
  const apiUrl = forwardUrl(api.url);
  deliveries.forEach((delivery, i) => {
    const resolved = resolveBody(parts, delivery, destination, prepared[i], delivery.firstAttemptAt ?? startedAt);
    if ('unsendable' in resolved) {
      outcomes.push(resolved.unsendable);
      return;
    }
    const key = `${delivery.targetUrl ?? apiUrl}\n${resolved.via ?? ''}`;
    let chunks = groups.get(key);
    if (!chunks) groups.set(key, (chunks = [[]]));
    let chunk = chunks.at(-1)!;
    const bytes = chunk.reduce((n, item) => n + item.body.length + 1, 12) + resolved.body.length;
    if (chunk.length > 0 && (chunk.length >= api.batchSize || bytes > MAX_FORWARD_BYTES)) chunks.push((chunk = []));
    chunk.push({ delivery, body: resolved.body, via: resolved.via });
  });

  const authorization = `Basic ${Buffer.from(`${api.writeKey}:`).toString('base64')}`;
  const requests = [...groups].flatMap(([key, chunks]) => {
    const url = key.slice(0, key.indexOf('\n'));
    return chunks.map((items) => {
      const via = items[0]!.via;
      const headers: Record<string, string> = {
        'User-Agent': USER_AGENT,
        'Content-Type': 'application/json',
        Authorization: authorization,
        [LOOP_HEADER]: via ? `${via}, ${parts.instanceId}` : parts.instanceId,
        ...(api.gzip ? { 'Content-Encoding': 'gzip' } : {}),
      };
      const text = `{"batch":[${items.map((item) => item.body).join(',')}]}`;
      // zlib is loaded by the first gzipped forward, not at start (~10 ms; see ingest/read-body.ts).
      const body = api.gzip ? process.getBuiltinModule('node:zlib').gzipSync(text) : text;
      return { url, items, headers, result: sender.send({ url, body, headers, caCert: api.caCert }) };
    });
  });
  const sent: { url: string; items: Item[]; headers: Record<string, string>; result: SendResult }[] = [];
  for (const request of requests) sent.push({ ...request, result: await request.result });
  for (const { url, result } of sent) parts.heard?.(destination.id, url, result);
  releaseSlot();

  const now = clock.now();
  for (const { url, items, headers, result } of sent) {
    const retryAfterMs = maxRetryAfter([result], now);
    const errorMessage = result.ok ? null : withReason(result);
    for (const { delivery, body } of items) {
      const firstAttemptAt = delivery.firstAttemptAt ?? startedAt;
      const attemptCount = delivery.attemptCount + 1;
      const next = !result.ok && result.retryable
        ? nextAttemptAt({ rounds: attemptCount, firstAttemptAt, now, retryAfterMs, ...(parts.random ? { random: parts.random } : {}) })
        : null;
      const status = result.ok ? 'delivered' : next !== null ? 'retrying' : 'failed';
      const attempt: AttemptRecord = {
        url,
        startedAt: result.startedAt,
        durationMs: result.durationMs,
        requestHeaders: JSON.stringify(headers),
        responseStatus: result.status,
        responseHeaders: result.responseHeaders ? JSON.stringify(result.responseHeaders) : null,
        responseBody: result.responseBody,
        errorCode: result.errorCode,
        errorMessage,
        outcome: result.ok ? 'success' : status === 'retrying' ? 'retry' : 'final',
        retryAt: status === 'retrying' ? next : null,
      };
      outcomes.push({
        result: {
          deliveryId: delivery.id,
          status,
          attemptCount,
          firstAttemptAt,
          nextAttemptAt: next,
          deadlineAt: firstAttemptAt + RETRY_WINDOW_MS,
          lastError: result.ok ? null : result.retryable && next === null ? `${errorMessage} — ${gaveUpReason(attemptCount)}` : errorMessage,
          body,
          signature: null,
          attempts: [attempt],
        },
        announced: delivery,
      });
    }
  }
  return outcomes;
}

/** A failed request's sentence, with the API's own reason when it gave one (a 4xx's "why"); a loop guard's refusal as round.ts says it. */
function withReason(result: SendResult): string {
  const message = errorOf(result) ?? 'the request failed';
  if (message !== result.errorMessage) return message;
  if (result.status === null || result.status < 400 || !result.responseBody) return message;
  let reason = result.responseBody.trim();
  try {
    const json = JSON.parse(reason) as { error?: unknown; message?: unknown };
    const error = json.error as { message?: unknown } | string | undefined;
    reason = String((typeof error === 'object' && error?.message) || error || json.message || reason);
  } catch {
    // not JSON: the text itself
  }
  return reason ? `${message} (the API said: ${reason.slice(0, 300)})` : message;
}
