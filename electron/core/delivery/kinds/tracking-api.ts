import { SEGMENT_MAX_MESSAGE_BYTES } from '../../../../shared/limits.ts';
import { LOOP_HEADER } from '../../../../shared/loop-guard.ts';
import type { BodyShape } from '../../../../shared/webhook-body.ts';
import type { DueDelivery } from '../../store/deliveries-repo.ts';
import type { AttemptRecord, SharedRequest } from '../../store/delivery-types.ts';
import type { Destination } from '../../store/destinations-repo.ts';
import type { PreparedBody } from '../body.ts';
import { RETRY_WINDOW_MS } from '../retry-schedule.ts';
import { attemptOutcome, errorOf, maxRetryAfter, requestRecord, resolveBodies, settle, type RoundOutcome, type RoundParts } from '../round.ts';
import { recordedBody } from '../shaping.ts';
import { USER_AGENT, type SendResult } from '../webhook-sender.ts';
import type { Kind } from './kind.ts';

/** A forward request's body stays under this (Segment's Tracking API takes at most 500 KB per batch). */
const MAX_FORWARD_BYTES = 500 * 1024 - 1024;

/** `{"batch":[` and `]}` with the comma counted per item: what a request's body adds to its items' bytes. */
const BATCH_FRAME_BYTES = 12;

/** forwardUrl's answers, by the URL given. */
const forwardUrls = new Map<string, string>();

/** Where a tracking-api destination posts: `<url>/v1/batch`, or `url` itself when it already ends so. */
export function forwardUrl(url: string): string {
  // Asked for every due delivery's round (its destination's live URLs): parsed once per URL, not each time
  // (1–2% of the engine's thread at 2,000 events/s with two forwards).
  let found = forwardUrls.get(url);
  if (found === undefined) {
    const parsed = new URL(url);
    if (!/\/v1\/batch\/?$/.test(parsed.pathname)) parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/v1/batch`;
    found = parsed.toString();
    if (forwardUrls.size >= 256) forwardUrls.clear();
    forwardUrls.set(url, found);
  }
  return found;
}

/**
 * A Tracking API that messages are forwarded to (Segment's, a RudderStack data plane, another
 * Sluice): each message as a client would send it (the "forward" shape), unsigned, in batches to its
 * one batch URL with the write key (runForwardRound). Deletion requests do not notify it (a Tracking
 * API takes no `delete` message); a message's `integrations` go with it rather than leave it out.
 */
export const trackingApiKind: Kind = {
  name: 'tracking-api',
  recipe: () => ({ bodyShape: 'forward', sharedSecret: null }),
  urls: (destination) => (destination.trackingApi ? [forwardUrl(destination.trackingApi.url)] : []),
  batch: (destination) => ({ size: destination.trackingApi!.batchSize, flushMs: destination.trackingApi!.flushMs }),
  round: (parts, deliveries, destination, prepared, releaseSlot) => runForwardRound(parts, deliveries, destination, prepared, releaseSlot),
  takesDeletions: false,
  obeysIntegrations: false,
};

interface Item {
  delivery: DueDelivery;
  /** Its message(s) as the batch carries them: one body, or a fan-out's bodies joined by commas. */
  text: string;
  /** How many messages of the batch it is (a transform's fan-out: several). */
  events: number;
  /** Its body as its delivery records it (shaping.ts recordedBody: whole, or by reference to its message). */
  recorded: { body: string | null; bodyShape?: BodyShape };
  shaping: string | null;
  run: string | null;
  /** The body's size in UTF-8 bytes (what the API's limits count). */
  bytes: number;
  via: string | null;
}

/**
 * One round of a tracking-api destination (the engine's batch of its due deliveries): each message,
 * as the Tracking API takes it from a client (webhookBody's "forward" shape), goes in `{"batch": […]}`
 * requests of at most `batchSize` messages and MAX_FORWARD_BYTES, with the write key as Basic auth,
 * gzipped when asked — the same durable queue and retry schedule as webhooks: a request's answer is
 * each of its messages' (2xx delivered; 5xx, 408, 429 and network errors retried; another 4xx final,
 * with the API's reason), and each message's attempt refers to the request, recorded once (carriedBy). Messages that passed through other Sluices go in
 * requests of their own, each with its Sluice-Loop chain; a replay to a typed URL goes there.
 */
async function runForwardRound(
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
  /** Per URL and loop chain, its requests' items and their size as sent so far (each item's bytes and its comma). */
  const groups = new Map<string, { items: Item[]; bytes: number }[]>();
  const apiUrl = forwardUrl(api.url);
  const recipe = trackingApiKind.recipe(destination);
  const resolvedAll = await resolveBodies(parts, deliveries, destination, recipe, prepared, startedAt);
  deliveries.forEach((delivery, i) => {
    const resolved = resolvedAll[i]!;
    if ('unsendable' in resolved) {
      outcomes.push(resolved.unsendable);
      return;
    }
    // A transform's fan-out: each event its own message of the batch, next to each other, in order.
    const recorded = recordedBody(resolved.bodies, delivery, destination, recipe);
    const events = resolved.bodies.length;
    const sizes = resolved.bodies.map((b) => Buffer.byteLength(b.body));
    const bytes = sizes.reduce((n, size) => n + size, events - 1);
    const largest = Math.max(...sizes);
    if (largest > SEGMENT_MAX_MESSAGE_BYTES) {
      // Tracking APIs refuse a message over 32 KB (Segment's limit, and Sluice's): sending it would
      // only fail, and fail its whole batch with it. Its batch-level context, merged in, can make it so.
      const firstAttemptAt = delivery.firstAttemptAt ?? startedAt;
      const lastError = `the message is ${largest} bytes as forwarded; a Tracking API takes at most ${SEGMENT_MAX_MESSAGE_BYTES / 1024} KB per message, so it was not sent`;
      outcomes.push({
        result: {
          deliveryId: delivery.id, status: 'failed', attemptCount: delivery.attemptCount, firstAttemptAt, nextAttemptAt: null, deadlineAt: firstAttemptAt + RETRY_WINDOW_MS, lastError, ...recorded, signature: null, attempts: [],
          ...(resolved.shaping ? { shaping: resolved.shaping } : {}),
        },
        announced: delivery,
      });
      return;
    }
    const key = `${delivery.targetUrl ?? apiUrl}\n${resolved.via ?? ''}`;
    let chunks = groups.get(key);
    if (!chunks) groups.set(key, (chunks = [{ items: [], bytes: BATCH_FRAME_BYTES }]));
    let chunk = chunks.at(-1)!;
    if (chunk.items.length > 0 && (chunk.items.length >= api.batchSize || chunk.bytes + bytes > MAX_FORWARD_BYTES)) chunks.push((chunk = { items: [], bytes: BATCH_FRAME_BYTES }));
    chunk.items.push({ delivery, text: resolved.bodies.map((b) => b.body).join(','), events, recorded, bytes, via: resolved.via, shaping: resolved.shaping, run: resolved.run });
    chunk.bytes += bytes + 1;
  });

  const authorization = `Basic ${Buffer.from(`${api.writeKey}:`).toString('base64')}`;
  const requests = [...groups].flatMap(([key, chunks]) => {
    const url = key.slice(0, key.indexOf('\n'));
    return chunks.map(({ items }) => {
      const via = items[0]!.via;
      const headers: Record<string, string> = {
        'User-Agent': USER_AGENT,
        'Content-Type': 'application/json',
        // The write key goes to the API only, never to a URL typed for a replay.
        ...(url === apiUrl ? { Authorization: authorization } : {}),
        [LOOP_HEADER]: via ? `${via}, ${parts.instanceId}` : parts.instanceId,
        ...(api.gzip ? { 'Content-Encoding': 'gzip' } : {}),
      };
      const text = `{"batch":[${items.map((item) => item.text).join(',')}]}`;
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
    const refused = result.ok ? rejectedByIndex(result) : undefined;
    // The same request for each of its messages: its headers and answer serialized once, and recorded
    // once (carriedBy), each message's attempt a reference to it with what it meant for that message.
    const request: SharedRequest = { ...requestRecord(url, headers, result), errorMessage };
    let index = 0;
    for (const { delivery, recorded, events, shaping, run } of items) {
      // Accepted as a batch, but this message (one of its events) refused (a Sluice upstream says which, with why): final.
      let rejection: string | undefined;
      for (let k = index; k < index + events && !rejection; k++) rejection = refused?.get(k);
      index += events;
      const shaped = { ...(shaping ? { shaping } : {}) };
      const ran = run ? { transformRun: run } : {};
      if (rejection) {
        const firstAttemptAt = delivery.firstAttemptAt ?? startedAt;
        const lastError = `the API accepted the batch but rejected this message (${rejection})`;
        outcomes.push({
          result: {
            deliveryId: delivery.id, status: 'failed', attemptCount: delivery.attemptCount + 1, firstAttemptAt, nextAttemptAt: null,
            deadlineAt: firstAttemptAt + RETRY_WINDOW_MS, lastError, ...recorded, signature: null, ...shaped,
            attempts: [{ ...request, errorCode: 'http', errorMessage: lastError, outcome: 'final', retryAt: null, carriedBy: request, ...ran }],
          },
          announced: delivery,
        });
        continue;
      }
      const firstAttemptAt = delivery.firstAttemptAt ?? startedAt;
      const attemptCount = delivery.attemptCount + 1;
      const { status, next, lastError } = settle(parts, {
        attemptCount, firstAttemptAt, now, delivered: result.ok, retryable: result.retryable, retryAfterMs, error: errorMessage,
      });
      const attempt: AttemptRecord = { ...request, ...attemptOutcome(result.ok, status, next), carriedBy: request, ...ran };
      outcomes.push({
        result: {
          deliveryId: delivery.id,
          status,
          attemptCount,
          firstAttemptAt,
          nextAttemptAt: next,
          deadlineAt: firstAttemptAt + RETRY_WINDOW_MS,
          lastError,
          ...recorded,
          signature: null,
          attempts: [attempt],
          ...shaped,
        },
        announced: delivery,
      });
    }
  }
  return outcomes;
}

/**
 * A 2xx answer's list of refused messages, by their index in the batch — as a Sluice upstream answers
 * (`{"success": true, "rejected": [{"index", "code", "message"}]}`); Segment's API has no such list.
 */
function rejectedByIndex(result: SendResult): Map<number, string> | undefined {
  if (!result.responseBody?.includes('"rejected"')) return undefined;
  try {
    const { rejected } = JSON.parse(result.responseBody) as { rejected?: { index?: unknown; code?: unknown; message?: unknown }[] };
    if (!Array.isArray(rejected)) return undefined;
    const out = new Map<number, string>();
    for (const entry of rejected) if (typeof entry?.index === 'number') out.set(entry.index, `${String(entry.code ?? 'rejected')}: ${String(entry.message ?? '')}`);
    return out;
  } catch {
    return undefined; // a body cut at the capture limit, or not JSON
  }
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
