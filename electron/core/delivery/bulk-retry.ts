import type { IssueRetryProgress } from '../../../shared/channels/issues.ts';
import type { MessageFilter } from '../../../shared/message-filter.ts';
import type { EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import type { DeliveriesRepo } from '../store/deliveries-repo.ts';
import type { IssuesRepo, OpenDelivery } from '../store/issues-repo.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import { announceStored } from './announce.ts';
import type { DeliveryEngine } from './delivery-engine.ts';

/** Deliveries per chunk: one read, one write (a unit of the writer's group commit: ingestion goes on between chunks), one announcement. */
export const RETRY_CHUNK = 500;
/** The pause between two chunks, so that a retry of a million deliveries leaves the writer and the core's thread to others. */
export const CHUNK_PAUSE_MS = 20;
/** Progress events at most this often (the first and the last always). */
const PROGRESS_MS = 250;
/** Ended jobs listed after their end (for a client that polls: GET /api/v1/issues/retries). */
const ENDED_KEPT = 10;
/** Job ids of a core start at its start time (ms) times this, so that a relay started again does not give a page the ids it saw before. */
const IDS_PER_MS = 1000;
/** The highest first id handed out in this process: two cores started in the same millisecond still count apart. */
let lastFirstId = 0;

/** Where a new core's job ids start (see IssueRetryProgress.jobId): above every id of a core started before it. */
function firstJobId(now: number): number {
  lastFirstId = Math.max(lastFirstId + IDS_PER_MS, Math.floor(Math.max(0, now)) * IDS_PER_MS);
  return lastFirstId;
}

/** What a bulk retry retries: a group's open deliveries, or the failed and retrying deliveries of the messages a filter picks. */
export type RetryTarget = { issueId: number; total: number } | { filter: MessageFilter; destinationId?: number | undefined };

export interface BulkRetryParts {
  issues: IssuesRepo;
  deliveries: DeliveriesRepo;
  writer: StoreWriter;
  delivery: DeliveryEngine;
  bus: EventBus;
  clock: Clock;
  /** The pause between two chunks (default CHUNK_PAUSE_MS); tests lengthen it to stop a job between two chunks. A stop ends the pause at once. */
  chunkPauseMs?: number | undefined;
}

interface Job {
  progress: IssueRetryProgress;
  cancelled: boolean;
  /** Settles when the job has ended (its last chunk written). */
  ended?: Promise<void>;
  /** Ends the pause between two chunks now (a stop need not wait for it). */
  wake?: () => void;
}

/**
 * Bulk retries of Issues (`issues.retry`): each a job in the background that walks the deliveries it
 * retries by id, RETRY_CHUNK at a time — never all of them in memory — and sets each chunk due now in
 * one write, as `deliveries.retryNow` does (a failed one reopened for one more round: store/delivery-writes.ts),
 * announcing the chunk as stored. The delivery engine then sends them at its own pace: its per-destination
 * concurrency and its breakers still hold. The person asked, so the first chunk gives their receivers a
 * try whatever their breakers said (as a retry of one does); a receiver still down opens its breaker
 * again, and the rest wait for its probes rather than storm it. A retry by filter first counts its
 * deliveries (state `counting`: the same walk, nothing written), so that its progress has a total.
 */
export class BulkRetries {
  readonly #parts: BulkRetryParts;
  readonly #jobs = new Map<number, Job>();
  #ended: IssueRetryProgress[] = [];
  #lastId: number;
  #stopped = false;

  constructor(parts: BulkRetryParts) {
    this.#parts = parts;
    this.#lastId = firstJobId(parts.clock.now());
  }

  /** Starts a job and answers with its first progress. */
  start(target: RetryTarget): IssueRetryProgress {
    const byIssue = 'issueId' in target;
    const progress: IssueRetryProgress = {
      jobId: ++this.#lastId,
      issueId: byIssue ? target.issueId : null,
      done: 0,
      total: byIssue ? target.total : 0,
      retried: 0,
      skipped: 0,
      state: byIssue ? 'running' : 'counting',
    };
    const job: Job = { progress, cancelled: false };
    this.#jobs.set(progress.jobId, job);
    this.#parts.bus.emit('issues.retryProgress', { ...progress });
    job.ended = this.#run(job, target);
    return { ...progress };
  }

  /**
   * Stops a job under way between two chunks (the chunk being written still lands; nothing retried is
   * undone) and resolves with its last progress once it has ended: `cancelled`, or `finished` when its
   * last chunk was the one being written. `running: false` when no job of that id is under way, with
   * its last progress if it ended lately (among those list() keeps).
   */
  cancel(jobId: number): { running: true; ended: Promise<IssueRetryProgress> } | { running: false; ended: IssueRetryProgress | null } {
    const job = this.#jobs.get(jobId);
    if (!job) return { running: false, ended: this.#ended.find((progress) => progress.jobId === jobId) ?? null };
    job.cancelled = true;
    job.wake?.();
    return { running: true, ended: job.ended!.then(() => ({ ...job.progress })) };
  }

  /** The jobs under way, then the last ones ended (the latest first). */
  list(): IssueRetryProgress[] {
    return [...[...this.#jobs.values()].map((job) => ({ ...job.progress })), ...this.#ended.map((progress) => ({ ...progress }))];
  }

  /**
   * Cancels every job under way and resolves when they have ended (a chunk being written is written
   * first): a reset, before it forgets every delivery and group — a job of the old group 3 must not go
   * on among what comes after (api/operations/storage.ts).
   */
  async cancelAll(): Promise<void> {
    const jobs = [...this.#jobs.values()];
    for (const job of jobs) {
      job.cancelled = true;
      job.wake?.();
    }
    await Promise.all(jobs.map((job) => job.ended));
  }

  /**
   * Stops every job between chunks (the core is closing), and says so now: each job under way ends
   * `cancelled` with its last event (the chunk being written still lands, unannounced), so that no
   * page keeps showing it running.
   */
  stop(): void {
    this.#stopped = true;
    for (const job of this.#jobs.values()) {
      job.cancelled = true;
      job.wake?.();
      const { progress } = job;
      this.#parts.bus.emit('issues.retryProgress', { ...progress, total: Math.max(progress.total, progress.done), state: 'cancelled' });
    }
  }

  /** One chunk of the target's deliveries after `afterId`, and the id to go on after (null: the end). */
  #chunk(target: RetryTarget, afterId: number): { ids: number[]; next: number | null } {
    const { issues } = this.#parts;
    const rows: OpenDelivery[] = 'issueId' in target ? issues.ofIssue(target.issueId, afterId, RETRY_CHUNK) : issues.open(afterId, RETRY_CHUNK, target.destinationId);
    const next = rows.length < RETRY_CHUNK ? null : rows.at(-1)!.id;
    if ('issueId' in target) return { ids: rows.map((row) => row.id), next };
    const picked = issues.matching([...new Set(rows.flatMap((row) => (row.messageId === null ? [] : [row.messageId])))], target.filter);
    return { ids: rows.filter((row) => row.messageId !== null && picked.has(row.messageId)).map((row) => row.id), next };
  }

  async #run(job: Job, target: RetryTarget): Promise<void> {
    const { progress } = job;
    let announced = this.#parts.clock.now();
    // Progress held back by PROGRESS_MS is said when that time is up (a job waiting between two chunks still shows how far it is).
    let held: NodeJS.Timeout | undefined;
    const announce = (always = false) => {
      const now = this.#parts.clock.now();
      if (!always && now - announced < PROGRESS_MS) {
        held ??= setTimeout(() => {
          held = undefined;
          if (!job.cancelled) announce(true);
        }, PROGRESS_MS - (now - announced)).unref();
        return;
      }
      clearTimeout(held);
      held = undefined;
      announced = now;
      progress.total = Math.max(progress.total, progress.done);
      this.#parts.bus.emit('issues.retryProgress', { ...progress });
    };
    try {
      if (progress.state === 'counting') {
        for (let after: number | null = 0; after !== null && !job.cancelled; ) {
          const { ids, next } = this.#chunk(target, after);
          progress.total += ids.length;
          after = next;
          announce();
          await this.#pause(job);
        }
        progress.state = 'running';
        announce(true);
      }
      let first = true;
      let after: number | null = 0;
      while (after !== null && !job.cancelled) {
        const { ids, next } = this.#chunk(target, after);
        after = next;
        if (ids.length > 0) {
          const { changed } = await this.#parts.writer.write({ op: 'retryNow', deliveryIds: ids, now: this.#parts.clock.now(), reopenFailed: true });
          progress.retried += changed;
          progress.skipped += ids.length - changed;
          progress.done += ids.length;
          this.#sent(ids, first);
          first = false;
          announce();
        }
        if (after !== null) await this.#pause(job);
      }
      // Stopped as its last chunk was written: nothing was left to retry.
      progress.state = after === null ? 'finished' : 'cancelled';
    } catch (error) {
      progress.state = 'failed';
      progress.error = `the retry stopped after ${progress.done} of ${progress.total} deliveries: ${(error as Error).message}`;
    } finally {
      clearTimeout(held);
      this.#jobs.delete(progress.jobId);
      progress.total = Math.max(progress.total, progress.done);
      this.#ended = [{ ...progress }, ...this.#ended.slice(0, ENDED_KEPT - 1)];
      if (!this.#stopped) announce(true);
    }
  }

  /** A chunk set due: announced as stored, and the engine looks for due deliveries (the first chunk: its receivers get a try now). */
  #sent(ids: number[], first: boolean): void {
    const { deliveries, delivery, bus } = this.#parts;
    announceStored(deliveries, bus, ids);
    if (first) delivery.tryNow([...new Set(deliveries.byIds(ids).map((d) => d.destinationId))]);
    else delivery.kick();
  }

  /** The pause between two chunks; a stop ends it at once. */
  #pause(job: Job): Promise<void> {
    if (job.cancelled) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        job.wake = undefined;
        resolve();
      }, this.#parts.chunkPauseMs ?? CHUNK_PAUSE_MS);
      timer.unref();
      job.wake = () => {
        clearTimeout(timer);
        job.wake = undefined;
        resolve();
      };
    });
  }
}
