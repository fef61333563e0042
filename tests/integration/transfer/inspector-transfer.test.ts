// The inspector's download (messages.export) and drop (messages.import), on real cores: what one
// relay exports another takes in through its own ingestion endpoint, message for message.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openReadOnly } from '../../../electron/core/store/connection.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { exportForDownload } from '../../../electron/core/transfer/inspector-transfer.ts';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { post, startCore, storedMessages, type TestCore } from '../../helpers/core.ts';
import { startReceiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function start(withHook?: string): Promise<TestCore> {
  const config = parseConfig(
    JSON.stringify({
      sources: [{ name: 'web', writeKey: 'wk_web' }],
      destinations: withHook ? [{ name: 'hooks', sources: ['web'], webhooks: [{ url: withHook, headers: { 'X-Api-Key': 'k_s3cret', 'X-Env': 'dev' } }] }] : [],
    }),
  );
  const core = await startCore({ config });
  open.push({ close: () => core.dispose() });
  return Object.assign(core, { writeKey: 'wk_web' });
}

describe('inspector export and import', () => {
  it('downloads the filter set as NDJSON, and a drop of it into another relay stores the same messages', async () => {
    const a = await start();
    await post(a, '/v1/batch', {
      context: { app: { version: '2.1' } },
      batch: [
        { type: 'track', event: 'Order Completed', userId: 'u1', messageId: 'm1', properties: { total: 5 } },
        { type: 'identify', userId: 'u1', messageId: 'm2', traits: { plan: 'pro' } },
        { type: 'track', event: 'Order Completed', userId: 'u2', messageId: 'm3', properties: { total: 7 } },
      ],
    });
    const download = await a.operations['messages.export']({ filter: { event: 'Order Completed' }, format: 'ndjson' });
    expect(download).toMatchObject({ messages: 2, truncated: false, mimeType: 'application/x-ndjson' });
    expect(download.fileName).toMatch(/^sluice-.*\.ndjson$/);
    const lines = download.text.trim().split('\n').map((l) => JSON.parse(l) as { message: Record<string, unknown>; messageId: string });
    expect(lines.map((l) => l.messageId)).toEqual(['m1', 'm3']);
    expect(lines[0]!.message).toMatchObject({ event: 'Order Completed', context: { app: { version: '2.1' } } }); // the batch's context carried

    const b = await start();
    const bad = '{"type": "track", "userId": "u9"}\nnot json\n';
    const outcome = await b.operations['messages.import']({ sourceId: b.sources.byName('web')!.id, fileName: 'drop.ndjson', text: download.text + bad });
    expect(outcome).toMatchObject({ format: 'ndjson', sent: 3, accepted: 2 });
    expect(outcome.refused).toEqual([{ line: 3, reason: expect.stringContaining('missing_event') }]);
    expect(outcome.unreadable).toEqual([{ line: 4, reason: expect.stringContaining('not JSON') }]);
    const stored = storedMessages(b);
    expect(stored.map((m) => m.messageId)).toEqual(['m1', 'm3']);
    expect(stored.map((m) => m.message)).toMatchObject(lines.map((l) => l.message));
  });

  it('counts every unreadable line, says what it did not send and why, and keeps what the export says was refused apart', async () => {
    const a = await start();
    await post(a, '/v1/batch', { batch: [{ type: 'track', event: 'Kept', userId: 'u1', messageId: 'k1' }, { type: 'track', userId: 'u1', messageId: 'bad-1' }] });
    const exported = (await a.operations['messages.export']({ filter: {}, format: 'ndjson' })).text;
    // An export's line for a message Sluice made itself (a Violation Generated event's, say).
    const made = JSON.stringify({ message: { type: 'track', event: 'Violation Generated', messageId: 'v1' }, id: 9, messageId: 'v1', source: 'web', type: 'track', event: 'Violation Generated', status: 'accepted', origin: 'plan', receivedAt: new Date().toISOString(), timestamp: null, rejection: null, violations: [], blocked: null });
    const noise = Array.from({ length: 30 }, (_, i) => `not json ${i}`).join('\n');
    const b = await start();
    const outcome = await b.operations['messages.import']({ sourceId: b.sources.byName('web')!.id, fileName: 'drop.ndjson', text: `${exported}${made}\n${noise}\n` });
    expect(outcome).toMatchObject({ sent: 2, accepted: 1, refusedCount: 0, refused: [], refusedAgain: 1, unreadableCount: 30, skipped: [{ reason: 'sluice-made', count: 1 }] });
    // The first 20 listed, with their lines (the export's 2, the made one, then the noise from line 4).
    expect(outcome.unreadable).toHaveLength(20);
    expect(outcome.unreadable[0]).toEqual({ line: 4, reason: expect.stringContaining('not JSON') });
    expect(storedMessages(b).map((m) => m.messageId)).toEqual(['k1']);
  });

  it('answers ingestion while a download is built, and cuts a download at its size as at its count', async () => {
    const a = await start();
    for (let b = 0; b < 40; b++) {
      const batch = Array.from({ length: 500 }, (_, i) => ({ type: 'track', event: 'Filled', userId: `u${i}`, messageId: `f-${b}-${i}`, properties: { n: i } }));
      expect((await post(a, '/v1/batch', { batch })).status).toBe(200);
    }
    let built = false;
    const download = Promise.resolve(a.operations['messages.export']({ filter: {}, format: 'ndjson' })).then((d) => ((built = true), d));
    // The download reads 20,000 messages a page at a time; a track sent as it starts is answered before it ends.
    expect((await post(a, '/v1/track', { event: 'Meanwhile', userId: 'u', messageId: 'meanwhile' })).status).toBe(200);
    expect(built).toBe(false);
    expect(await download).toMatchObject({ messages: 20_000, truncated: false }); // up to the newest message when it started
    // Cut at the count, and at the size: each whole line or none, and said so.
    const db = openReadOnly(path.join(a.dataDir, DATABASE_FILE));
    open.push({ close: async () => db.close() });
    const byCount = await exportForDownload(db, {}, 'ndjson', Date.now(), { messages: 3, chars: 1e9 });
    expect(byCount).toMatchObject({ messages: 3, truncated: true });
    const line = byCount.text.split('\n')[0]!;
    const bySize = await exportForDownload(db, {}, 'ndjson', Date.now(), { messages: 100, chars: line.length * 2 + 10 });
    expect(bySize).toMatchObject({ messages: 2, truncated: true });
    expect(bySize.text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { messageId: string }).messageId)).toEqual(['f-0-0', 'f-0-1']);
  }, 60_000);

  it("downloads a filter set's webhook attempts as HAR 1.2, which a drop reads back", async () => {
    const hooks = await startReceiver();
    open.push(hooks);
    const a = await start(hooks.url);
    await post(a, '/v1/track', { event: 'Signed Up', userId: 'u1', messageId: 's1' });
    await hooks.waitFor(1);
    // The attempt's record follows the answer (the engine hands results to the writer in groups): wait
    // for the delivery's result, committed with its attempt, rather than a fixed pause.
    await until(() => storedMessages(a).every((m) => a.deliveries.forMessage(m.id)[0]?.status === 'delivered'), 10_000, 'the delivery recorded');
    const har = await a.operations['messages.export']({ filter: { event: 'Signed Up' }, format: 'har' });
    const doc = JSON.parse(har.text) as { log: { version: string; entries: { request: { method: string; url: string; postData: { text: string } }; response: { status: number } }[] } };
    expect(doc.log.version).toBe('1.2');
    expect(doc.log.entries).toHaveLength(1);
    expect(doc.log.entries[0]).toMatchObject({ request: { method: 'POST', url: hooks.url }, response: { status: 200 } });
    expect(JSON.parse(doc.log.entries[0]!.request.postData.text)).toMatchObject({ event: 'Signed Up' });
    // Made to be shared: a header that carries a credential is left out, the others kept.
    expect(har.text).not.toContain('k_s3cret');
    const headers = (doc.log.entries[0]!.request as unknown as { headers: { name: string; value: string }[] }).headers;
    expect(headers).toContainEqual({ name: 'X-Api-Key', value: '[redacted by Sluice]' });
    expect(headers).toContainEqual({ name: 'X-Env', value: 'dev' });
    // Not Tracking API calls (webhook POSTs): a drop of it sends nothing, and says it read a HAR.
    const b = await start();
    expect(await b.operations['messages.import']({ sourceId: b.sources.byName('web')!.id, fileName: 'hooks.har', text: JSON.stringify(doc, null, 2) })).toMatchObject({ format: 'har', sent: 0 });
  });
});
