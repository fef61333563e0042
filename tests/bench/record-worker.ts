// The delivery benchmark's recording thread for its "raw loop + recording" reference: commits each
// group of results as Sluice's store writer does (one transaction, a savepoint per group, the same
// statements), and answers once it is durable.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../electron/core/store/database.ts';
import { deliveryResultRecorder } from '../../electron/core/store/delivery-results.ts';
import { fromColumns, type ResultColumns } from '../../electron/core/writer/result-columns.ts';

const db = openDatabase((workerData as { dataDir: string }).dataDir);
const record = deliveryResultRecorder(db);
const savepoint = db.prepare('SAVEPOINT unit');
const release = db.prepare('RELEASE unit');
parentPort!.postMessage('ready');

parentPort!.on('message', (message: { id: number; columns: ResultColumns } | 'close') => {
  if (message === 'close') {
    db.close();
    parentPort!.postMessage('closed');
    return;
  }
  const results = fromColumns(message.columns);
  db.exec('BEGIN IMMEDIATE');
  savepoint.run();
  const now = Date.now();
  record.record(results, now);
  release.run();
  db.exec('COMMIT');
  parentPort!.postMessage(message.id);
});
