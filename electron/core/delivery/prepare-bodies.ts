import type { DatabaseSync } from 'node:sqlite';
import type { Violation } from '../../../shared/tracking-plan.ts';
import { buildBody, type SignedBody } from './body.ts';
import { factsOf, filterMessage } from './shaping.ts';
import type { BodiesRequest, PreparedBodies } from '../writer/protocol.ts';
import { MessagesRepo, normalizedMessage, viaOf, type DeliveredPayload } from '../store/messages-repo.ts';
import { storedPayload } from '../store/request-writes.ts';
import type { CommittedRequest, PreparedRequest } from '../store/stored-request.ts';

/**
 * Builds the bodies of queued deliveries, as the engine would when it sends them, with the same
 * builder (body.ts) and the recipe the engine sent: read the message, normalize, filter (the
 * destination's filters, when it has any: shaping.ts), build, sign. Run in the store's writer thread,
 * which has time to spare while the engine's thread is busy with HTTP: on two cores this is what lets
 * the engine keep its receivers busy. For a destination with a transform it answers the filtered
 * messages too (the engine has them transformed, in a batch; an event returned unchanged is sent with
 * the body built here). The engine uses a body only while
 * the destination's body shape, secret, filters and transform are still the ones it was built with,
 * and never across a purge (body-prefetch.ts).
 */
export function bodiesPreparer(db: DatabaseSync): BodiesPreparer {
  const messages = new MessagesRepo(db);
  const recent = new RecentMessages();
  const prepare = ({ messageIds, filters, sourceNames, messagesOnly, ...recipe }: BodiesRequest): PreparedBodies => {
    const payloads = recent.payloads(messageIds, (missing) => messages.payloads(missing));
    const names = new Map(sourceNames ?? []);
    const bodies: (string | null)[] = [];
    const signatures: (string | null)[] = [];
    const vias: (string | null)[] = [];
    // Only for a destination with filters or a transform: the others' answers are as before.
    const dropped: (string | null)[] | undefined = filters?.length ? [] : undefined;
    const shapings: (string | null)[] | undefined = dropped ? [] : undefined;
    const kept: (Record<string, unknown> | null)[] | undefined = messagesOnly ? [] : undefined;
    for (const id of messageIds) {
      const payload = payloads.get(id);
      vias.push(payload ? viaOf(payload) : null);
      let built: SignedBody | null = null;
      let drop: string | null = null;
      let shaping: string | null = null;
      let message: Record<string, unknown> | null = null;
      try {
        // Unfiltered, the normalized message is only read (webhookBody builds a new object): the one
        // made for another destination's body serves. Filters get their own copy.
        message = payload ? (dropped ? normalizedMessage(payload) : recent.normalized(id, payload)) : null;
        if (message && payload && dropped) {
          const violations = payload.violations ? (JSON.parse(payload.violations) as Violation[]) : null;
          const filtered = filterMessage({ filters }, message, factsOf(names.get(payload.source_id) ?? '', payload.origin, violations));
          if (filtered.kind === 'dropped') [drop, message] = [filtered.reason, null];
          else if (filtered.kind === 'failed') message = null; // left to the round, which fails it saying why
          else [message, shaping] = [filtered.message, filtered.shaping];
        }
        // Built for a transform's destination too: an event the transform returns unchanged is sent with it.
        if (message) built = buildBody(recipe, message);
      } catch {
        // Left to the engine's round, which fails that delivery with the reason; the others are built.
        message = null;
      }
      bodies.push(built?.body ?? null);
      signatures.push(built?.signature ?? null);
      dropped?.push(drop);
      shapings?.push(shaping);
      kept?.push(message);
    }
    return { bodies, signatures, vias, ...(dropped ? { dropped, shapings } : {}), ...(kept ? { messages: kept } : {}) };
  };
  const remember = (prepared: PreparedRequest, committed: CommittedRequest): void => {
    const due = committed.due;
    if (!due) return;
    const waiting = new Set<number>();
    for (let k = 1; k < due.length; k += 3) waiting.add(due[k]!);
    for (let i = 0; i < prepared.messages.length; i++) {
      const id = committed.ids[i]!;
      // Accepted and stored (status 0) with a delivery to make; `Violation Generated` events are read back.
      if (committed.statuses[i] === 0 && waiting.has(id)) recent.remember(id, storedPayload(prepared, prepared.messages[i]!));
    }
  };
  return { prepare, remember, forget: () => recent.clear() };
}

export interface BodiesPreparer {
  prepare(request: BodiesRequest): PreparedBodies;
  /**
   * An ingestion request just committed: its messages' destinations ask for their bodies next, built
   * from the payloads the writer has in hand instead of reading them back (the read was about a quarter
   * of the bodies' cost: 28.1 against 20.6 µs a message for three destinations). Only after a commit
   * that wrote nothing else: a purge in the same transaction may have removed them.
   */
  remember(prepared: PreparedRequest, committed: CommittedRequest): void;
  /** A write may have changed or removed stored messages (a purge, a recheck, a reset): read them afresh. */
  forget(): void;
}

/** Messages read for bodies lately, at most this many: a new message's destinations ask for it at about the same time. */
const RECENT_MESSAGES = 2_048;

/**
 * The payloads (and normalized messages) of the messages whose bodies were built lately. Each of a new
 * message's destinations asks for its body in its own request, one after another: read and normalized
 * once, not once per destination (it was a sixth of the writer's time with a webhook and two forwards).
 * Stored messages change only by a write (forget() after one); new ones are new ids.
 */
class RecentMessages {
  readonly #entries = new Map<number, { payload: DeliveredPayload; message?: Record<string, unknown> | null }>();

  payloads(ids: number[], read: (ids: number[]) => Map<number, DeliveredPayload>): Map<number, DeliveredPayload | undefined> {
    const out = new Map<number, DeliveredPayload | undefined>();
    const missing: number[] = [];
    for (const id of ids) {
      const entry = this.#entries.get(id);
      if (entry) out.set(id, entry.payload);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const read_ = read(missing);
      for (const id of missing) {
        const payload = read_.get(id);
        out.set(id, payload);
        if (payload) this.#entries.set(id, { payload });
      }
      this.#trim();
    }
    return out;
  }

  /** A message just stored, as the store holds it. */
  remember(id: number, payload: DeliveredPayload): void {
    this.#entries.set(id, { payload });
    this.#trim();
  }

  /** The oldest entries out, down to RECENT_MESSAGES. */
  #trim(): void {
    for (const id of this.#entries.keys()) {
      if (this.#entries.size <= RECENT_MESSAGES) break;
      this.#entries.delete(id);
    }
  }

  /** The message as normalizedMessage makes it, made once per message (callers must not change it). */
  normalized(id: number, payload: DeliveredPayload): Record<string, unknown> | null {
    const entry = this.#entries.get(id);
    if (entry?.payload !== payload) return normalizedMessage(payload);
    if (entry.message === undefined) entry.message = normalizedMessage(payload);
    return entry.message;
  }

  clear(): void {
    this.#entries.clear();
  }
}
