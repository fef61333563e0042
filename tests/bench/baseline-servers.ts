// The two baselines the ingestion benchmark is measured against, run in the same process and run.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  url: string;
  storedCount(): number;
  close(): Promise<void>;
}

function readAll(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** (a) The HTTP ceiling: read the body, JSON.parse it, answer. */
export async function startBareServer(): Promise<RunningServer> {
  let count = 0;
  const server = http.createServer(async (req, res) => {
    const body = JSON.parse(await readAll(req)) as { batch: unknown[] };
    count += body.batch.length;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
  });
  const url = await listen(server);
  return { url, storedCount: () => count, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * (b) The obvious storage: one transaction per request, one indexed row per event.
 * `pragmas` "defaults" is SQLite as it comes (rollback journal, synchronous=FULL: each commit is
 * fsynced); "wal" gives it Sluice's own setting (WAL, synchronous=NORMAL), the same durability promise.
 */
export async function startNaiveSqliteServer(dir: string, pragmas: 'defaults' | 'wal'): Promise<RunningServer> {
  fs.mkdirSync(dir, { recursive: true });
  const db = new DatabaseSync(path.join(dir, 'naive.db'));
  if (pragmas === 'wal') db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  db.exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY, message_id TEXT, type TEXT, user_id TEXT, received_at INTEGER, json TEXT);
    CREATE INDEX messages_message_id ON messages (message_id);`);
  const insert = db.prepare('INSERT INTO messages (message_id, type, user_id, received_at, json) VALUES (?, ?, ?, ?, ?)');
  const server = http.createServer(async (req, res) => {
    const body = JSON.parse(await readAll(req)) as { batch: Record<string, string>[] };
    const now = Date.now();
    db.exec('BEGIN');
    for (const event of body.batch) insert.run(event.messageId!, event.type!, event.userId!, now, JSON.stringify(event));
    db.exec('COMMIT');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
  });
  const url = await listen(server);
  return {
    url,
    storedCount: () => Number((db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n),
    close: () =>
      new Promise((r) =>
        server.close(() => {
          db.close();
          r();
        }),
      ),
  };
}
