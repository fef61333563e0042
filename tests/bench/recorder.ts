// The "raw loop + recording" references' recording (delivery and forward benchmarks): each request's
// results committed as Sluice's store writer commits them — in groups of up to 256 or every 5 ms, by a
// thread of its own (record-worker.ts) — into the Sluice store in `dataDir`.
import { Worker } from 'node:worker_threads';
import type { DeliveryResult } from '../../electron/core/store/delivery-types.ts';
import { toColumns } from '../../electron/core/writer/result-columns.ts';

export interface Recorder {
  /** Resolves once the thread has opened the store (not part of what a benchmark times: Sluice's writer is up before its clock starts too). */
  ready: Promise<void>;
  add(result: DeliveryResult): void;
  /** Commits what is left and waits until every group is durable. */
  drain(): Promise<void>;
  /** Stops the thread (after drain; not part of what a benchmark times). */
  close(): Promise<void>;
}

export function startRecorder(dataDir: string): Recorder {
  const worker = new Worker(new URL('./record-worker.ts', import.meta.url), { workerData: { dataDir } });
  const committed = new Map<number, () => void>();
  const ready = new Promise<void>((resolve) => worker.on('message', (message) => message === 'ready' && resolve()));
  worker.on('message', (id: number) => committed.get(id)?.());
  const commits: Promise<void>[] = [];
  let group: DeliveryResult[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const id = commits.length;
    commits.push(new Promise((resolve) => committed.set(id, resolve)));
    worker.postMessage({ id, columns: toColumns(group) });
    group = [];
  };
  return {
    ready,
    add(result) {
      group.push(result);
      if (group.length >= 256) flush();
      else timer ??= setTimeout(flush, 5);
    },
    async drain() {
      if (group.length > 0) flush();
      await Promise.all(commits);
    },
    async close() {
      const closed = new Promise((resolve) => worker.on('message', (message) => message === 'closed' && resolve(undefined)));
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  };
}
