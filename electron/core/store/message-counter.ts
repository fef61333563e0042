// The main thread's side of the counting thread (count-worker.ts): started on first use, one job at
// a time. A job waiting behind a running one is answered "superseded" when a newer job of its lane
// comes (the inspector's footer asks again at each keystroke: only the last filter's count matters).
// Lanes keep apart the questions that must not answer for each other: the footer's counts, the
// positions of jumped pages, offsets and times.
import { Worker } from 'node:worker_threads';
import { OperationError } from '../operation-error.ts';
import { workerExecArgv } from '../worker-options.ts';
import type { CountQuery } from './message-counts.ts';
import type { FacetQuery } from './message-facets.ts';
import type { MessageCounts } from '../../../shared/channels/messages.ts';
import type { FacetsView, TimelineView } from '../../../shared/channels/facets.ts';
import type { IndexHint } from './message-query-sql.ts';
import type { DestinationFunnel } from '../../../shared/channels/overview.ts';
import type { StoreStats } from './store-stats.ts';

/** Ids of the messages (or deliveries) after `afterId` that meet SQL terms and a search, as the repos' idsAfter read them. */
export interface IdsQuery {
  of: 'messages' | 'deliveries';
  terms: { where: string[]; params: (string | number)[]; index?: IndexHint; byId?: boolean };
  search: string | undefined;
  /** The cursor: ids above it (oldest first), or with `newestFirst` below it (0: from the newest; messages only). */
  afterId: number;
  limit: number;
  newestFirst?: boolean;
}

type IdsReader = (terms: IdsQuery['terms'], search: string | undefined, afterId: number, limit: number, order?: 'asc' | 'desc') => number[];

/** The ids an IdsQuery asks, read by the repos' idsAfter (on the core's thread or the counting thread). */
export function idsOf(repos: { messages: { idsAfter: IdsReader }; deliveries: { idsAfter: IdsReader } }, query: IdsQuery): number[] {
  const { of, terms, search, afterId, limit, newestFirst } = query;
  if (of === 'deliveries' && newestFirst) throw new Error('deliveries are read oldest first only');
  return repos[of].idsAfter(terms, search, afterId, limit, newestFirst ? 'desc' : 'asc');
}

export type CountJob =
  | { id: number; kind: 'count'; query: CountQuery }
  | { id: number; kind: 'ids'; query: IdsQuery }
  | { id: number; kind: 'stats' }
  | { id: number; kind: 'funnels'; from: number | null; to: number }
  | { id: number; kind: 'facets'; query: FacetQuery }
  | { id: number; kind: 'timeline'; query: CountQuery }
  | { id: number; kind: 'offset'; query: CountQuery; offset: number }
  | { id: number; kind: 'time'; at: number };
export type CountReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

type Job = CountJob extends infer J ? (J extends CountJob ? Omit<J, 'id'> : never) : never;
interface Waiting {
  job: CountJob;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class MessageCounter {
  readonly #file: string;
  #worker: Worker | null = null;
  #running: Waiting | null = null;
  readonly #waiting = new Map<string, Waiting>();
  #ids = 0;
  #closed = false;

  constructor(file: string) {
    this.#file = file;
  }

  /** `lane`: what the count is for (a newer count of the same lane supersedes one waiting). */
  count(query: CountQuery, lane = 'count'): Promise<MessageCounts> {
    return this.#run({ kind: 'count', query }, lane) as Promise<MessageCounts>;
  }

  /** The `beforeId` to list the match at `offset` (newest first) from; null past the last. */
  offset(query: CountQuery, offset: number): Promise<number | null> {
    return this.#run({ kind: 'offset', query, offset }, 'offset') as Promise<number | null>;
  }

  /** The `beforeId` to list from the newest message received at or before `at`; null before the first. */
  atTime(at: number): Promise<number | null> {
    return this.#run({ kind: 'time', at }, 'time') as Promise<number | null>;
  }

  /** Ids as MessagesRepo/DeliveriesRepo idsAfter give them; `lane`: whose question (a wait's, a page's). */
  ids(query: IdsQuery, lane: string): Promise<number[]> {
    return this.#run({ kind: 'ids', query }, lane) as Promise<number[]>;
  }

  /** The delivery overview's funnels (store/delivery-funnel.ts) of the deliveries made from `from` (null: the first) to `to`. */
  funnels(from: number | null, to: number): Promise<DestinationFunnel[]> {
    return this.#run({ kind: 'funnels', from, to }, 'funnels') as Promise<DestinationFunnel[]>;
  }

  /** The facets of the matches (store/message-facets.ts); a newer ask supersedes one waiting. */
  facets(query: FacetQuery): Promise<FacetsView> {
    return this.#run({ kind: 'facets', query }, 'facets') as Promise<FacetsView>;
  }

  /** The matches over time (store/message-facets.ts); a newer ask supersedes one waiting. */
  timeline(query: CountQuery): Promise<TimelineView | null> {
    return this.#run({ kind: 'timeline', query }, 'timeline') as Promise<TimelineView | null>;
  }

  stats(): Promise<StoreStats> {
    return this.#run({ kind: 'stats' }, `stats:${this.#ids + 1}`) as Promise<StoreStats>;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = null;
    const gone = new OperationError('unavailable', 'Sluice is stopping');
    this.#running?.reject(gone);
    for (const waiting of this.#waiting.values()) waiting.reject(gone);
    this.#running = null;
    this.#waiting.clear();
    await worker?.terminate();
  }

  #run(job: Job, lane: string): Promise<unknown> {
    if (this.#closed) return Promise.reject(new OperationError('unavailable', 'Sluice is stopping'));
    return new Promise((resolve, reject) => {
      const full = { ...job, id: ++this.#ids } as CountJob;
      this.#waiting.get(lane)?.reject(new OperationError('superseded', 'a newer question of the same kind was asked'));
      // Re-inserted: the lanes take turns in the order their latest question came.
      this.#waiting.delete(lane);
      this.#waiting.set(lane, { job: full, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#running || this.#closed) return;
    const [lane, waiting] = this.#waiting.entries().next().value ?? [];
    if (!lane || !waiting) return;
    this.#waiting.delete(lane);
    this.#running = waiting;
    this.#spawn().postMessage(waiting.job);
  }

  #spawn(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('../count-worker.ts', import.meta.url), { workerData: { file: this.#file }, ...workerExecArgv() });
    worker.unref();
    worker.on('message', (reply: CountReply) => {
      const running = this.#running;
      this.#running = null;
      if (running && running.job.id === reply.id) {
        if (reply.ok) running.resolve(reply.value);
        else running.reject(new OperationError('count_failed', `${failed(running.job)}: ${reply.message}`));
      }
      this.#next();
    });
    // A thread that dies (out of memory, a bug) fails its job; the next job starts a new one.
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = null;
      const running = this.#running;
      this.#running = null;
      if (running) running.reject(new OperationError('count_failed', `${failed(running.job)}: ${error.message}`));
      this.#next();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.#worker === worker && !this.#closed) fail(new Error(`the counting thread stopped (exit code ${code})`));
    });
    this.#worker = worker;
    return worker;
  }
}

/** What a job that failed could not do, for its sentence. */
function failed(job: CountJob): string {
  return job.kind === 'ids' ? 'could not read the stored messages'
    : job.kind === 'stats' ? 'could not count the stored messages and deliveries'
    : job.kind === 'funnels' ? 'could not count the deliveries of the overview'
    : job.kind === 'facets' ? 'could not count the facets'
    : job.kind === 'timeline' ? 'could not count the timeline'
    : 'could not count the messages';
}
