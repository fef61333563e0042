import { LOOP_HEADER } from '../../../../shared/loop-guard.ts';
import type { DueDelivery } from '../../store/deliveries-repo.ts';
import type { AttemptRecord } from '../../store/delivery-types.ts';
import type { Destination } from '../../store/destinations-repo.ts';
import type { PreparedBody } from '../body.ts';
import { RETRY_WINDOW_MS } from '../retry-schedule.ts';
import { attemptError, attemptOutcome, errorOf, maxRetryAfter, requestRecord, resolveBodies, settle, withoutVerdict, type RoundOutcome, type RoundParts } from '../round.ts';
import { recordedBody } from '../shaping.ts';
import { standardHeaders } from '../../signature/signature.ts';
import { USER_AGENT, type SendResult } from '../webhook-sender.ts';
import type { Kind } from './kind.ts';

/**
 * Webhooks, the seed's destinations: each message's body in the destination's shape ("seed" or
 * "full"), signed with its shared secret (X-Signature) and/or Standard Webhooks' headers, POSTed to
 * every webhook of the destination at once, one delivery a round; a URL that answers 410 Gone is
 * disabled (receivers.ts). Deletion requests notify it; a message's `integrations` may leave it out.
 */
export const webhookKind: Kind = {
  name: 'webhooks',
  recipe: (destination) => ({ bodyShape: destination.options.bodyShape, sharedSecret: destination.sharedSecret ?? null }),
  urls: (destination) => destination.webhooks.map((webhook) => webhook.url),
  batch: () => null,
  round: async (parts, deliveries, destination, prepared, releaseSlot, admitted) => [
    await runRound(parts, deliveries[0]!, destination, prepared[0], releaseSlot, admitted),
  ],
  takesDeletions: true,
  obeysIntegrations: true,
};

/**
 * One round of a webhooks destination's delivery — the policy of delivering, which the engine
 * (delivery-engine.ts) runs: the body (`prepared` ahead, when it was built with the destination's
 * current recipe, filters and transform; else read from the store, filtered, transformed and built:
 * round.ts resolveBodies), posted to every webhook of the destination at once; any 2xx delivers it;
 * otherwise a retryable failure schedules the next round within the 4-hour window (retry-schedule.ts),
 * lengthened by the longest Retry-After, never shortened. A transform's fan-out posts each event's body
 * as its own signed request, in order: the delivery is delivered once every one was taken by a webhook
 * (a 2xx), and a round stops at the first body no webhook took, its next round sending them all again
 * (at least once, in order); it records the bodies as one JSON array. A delivery that cannot be sent
 * (its message purged or unreadable) fails without a request; one a filter or the transform dropped is
 * skipped (shaping.ts). `releaseSlot` is called once the requests have ended, before the result is recorded.
 */
async function runRound(
  parts: RoundParts,
  delivery: DueDelivery,
  destination: Destination,
  prepared: PreparedBody | undefined,
  releaseSlot: () => void,
  /** The destination's webhook URLs this round may post to (circuit breakers, 410 Gone); all when absent. */
  admitted?: ReadonlySet<string>,
): Promise<RoundOutcome> {
  const { clock, sender } = parts;
  const startedAt = clock.now();
  const firstAttemptAt = delivery.firstAttemptAt ?? startedAt;
  const deadlineAt = firstAttemptAt + RETRY_WINDOW_MS;
  const attemptCount = delivery.attemptCount + 1;

  const recipe = webhookKind.recipe(destination);
  const [resolved] = await resolveBodies(parts, [delivery], destination, recipe, [prepared], startedAt);
  if ('unsendable' in resolved!) return resolved.unsendable;
  const { bodies, via, shaping, run } = resolved!;
  const loop = via ? `${via}, ${parts.instanceId}` : parts.instanceId;
  const fanOut = bodies.length > 1;
  const targets = delivery.targetUrl
    ? [{ url: delivery.targetUrl, headers: {} }]
    : admitted
      ? destination.webhooks.filter((webhook) => admitted.has(webhook.url))
      : destination.webhooks;
  // Each body in order (several: a transform's fan-out), to every webhook at once; the next body goes
  // once one webhook took this one, so a receiver never gets an event before the one it follows.
  const sent: { url: string; headers: Record<string, string>; result: SendResult }[] = [];
  let delivered = true;
  for (const [index, { body, signature }] of bodies.entries()) {
    // The seed's X-Signature unless the destination signs with Standard Webhooks alone; Standard Webhooks'
    // headers with a fresh timestamp at each round, under an id that stays the delivery's (each event's) across retries.
    const xSignature = destination.signing === 'standard' ? null : signature;
    const id = webhookId(parts.instanceId, delivery) + (fanOut ? `_${index + 1}` : '');
    const standard = destination.signing !== 'segment' && destination.signingSecrets?.length ? standardHeaders(id, startedAt, body, destination.signingSecrets) : undefined;
    // All of a body's requests start at once; the sender never rejects (failures are results).
    const requests = targets.map((webhook) => {
      const headers: Record<string, string> = {
        'User-Agent': USER_AGENT,
        'Content-Type': 'application/json',
        ...webhook.headers,
        [LOOP_HEADER]: loop,
        ...(xSignature ? { 'X-Signature': xSignature } : {}),
        ...standard,
      };
      const caCert = 'caCert' in webhook ? webhook.caCert : undefined;
      return { url: webhook.url, headers, result: sender.send({ url: webhook.url, body, headers, caCert }) };
    });
    const these: typeof sent = [];
    for (const { url, headers, result } of requests) these.push({ url, headers, result: await result });
    sent.push(...these);
    if (!these.some(({ result }) => result.ok)) {
      delivered = false;
      break; // the later events wait for this one: the next round sends them all again, in order
    }
  }

  // Before the slot goes to the next delivery: a breaker this round opened must hold that one back.
  for (const { url, result } of sent) parts.heard?.(destination.id, url, result);
  releaseSlot();
  const now = clock.now();
  const failedBody = sent.slice(sent.length - targets.length);
  // A live URL its open breaker held back this round may still take it: the round is not the last word,
  // whatever the URLs it posted to answered (before 2026-12-01 another URL's 4xx failed it for good).
  const heldBack = admitted !== undefined && destination.webhooks.some((webhook) => !admitted.has(webhook.url) && !destination.gone?.[webhook.url]);
  const retryable = !delivered && (heldBack || failedBody.some(({ result }) => result.retryable));
  const retryAfterMs = maxRetryAfter(sent.map(({ result }) => result), now);
  // A destination's own webhook answering 410 Gone is disabled (receivers.ts); a typed URL is not.
  const gone = delivery.targetUrl === null;
  // The last attempt's error (all of a round's attempts failed unless it delivered): the one the
  // store's summaries pair with its code (DeliveriesRepo.lastErrors).
  // A retrying round's error is that of an attempt worth retrying (else a 4xx beside a timeout read
  // "will not be retried" on a delivery that was).
  const worthRetrying = sent.findLast(({ result }) => !result.ok && result.retryable);
  const lastFailed = (retryable && worthRetrying) || sent.findLast(({ result }) => !result.ok);
  const error = retryable && !worthRetrying && heldBack
    ? `${withoutVerdict(errorOf(lastFailed?.result, gone))}; will retry: a webhook its circuit breaker held back may take it`
    : errorOf(lastFailed?.result, gone);
  const { status, next, lastError } = settle(parts, { attemptCount, firstAttemptAt, now, delivered, retryable, retryAfterMs, error });
  // One body: its X-Signature is the delivery's (recorded with the body it signs), its attempts' headers by
  // reference. A fan-out's bodies are recorded as one JSON array, each request's headers as sent (each its own signature).
  const signature = fanOut ? null : bodies[0]!.signature;
  const attempts: AttemptRecord[] = sent.map(({ url, headers, result }) => ({
    ...requestRecord(url, headers, result, fanOut ? undefined : { signature: destination.signing === 'standard' ? null : signature }),
    errorMessage: attemptError(errorOf(result, gone), result.ok, status),
    ...attemptOutcome(result.ok, status, next),
    ...(run ? { transformRun: run } : {}),
  }));
  return {
    result: {
      deliveryId: delivery.id, status, attemptCount, firstAttemptAt, nextAttemptAt: next, deadlineAt, lastError,
      ...recordedBody(bodies, delivery, destination, recipe), signature, attempts,
      ...(shaping ? { shaping } : {}),
    },
    announced: delivery,
  };
}

/** Standard Webhooks' `webhook-id` of a delivery: unique per Sluice (its data folder's id) and delivery. */
/**
 * The delivery's Standard Webhooks id, the same at each retry: this Sluice, the delivery's id, and when it
 * was made (base 36). SQLite gives a row id again once the newest rows are gone (a reset, a clear, a purge):
 * without the time, a receiver that drops ids it has processed (as the spec advises) dropped the new
 * delivery as the old one's repeat (until 2026-12-01).
 */
function webhookId(instanceId: string, delivery: Pick<DueDelivery, 'id' | 'createdAt'>): string {
  return `msg_${instanceId.replace(/^sl_/, '')}_${delivery.id}_${Math.max(0, Math.floor(delivery.createdAt)).toString(36)}`;
}
