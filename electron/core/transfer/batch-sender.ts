/**
 * How an import sends (`sluice import`, and a file dropped on the inspector): messages gathered into batches under ingestion's limits, POSTed to
 * /v1/batch with the source's write key (Basic auth), one request at a time so that they are stored in
 * the file's order (the first of two messages with one messageId is the one accepted), and the relay's
 * answer read back onto the messages it refused.
 */
import { INGEST_MAX_REQUEST_BYTES, SEGMENT_MAX_REQUEST_BYTES } from '../../../shared/limits.ts';
import type { Outgoing, Parsed, SkipReason } from './import-parse.ts';
import { IMPORT_HEADER } from '../store/normalize.ts';

/** The import cannot go on (nothing listens, the write key is refused, …): a sentence for the user. */
export class TransferError extends Error {}

/**
 * At most this many messages and bytes per request: under Segment's 500 KB (what every Sluice takes),
 * with room for the wrapper. A message larger than that goes alone, up to what ingestion takes.
 */
const MAX_MESSAGES = 500;
const MAX_BYTES = SEGMENT_MAX_REQUEST_BYTES - 1024;
const MAX_ALONE_BYTES = INGEST_MAX_REQUEST_BYTES - 1024;
/** Waits before trying a request again after a 5xx, a 429 or a dropped connection. */
const RETRY_WAITS_MS = [500, 1_000, 2_000];
const REQUEST_TIMEOUT_MS = 30_000;

export interface Refusal {
  item: Outgoing;
  code: string;
  message: string;
}

interface Answer {
  status: number;
  body: { error?: { code?: string; message?: string }; rejected?: { index?: number; code?: string; message?: string }[] } | undefined;
}

/**
 * What an import read and did not send, counted whole — skipped messages by why, unreadable lines, the
 * first `keep` of those kept to list — as it hands what it sends to its BatchSender. `sluice import` and the
 * inspector's drop count with it, so that both say the same.
 */
export class ImportTally {
  readonly skipped = new Map<SkipReason, number>();
  unreadable = 0;
  readonly firstErrors: Parsed['errors'] = [];
  readonly #keep: number;
  readonly #sender: BatchSender;

  constructor(sender: BatchSender, keep: number) {
    this.#sender = sender;
    this.#keep = keep;
  }

  async take(parsed: Parsed): Promise<void> {
    for (const { reason } of parsed.skipped) this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1);
    this.unreadable += parsed.errors.length;
    this.firstErrors.push(...parsed.errors.slice(0, Math.max(0, this.#keep - this.firstErrors.length)));
    for (const item of parsed.send) await this.#sender.add(item);
  }
}

export class BatchSender {
  /** Messages POSTed to the relay (whatever it answered). */
  sent = 0;
  /** Messages refused (by the relay, or here when one is too large for any request), but for those below. */
  refused = 0;
  /** Messages the relay refused that the export says were rejected the first time too. */
  refusedAgain = 0;
  /** The first refusals, to list: only a few are kept, however many there are. */
  readonly firstRefusals: Refusal[] = [];
  #relayRefused = 0;
  /** Of the messages accepted, those sent without a messageId: the relay gave each one of its own. */
  #acceptedWithoutId = 0;
  readonly #keep: number;
  readonly #base: string;
  readonly #authorization: string;
  #pending: { item: Outgoing; json: string }[] = [];
  #bytes = 0;

  constructor(base: string, writeKey: string, keep: number) {
    this.#base = base;
    this.#keep = keep;
    this.#authorization = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
  }

  /** Messages the relay stored as sent: accepted, or kept as duplicates of a messageId it had. */
  get accepted(): number {
    return this.sent - this.#relayRefused;
  }

  /** Fails now, before the file is read, when nothing listens at the URL. Any answer will do. */
  async checkListening(): Promise<void> {
    try {
      const res = await fetch(`${this.#base}/health`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      await res.arrayBuffer();
    } catch (error) {
      throw new TransferError(this.#unreachable(error));
    }
  }

  async add(item: Outgoing): Promise<void> {
    const json = item.json ?? JSON.stringify(item.message) ?? 'null';
    const bytes = Buffer.byteLength(json);
    if (bytes > MAX_ALONE_BYTES - 16) {
      this.#refuse(item, 'message_too_large', `the message is ${bytes.toLocaleString('en-US')} bytes; a request to the ingestion endpoint takes at most ${INGEST_MAX_REQUEST_BYTES / 1024} KB (not sent)`);
      return;
    }
    if (bytes > MAX_BYTES - 16) {
      await this.flush();
      this.#pending.push({ item, json });
      return this.flush();
    }
    if (this.#pending.length >= MAX_MESSAGES || this.#bytes + bytes + 1 > MAX_BYTES - 16) await this.flush();
    this.#pending.push({ item, json });
    this.#bytes += bytes + 1;
  }

  async flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#bytes = 0;
    const answer = await this.#post(`{"batch":[${batch.map((b) => b.json).join(',')}]}`, batch[0]!.item.where);
    this.sent += batch.length;
    const { status, body } = answer;
    if (status === 401 || status === 403) {
      throw new TransferError(`${this.#base} refused the write key (${status} ${body?.error?.code ?? ''}: ${body?.error?.message ?? 'no reason given'}): give the write key of one of its sources (--source with its --data-dir, or --write-key)`);
    }
    if (status === 404 || status === 405) {
      throw new TransferError(`${this.#base} answered ${status} to POST /v1/batch: it is not a Sluice ingestion endpoint (sluice serve prints its URL as "ingest"); check --url`);
    }
    if (Array.isArray(body?.rejected)) {
      const refused = new Set<Outgoing>();
      for (const r of body.rejected) {
        const item = typeof r.index === 'number' ? batch[r.index]?.item : undefined;
        if (!item || refused.has(item)) continue;
        refused.add(item);
        this.#relayRefused++;
        this.#refuse(item, r.code ?? 'rejected', r.message ?? '');
      }
      this.#acceptedWithoutId += batch.filter(({ item }) => !refused.has(item) && !hasMessageId(item.message)).length;
      return;
    }
    if (status >= 200 && status < 300) {
      this.#acceptedWithoutId += batch.filter(({ item }) => !hasMessageId(item.message)).length;
      return;
    }
    // The request was refused whole (not one of its messages): each of them says so.
    const code = body?.error?.code ?? `http_${status}`;
    const message = body?.error?.message ?? `the relay answered ${status}`;
    for (const { item } of batch) this.#refuse(item, code, message);
    this.#relayRefused += batch.length;
  }

  #refuse(item: Outgoing, code: string, message: string): void {
    if (item.wasRejected) {
      this.refusedAgain++;
      return;
    }
    this.refused++;
    if (this.firstRefusals.length < this.#keep) this.firstRefusals.push({ item, code, message });
  }

  /** POSTs a batch; a 5xx, a 429 or a dropped connection is tried again a few times. */
  async #post(body: string, firstWhere: string): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      let problem: string;
      try {
        const res = await fetch(`${this.#base}/v1/batch`, {
          method: 'POST',
          headers: { authorization: this.#authorization, 'content-type': 'application/json', [IMPORT_HEADER]: '1' },
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await res.text();
        let json: Answer['body'];
        try {
          json = text ? (JSON.parse(text) as Answer['body']) : undefined;
        } catch {
          json = undefined;
        }
        if (res.status < 500 && res.status !== 429) return { status: res.status, body: json };
        problem = `${this.#base} answered ${res.status}${json?.error?.message ? ` (${json.error.message})` : ''}`;
      } catch (error) {
        if (connectionRefused(error)) throw new TransferError(`${this.#unreachable(error)}${this.#sofar(firstWhere)}`);
        problem = `the request to ${this.#base} failed: ${describe(error)}`;
      }
      const wait = RETRY_WAITS_MS[attempt];
      if (wait === undefined) throw new TransferError(`${problem}, ${attempt + 1} times${this.#sofar(firstWhere)}`);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * What was sent before a failure, and what importing again does with it: a message that has a messageId
   * is stored as a duplicate of itself; one sent without is given a new messageId each time it arrives, so
   * it is stored, and delivered, again.
   */
  #sofar(firstWhere: string): string {
    if (this.sent === 0) return '';
    const accepted = this.accepted;
    const without = this.#acceptedWithoutId;
    const n = (count: number) => count.toLocaleString('en-US');
    const head = `; ${n(accepted)} message${accepted === 1 ? ' was' : 's were'} accepted before ${firstWhere}`;
    if (accepted === 0) return head;
    if (without === 0) return `${head}: importing the file again stores those as duplicates (the same messageIds)`;
    const again = 'again, as new messages (the relay gives a message without a messageId a new one each time)';
    if (without === accepted) return `${head}, none with a messageId: importing the file again stores ${accepted === 1 ? 'it' : 'them'} ${again}`;
    return `${head}: importing the file again stores the ${n(without)} without a messageId ${again}, and the other ${n(accepted - without)} as duplicates (the same messageIds)`;
  }

  #unreachable(error: unknown): string {
    const base = this.#base;
    if (connectionRefused(error)) return `no Sluice listening at ${base}: start sluice serve, or give --url`;
    const code = causeCode(error);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot reach ${base}: its host name is not known; check --url`;
    return `cannot reach ${base}: ${describe(error)}`;
  }
}

/** Whether a message names its messageId (ingestion keeps it; without one, it gives a new one each time). */
function hasMessageId(message: unknown): boolean {
  const id = typeof message === 'object' && message !== null ? (message as { messageId?: unknown }).messageId : undefined;
  return id !== undefined && id !== null;
}

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
  return cause?.code ?? cause?.errors?.[0]?.code;
}

function connectionRefused(error: unknown): boolean {
  return causeCode(error) === 'ECONNREFUSED';
}

function describe(error: unknown): string {
  if ((error as Error).name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: Error }).cause;
  return cause?.message ?? (error as Error).message;
}
