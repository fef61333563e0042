// Starts a real core (real SQLite file in a fresh temp folder, ingestion on 127.0.0.1:0) for a test.
import fs from 'node:fs';
import { request } from 'undici';
import { gzipSync } from 'node:zlib';
import { createCore, type Core, type CoreOptions } from '../../electron/core/index.ts';
import type { StoredMessage } from '../../electron/core/store/messages-repo.ts';
import { tempDir } from './temp-dirs.ts';

export { tempDir };

export interface TestCore extends Core {
  writeKey: string;
  /** Removes the data folder too. */
  dispose(): Promise<void>;
}

export async function startCore(options: Partial<CoreOptions> = {}): Promise<TestCore> {
  const dataDir = options.dataDir ?? tempDir();
  const core = await createCore({ ingestPort: 0, receiverPort: 0, ...options, dataDir });
  const writeKey = core.sources.list()[0]!.writeKey;
  return Object.assign(core, {
    writeKey,
    async dispose() {
      await core.close();
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

export function basicAuth(writeKey: string): string {
  return `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
}

export interface PostOptions {
  writeKey?: string | null;
  contentType?: string | null;
  gzip?: boolean;
  headers?: Record<string, string>;
}

/** POSTs to the ingestion endpoint; `body` is JSON-encoded unless it is already a string or Buffer. */
export async function post(
  core: { ingestUrl: string; writeKey: string },
  pathname: string,
  body: unknown,
  options: PostOptions = {},
): Promise<{ status: number; json: any; headers: Record<string, string | string[] | undefined> }> {
  let payload: string | Buffer = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const headers: Record<string, string> = { ...options.headers };
  const writeKey = options.writeKey === undefined ? core.writeKey : options.writeKey;
  if (writeKey !== null) headers.authorization = basicAuth(writeKey);
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  if (options.gzip) {
    payload = gzipSync(payload);
    headers['content-encoding'] = 'gzip';
  }
  const res = await request(`${core.ingestUrl}${pathname}`, { method: 'POST', headers, body: payload });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Resolves with the messages once `count` have been announced on the bus (or rejects after `ms`). */
export function waitForStored(core: Core, count: number, ms = 10_000): Promise<StoredMessage[]> {
  const ids: number[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`only ${ids.length} of ${count} messages were stored within ${ms} ms`));
    }, ms);
    const off = core.bus.on('messages.stored', (committed) => {
      for (const request of committed) ids.push(...request.ids);
      if (ids.length >= count) {
        clearTimeout(timer);
        off();
        resolve(core.messages.byIds(ids));
      }
    });
  });
}

/** The messages stored so far (accepted ones unless told), oldest first, with their payloads. */
export function storedMessages(core: Core, status: StoredMessage['status'] | 'all' = 'accepted') {
  return core.messages
    .list({ limit: 10_000, ...(status === 'all' ? {} : { status }) })
    .reverse()
    .map((m) => core.messages.get(m.id)!);
}
