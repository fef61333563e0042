// RudderStack's Node SDK, unmodified and on its default options, sending through the real endpoint into a
// real SQLite file. With gzip on (its default) it posts gzipped JSON labelled
// `Content-Type: application/x-www-form-urlencoded` (and `Content-Encoding: gzip`); RudderStack's data
// plane reads that, so Sluice must too — without reading anything else under a content type it refuses.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gunzipSync, gzipSync } from 'node:zlib';
import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import { post, startCore, storedMessages, type TestCore } from '../../helpers/core.ts';

let core: TestCore;
beforeEach(async () => {
  core = await startCore();
});
afterEach(async () => {
  await core.dispose();
});

const EVENTS = 1_006;
const FORM = 'application/x-www-form-urlencoded';

/** Event `i`, cycling through the six calls, each carrying its index so the stored copy can be matched. */
function call(i: number): { method: string; args: Record<string, unknown> } {
  const who = i % 3 === 0 ? { anonymousId: `anon_${i}` } : { userId: `u_${i % 50}` };
  switch (i % 6) {
    case 0: return { method: 'identify', args: { ...who, traits: { i, plan: 'pro' } } };
    case 1: return { method: 'track', args: { ...who, event: 'Order Completed', properties: { i, revenue: i / 4 } } };
    case 2: return { method: 'page', args: { ...who, name: 'Pricing', properties: { i } } };
    case 3: return { method: 'screen', args: { ...who, name: 'Checkout', properties: { i } } };
    case 4: return { method: 'group', args: { ...who, groupId: `g_${i}`, traits: { i } } };
    default: return { method: 'alias', args: { userId: `u_${i}`, previousId: `anon_${i}`, context: { i } } };
  }
}

/** The index an event carried, wherever its call type puts it. */
function indexOf(message: Record<string, any>): number {
  return message.properties?.i ?? message.traits?.i ?? message.context.i;
}

describe('@rudderstack/rudder-sdk-node (3.x), default options', () => {
  it(`sends ${EVENTS} events of every type gzipped; each is stored exactly once, as sent`, async () => {
    const analytics = new RudderAnalytics(core.writeKey, { dataPlaneUrl: core.ingestUrl });
    const errors: unknown[] = [];
    // Each event's callback gets the request body it went out in (gzip, with gzip on): what was on the wire.
    const bodies = new Set<Buffer>();
    let done = 0;
    const allSent = new Promise<void>((resolve) => {
      const onSent = (error?: unknown, data?: unknown) => {
        if (error) errors.push(error);
        else bodies.add(data as Buffer);
        if (++done === EVENTS) resolve();
      };
      for (let i = 0; i < EVENTS; i++) {
        const { method, args } = call(i);
        (analytics as any)[method](args, onSent);
      }
    });
    // The tail under its flushAt (20) would wait for the 10 s timer.
    await analytics.flush();
    await allSent;
    expect(errors).toEqual([]);

    const sent = [...bodies].flatMap((body) => {
      expect(Buffer.isBuffer(body)).toBe(true); // gzip on by default: the body went out compressed
      return (JSON.parse(gunzipSync(body).toString('utf8')) as { batch: Record<string, unknown>[] }).batch;
    });
    expect(sent).toHaveLength(EVENTS);
    expect(bodies.size).toBeGreaterThan(EVENTS / 20); // in many requests, not one

    expect(core.messages.countByStatus()).toEqual({ accepted: EVENTS, rejected: 0, duplicate: 0 });
    const records = storedMessages(core);
    expect(records).toHaveLength(EVENTS);
    const sentById = new Map(sent.map((m) => [m.messageId as string, m]));
    expect(sentById.size).toBe(EVENTS);
    expect(new Set(records.map((r) => r.messageId)).size).toBe(EVENTS);
    const seen = new Set<number>();
    for (const record of records) {
      const wire = sentById.get(record.messageId!);
      expect(wire, `stored ${record.messageId} was not sent`).toBeDefined();
      // The raw text stored is the message as the SDK put it on the wire, ids and timestamps included.
      expect(JSON.parse(record.raw)).toEqual(wire);
      const message = record.message!;
      const i = indexOf(message);
      expect(call(i).method).toBe(message.type);
      expect(record.type).toBe(message.type);
      seen.add(i);
      expect((message.context as any).library).toEqual({ name: 'analytics-node', version: '3.0.13' });
      expect(message.channel).toBe('server');
      expect(message.originalTimestamp).toBe(wire!.originalTimestamp);
    }
    expect(seen.size).toBe(EVENTS);
    expect(records.filter((r) => r.type === 'track').every((r) => r.event === 'Order Completed')).toBe(true);
  });

  it('with gzip off (plain JSON) stores the same way', async () => {
    const analytics = new RudderAnalytics(core.writeKey, { dataPlaneUrl: core.ingestUrl, gzip: false });
    const sent = new Promise<unknown>((resolve) => analytics.track({ userId: 'u_1', event: 'Plain' }, resolve as () => void));
    await analytics.flush();
    expect(await sent).toBeUndefined(); // no error
    expect(storedMessages(core).map((r) => r.event)).toEqual(['Plain']);
  });
});

describe('event time', () => {
  it("the SDK's originalTimestamp (it sends no timestamp) is the event's time, corrected for the client's clock as Segment's timestamp is", async () => {
    const analytics = new RudderAnalytics(core.writeKey, { dataPlaneUrl: core.ingestUrl, gzip: false });
    const hourAgo = new Date(Date.now() - 3_600_000);
    const sent = new Promise<unknown>((resolve) => analytics.track({ userId: 'u_1', event: 'Late', originalTimestamp: hourAgo } as never, resolve as () => void));
    await analytics.flush();
    expect(await sent).toBeUndefined();
    const [stored] = storedMessages(core);
    const { timestamp, originalTimestamp, receivedAt } = stored!.message as { timestamp: string; originalTimestamp: string; receivedAt: string };
    expect(originalTimestamp).toBe(hourAgo.toISOString()); // kept as the SDK sent it
    // receivedAt − (sentAt − originalTimestamp): an hour before it arrived, give or take the flush.
    const offset = Date.parse(receivedAt) - Date.parse(timestamp);
    expect(offset).toBeGreaterThan(3_600_000 - 5_000);
    expect(offset).toBeLessThan(3_600_000 + 5_000);
    expect(stored!.timestamp).toBe(Date.parse(timestamp)); // the column the stream sorts and filters on
  });

  it('an originalTimestamp that is not a date is ignored: the time is when it arrived', async () => {
    const res = await post(core, '/v1/track', { userId: 'u_1', event: 'Odd', originalTimestamp: 'yesterday' });
    expect(res.status).toBe(200);
    const [stored] = storedMessages(core);
    expect((stored!.message as Record<string, string>).timestamp).toBe((stored!.message as Record<string, string>).receivedAt);
  });
});

describe('gzip whatever the Content-Type says, and nothing else', () => {
  const batch = (event: string) => JSON.stringify({ batch: [{ type: 'track', userId: 'u_1', event }] });

  it('reads gzipped JSON under another label, with or without Content-Encoding', async () => {
    const labelled = await post(core, '/v1/batch', gzipSync(batch('Labelled')), { contentType: FORM, headers: { 'content-encoding': 'gzip' } });
    expect(labelled).toMatchObject({ status: 200, json: { success: true } });
    const bare = await post(core, '/v1/batch', gzipSync(batch('Unlabelled')), { contentType: 'application/octet-stream' });
    expect(bare).toMatchObject({ status: 200, json: { success: true } });
    // gzip bytes with no Content-Encoding under a JSON label: they cannot be JSON, so they are read as gzip.
    const sniffed = await post(core, '/v1/track', gzipSync(JSON.stringify({ userId: 'u_1', event: 'Sniffed' })));
    expect(sniffed.status).toBe(200);
    expect(storedMessages(core).map((r) => r.event)).toEqual(['Labelled', 'Unlabelled', 'Sniffed']);
  });

  it.each([
    ['a real form body', () => Buffer.from('userId=u_1&event=Form'), {}],
    ['plain JSON (not gzip)', () => Buffer.from(batch('Plain')), {}],
    ['gzipped form data', () => gzipSync('userId=u_1&event=Form'), { 'content-encoding': 'gzip' }],
    ['a gzipped JSON array', () => gzipSync('[{"type":"track"}]'), {}],
    ['gzipped JSON under an encoding it cannot be', () => gzipSync(batch('Br')), { 'content-encoding': 'br' }],
  ])('refuses %s under application/x-www-form-urlencoded with 400 unsupported_content_type', async (_, body, headers) => {
    const res = await post(core, '/v1/batch', body(), { contentType: FORM, headers });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      success: false,
      error: { code: 'unsupported_content_type', message: expect.stringContaining('application/json') },
    });
    expect(res.json.error.message).toContain(FORM);
    // Nothing accepted: the refusal is stored as an entry of its own (ingest/refused-requests.ts).
    expect(core.messages.list({ limit: 10 }).map((m) => [m.status, m.rejectCode])).toEqual([['rejected', 'unsupported_content_type']]);
  });

  it('still refuses bad gzip, invalid JSON, a bomb and an unknown key under another label', async () => {
    const notGzip = await post(core, '/v1/batch', Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]), { contentType: FORM });
    expect(notGzip.status).toBe(400);
    expect(notGzip.json.error.code).toBe('invalid_encoding');
    const broken = await post(core, '/v1/batch', gzipSync('{"batch":[{"type":"track"'), { contentType: FORM });
    expect(broken.status).toBe(400);
    expect(broken.json.error.code).toBe('invalid_json');
    // 50 MB of zeros in ~50 KB: inflating stops at the request limit.
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"batch":['), Buffer.alloc(50 * 1024 * 1024, 0x20), Buffer.from(']}')]));
    expect(bomb.length).toBeLessThan(500 * 1024);
    const capped = await post(core, '/v1/batch', bomb, { contentType: FORM, headers: { 'content-encoding': 'gzip' } });
    expect(capped.status).toBe(400);
    expect(capped.json.error).toEqual({ code: 'request_too_large', message: expect.stringContaining('after decompression') });
    const unknownKey = await post(core, '/v1/batch', gzipSync(batch('Key')), { contentType: FORM, writeKey: 'wk_nope' });
    expect(unknownKey.status).toBe(401);
    expect(unknownKey.json.error.code).toBe('invalid_write_key');
    // Nothing accepted: each refusal is an entry of its own (ingest/refused-requests.ts); under this label
    // the key is looked up only once the body reads as gzipped JSON, so only the JSON error names its source.
    const entries = core.messages.list({ limit: 10 }).reverse();
    expect(entries.map((m) => [m.status, m.rejectCode, m.sourceId])).toEqual([
      ['rejected', 'invalid_encoding', 0],
      ['rejected', 'invalid_json', 1],
      ['rejected', 'request_too_large', 0],
      ['rejected', 'invalid_write_key', 0],
    ]);
  });
});
