// The question a clear asks first ("Remove 12,345 messages …?") counts in the counting thread
// (store/message-counter.ts), not in the core's: counting a filter's set may read every message, and
// meanwhile nothing else was answered. Real core, real SQLite file, the contract's handlers.
import fs from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { openDatabase } from '../../../electron/core/store/database.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

const config = parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }] }));

async function start(dataDir: string): Promise<TestCore> {
  const core = await startCore({ config, dataDir });
  open.push({ close: () => core.close() });
  return Object.assign(core, { writeKey: 'wk_web' });
}

function folder(): string {
  const dir = tempDir('sluice-clear-count-');
  open.unshift({ close: async () => fs.rmSync(dir, { recursive: true, force: true }) });
  return dir;
}

interface Sent {
  source: 'web' | 'ios';
  type: string;
  event?: string;
  userId: string;
  messageId: string;
  properties: { total: number };
}
const messages = (n: number, source: Sent['source'], prefix: string): Sent[] =>
  Array.from({ length: n }, (_, i) => ({
    source,
    type: i % 5 === 0 ? 'identify' : 'track',
    ...(i % 5 === 0 ? {} : { event: `E${i % 3}` }),
    userId: `${prefix}${i % 7}`,
    messageId: `${prefix}-${i}`,
    properties: { total: i },
  }));

it('counts what a clear of everything, one source or a filter would remove, and the clear removes that many', async () => {
  const core = await start(folder());
  const sent = [...messages(120, 'web', 'w'), ...messages(80, 'ios', 'i')];
  const body = (source: Sent['source']) => ({ batch: sent.filter((m) => m.source === source).map(({ source: _, ...m }) => m) });
  expect((await post(core, '/v1/batch', body('web'))).status).toBe(200);
  expect((await post(core, '/v1/batch', body('ios'), { writeKey: 'wk_ios' })).status).toBe(200);
  const handlers = createHandlers(core);
  const ios = core.sources.byName('ios')!.id;
  const dry = async (scope: object) => (await callOk(handlers, 'storage.clear', { scope, dryRun: true })).messages;
  const among = (keep: (m: Sent) => boolean) => sent.filter(keep).length;

  expect(await callOk(handlers, 'storage.clear', { scope: { all: true }, dryRun: true })).toEqual({ messages: 200, deliveries: 0, attempts: 0, bytesFreed: 0, dryRun: true });
  expect(await dry({ sourceId: ios })).toBe(80);
  expect(await dry({ filter: { event: 'E1' } })).toBe(among((m) => m.event === 'E1'));
  expect(await dry({ filter: { sourceId: ios, userId: 'i3' } })).toBe(among((m) => m.source === 'ios' && m.userId === 'i3'));
  // A search among the filters; an empty event or userId is no filter (as the clear itself reads them).
  const searched = { type: 'track', search: 'properties.total:>=100' };
  expect(await dry({ filter: searched })).toBe(among((m) => m.type === 'track' && m.properties.total >= 100));
  expect(await dry({ filter: { event: '', userId: '', type: 'identify' } })).toBe(among((m) => m.type === 'identify'));
  expect(among((m) => m.type === 'identify')).toBe(40);

  // The clear removes what the question said, and the next question counts what is left.
  const asked = await dry({ filter: searched });
  expect(asked).toBe(16);
  expect((await callOk(handlers, 'storage.clear', { scope: { filter: searched } })).messages).toBe(asked);
  expect(await dry({ filter: searched })).toBe(0);
  expect(await dry({ sourceId: ios })).toBe(80);
  expect((await callOk(handlers, 'storage.clear', { scope: { sourceId: ios } })).messages).toBe(80);
  expect(await dry({ all: true })).toBe(200 - 16 - 80);

  // A search that does not parse is refused with its problem (by the request's schema), not counted.
  const bad = await invoke(handlers, 'storage.clear', { scope: { filter: { search: 'propertys.total:1' } }, dryRun: true });
  expect(bad.ok ? 'ok' : bad.error.code).toBe('invalid_request');
  if (!bad.ok) expect(bad.error.message).toMatch(/unknown field "propertys.total"/);
});

it('answers other calls while it counts a big store', async () => {
  const dataDir = folder();
  const first = await start(dataDir);
  const web = first.sources.byName('web')!.id;
  await open.pop()!.close();
  // 300,000 messages written straight into the file: a count of a payload field reads every one.
  const db = openDatabase(dataDir);
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
    INSERT INTO messages (source_id, message_id, type, status, user_id, event, received_at, raw)
    SELECT ${web}, 'm' || i, 'track', 'accepted', 'u' || (i % 100), 'Order', 1700000000000 + i,
      json_object('type', 'track', 'event', 'Order', 'userId', 'u' || (i % 100), 'messageId', 'm' || i, 'properties', json_object('total', i))
    FROM n`);
  db.close();

  const core = await start(dataDir);
  const handlers = createHandlers(core);
  const answered: string[] = [];
  const counting = invoke(handlers, 'storage.clear', { scope: { filter: { search: 'properties.total:>=1000' } }, dryRun: true }).then((result) => {
    answered.push('count');
    return result;
  });
  // Asked once the count has begun: a count in the core's own thread finished before this could run.
  await new Promise((resolve) => setImmediate(resolve));
  const page = await callOk(handlers, 'messages.list', { limit: 3 });
  answered.push('list');
  expect(page.messages.map((m) => m.messageId)).toEqual(['m300000', 'm299999', 'm299998']);
  const count = await counting;
  expect(count.ok && (count.value as { messages: number }).messages).toBe(299_001);
  expect(answered).toEqual(['list', 'count']);
});
