// The stream's counts and positions (store/message-counts.ts), in a thread of their own: counting the
// messages a filter on a payload field matches may read a million rows, which would hold the core's
// thread (and every request it serves) for seconds. A read-only connection, one question at a time;
// the main thread's side is store/message-counter.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { deliveryFunnels } from './store/delivery-funnel.ts';
import { countMessages, idAtTime, matchAt } from './store/message-counts.ts';
import { exactTimeline, messageFacets, messageTimeline, timeOnly } from './store/message-facets.ts';
import type { CountJob, CountReply } from './store/message-counter.ts';
import { openReadOnly } from './store/connection.ts';
import { DeliveriesRepo } from './store/deliveries-repo.ts';
import { MessagesRepo } from './store/messages-repo.ts';
import { idsOf, type IdsQuery } from './store/message-counter.ts';
import { storeStats } from './store/store-stats.ts';

const { file } = workerData as { file: string };
const port = parentPort!;
const db = openReadOnly(file);
let repos: { messages: MessagesRepo; deliveries: DeliveriesRepo } | undefined;

/** A page of ids for a wait or a list of the core's (queries/store-reader.ts), read here once the store is large. */
function ids(query: IdsQuery): number[] {
  repos ??= { messages: new MessagesRepo(db), deliveries: new DeliveriesRepo(db) };
  return idsOf(repos, query);
}

port.on('message', (job: CountJob) => {
  let reply: CountReply;
  try {
    const value =
      job.kind === 'count' ? countMessages(db, job.query)
      : job.kind === 'offset' ? matchAt(db, job.query, job.offset)
      : job.kind === 'ids' ? ids(job.query)
      : job.kind === 'stats' ? storeStats(db)
      : job.kind === 'funnels' ? deliveryFunnels(db, job.from, job.to)
      : job.kind === 'facets' ? messageFacets(db, job.query)
      : job.kind === 'timeline' ? (timeOnly(job.query) ? exactTimeline(db, job.query) : messageTimeline(db, job.query))
      : idAtTime(db, job.at);
    reply = { id: job.id, ok: true, value };
  } catch (error) {
    reply = { id: job.id, ok: false, message: (error as Error).message };
  }
  port.postMessage(reply);
});
