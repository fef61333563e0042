// The ingestion endpoint against its contract (DESIGN.md §5.9): real server on 127.0.0.1:0, real SQLite.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { gzipSync, deflateSync } from 'node:zlib';
import { basicAuth, post, startCore, storedMessages, tempDir, waitForStored, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore;
beforeEach(async () => {
  core = await startCore();
});
afterEach(async () => {
  await core?.dispose();
});

const track = (extra: Record<string, unknown> = {}) => ({ type: 'track', userId: 'u1', event: 'Signed Up', ...extra });

describe('write key', () => {
  it('accepts the key as the Basic auth username', async () => {
    const res = await post(core, '/v1/track', { userId: 'u1', event: 'A' });
    expect(res).toMatchObject({ status: 200, json: { success: true } });
  });

  it('accepts the key as "writeKey" in the body, and keeps it out of the stored message', async () => {
    const res = await post(core, '/v1/track', { userId: 'u1', event: 'A', writeKey: core.writeKey }, { writeKey: null });
    expect(res.status).toBe(200);
    const [record] = storedMessages(core);
    expect(record!.message).not.toHaveProperty('writeKey');
    expect(JSON.parse(record!.raw)).toEqual({ userId: 'u1', event: 'A' });
  });

  it.each([
    ['missing', null, 'missing_write_key'],
    ['unknown', 'wk_nope', 'invalid_write_key'],
  ])('answers 401 for a %s key and stores nothing but the refusal', async (_, writeKey, code) => {
    const res = await post(core, '/v1/track', { userId: 'u1', event: 'A' }, { writeKey });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ success: false, error: { code, message: expect.any(String) } });
    // The refusal is an entry of its own, under no source (ingest/refused-requests.ts); nothing is accepted.
    const [entry] = await until(() => (core.messages.list().length > 0 ? core.messages.list() : undefined));
    expect(entry).toMatchObject({ status: 'rejected', rejectCode: code, sourceId: 0, event: null, userId: null });
    expect(core.messages.list()).toHaveLength(1);
  });

  it('answers 401 for an Authorization header that is not Basic', async () => {
    const res = await post(core, '/v1/track', { userId: 'u1', event: 'A' }, { writeKey: null, headers: { authorization: 'Bearer x' } });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_authorization');
  });
});

describe('endpoints', () => {
  it.each([
    ['identify', 'i', { userId: 'u1', traits: { a: 1 } }],
    ['track', 't', { userId: 'u1', event: 'E' }],
    ['page', 'p', { anonymousId: 'a1', name: 'Home' }],
    ['screen', 's', { userId: 'u1', name: 'Main' }],
    ['group', 'g', { userId: 'u1', groupId: 'g1' }],
    ['alias', 'a', { userId: 'u1', previousId: 'a1' }],
  ])('/v1/%s and /v1/%s store a message of that type', async (type, short, body) => {
    expect((await post(core, `/v1/${type}`, body)).status).toBe(200);
    // The short path is what analytics.js posts to, as text/plain.
    expect((await post(core, `/v1/${short}`, body, { contentType: 'text/plain' })).status).toBe(200);
    const records = storedMessages(core);
    expect(records.map((r) => r.type)).toEqual([type, type]);
    expect(records[0]!.message).toMatchObject({ ...body, type });
  });

  it('/v1/import takes a batch like /v1/batch', async () => {
    const res = await post(core, '/v1/import', { batch: [track(), track({ event: 'B' })] });
    expect(res.status).toBe(200);
    expect(storedMessages(core).map((r) => r.event)).toEqual(['Signed Up', 'B']);
  });

  it("/v1/b takes a batch (analytics.js's batching strategy posts there, the write key in the body)", async () => {
    const res = await post(core, '/v1/b', { writeKey: core.writeKey, batch: [track(), track({ event: 'B' })], sentAt: new Date().toISOString() }, { writeKey: null, contentType: 'text/plain' });
    expect(res.status).toBe(200);
    expect(storedMessages(core).map((r) => r.event)).toEqual(['Signed Up', 'B']);
  });

  it('the path decides the type of a single message', async () => {
    await post(core, '/v1/page', { type: 'track', anonymousId: 'a', name: 'Home' });
    expect(storedMessages(core)[0]!.message!.type).toBe('page');
  });

  it('unknown paths answer 404 and wrong methods 405, as JSON', async () => {
    const notFound = await post(core, '/v1/nope', {});
    expect(notFound.status).toBe(404);
    expect(notFound.json.error.code).toBe('not_found');
    const res = await request(`${core.ingestUrl}/v1/track`);
    expect(res.statusCode).toBe(405);
    expect(((await res.body.json()) as any).error.code).toBe('method_not_allowed');
  });
});

describe('validation', () => {
  it.each([
    ['track', { event: 'E' }, 'missing_user'],
    ['track', { userId: 'u1' }, 'missing_event'],
    ['track', { userId: 'u1', event: '' }, 'missing_event'],
    ['group', { userId: 'u1' }, 'missing_group_id'],
    ['alias', { userId: 'u1' }, 'missing_previous_id'],
    ['identify', { userId: 'u1', traits: ['not', 'an', 'object'] }, 'invalid_field'],
    ['track', { userId: 'u1', event: 'E', properties: 'x' }, 'invalid_field'],
    ['track', { userId: 'u1', event: 'E', timestamp: 'yesterday' }, 'invalid_timestamp'],
    ['identify', { userId: { id: 1 } }, 'invalid_field'],
  ])('%s %j → 400 %s, stored as rejected with the reason', async (type, body, code) => {
    const res = await post(core, `/v1/${type}`, body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ success: false, error: { code, message: expect.any(String) } });
    const [rejected] = storedMessages(core, 'rejected');
    expect(rejected).toMatchObject({ status: 'rejected', rejectCode: code, rejectReason: res.json.error.message });
    expect(JSON.parse(rejected!.raw)).toMatchObject(body);
    expect(core.messages.countByStatus().accepted).toBe(0);
  });

  it('accepts a null userId with an anonymousId (what analytics.js sends)', async () => {
    expect((await post(core, '/v1/t', { userId: null, anonymousId: 'a', event: 'E' })).status).toBe(200);
  });

  it('stores the valid events of a batch and lists the invalid ones', async () => {
    const res = await post(core, '/v1/batch', {
      batch: [track(), { type: 'track', userId: 'u1' }, { type: 'bogus', userId: 'u1' }, 'not an object', track({ event: 'Last' })],
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      success: true,
      rejected: [
        { index: 1, code: 'missing_event', message: expect.any(String) },
        { index: 2, code: 'invalid_type', message: expect.stringContaining('bogus') },
        { index: 3, code: 'invalid_message', message: expect.any(String) },
      ],
    });
    expect(storedMessages(core).map((r) => r.event)).toEqual(['Signed Up', 'Last']);
    expect(storedMessages(core, 'rejected').map((r) => r.rejectCode)).toEqual(['missing_event', 'invalid_type', 'invalid_message']);
  });

  it('answers 400 all_rejected when no event of a batch is valid', async () => {
    const res = await post(core, '/v1/batch', { batch: [{ type: 'track' }] });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('all_rejected');
    expect(res.json.rejected).toHaveLength(1);
  });

  it.each([
    ['not an array', { batch: {} }, 'invalid_batch'],
    ['a bad batch-level context', { batch: [], context: [] }, 'invalid_batch'],
    ['a bad batch-level sentAt', { batch: [], sentAt: 'soon' }, 'invalid_batch'],
    ['a JSON array body', [], 'invalid_body'],
  ])('refuses a batch with %s', async (_, body, code) => {
    const res = await post(core, '/v1/batch', body);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(code);
  });

  it('refuses invalid JSON and wrong content types', async () => {
    const bad = await post(core, '/v1/track', '{"userId": "u1",');
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_json');
    const form = await post(core, '/v1/track', 'userId=u1', { contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(400);
    expect(form.json.error).toEqual({ code: 'unsupported_content_type', message: expect.stringContaining('application/json') });
    // Nothing accepted; each refusal is an entry of its own, with its reason (refused-requests.ts).
    await until(() => core.messages.list().length === 2);
    expect(core.messages.countByStatus().accepted).toBe(0);
    expect(core.messages.list().map((m) => m.rejectCode).sort()).toEqual(['invalid_json', 'unsupported_content_type']);
  });
});

describe('limits', () => {
  const big = (bytes: number) => 'x'.repeat(bytes);

  it('accepts a message over 32 KB inside a batch, whole, with Segment\'s warning on it alone', async () => {
    const res = await post(core, '/v1/batch', { batch: [track(), track({ properties: { blob: big(33 * 1024) } })] });
    expect(res.status).toBe(200);
    expect(res.json.rejected).toBeUndefined();
    expect(core.messages.countByStatus()).toEqual({ accepted: 2, rejected: 0, duplicate: 0 });
    const [small, large] = storedMessages(core);
    expect(small!.warning).toBeUndefined();
    expect(large!.warning).toMatch(/^Segment would refuse this: over 32 KB \(the message is 33,\d{3} bytes\)$/);
    expect(JSON.parse(large!.raw).properties.blob).toHaveLength(33 * 1024);
  });

  it('refuses a message nested more than 100 levels deep, in a batch and alone', async () => {
    const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const ok = `{"type":"track","userId":"u","event":"Deep","properties":{"a":${nest(98)}}}`; // 100 levels
    const deep = `{"type":"track","userId":"u","event":"Deeper","properties":{"a":${nest(99)}}}`;
    const res = await post(core, '/v1/batch', `{"batch":[${ok},${deep}]}`);
    expect(res.status).toBe(200);
    expect(res.json.rejected).toEqual([{ index: 1, code: 'invalid_message', message: expect.stringContaining('100 levels') }]);
    const single = await post(core, '/v1/track', deep);
    expect(single.json.error.code).toBe('invalid_message');
    expect(storedMessages(core).map((r) => r.event)).toEqual(['Deep']);
  });

  it('answers 400, not 500, for nesting too deep to serialize: a single message with its write key, a batch-level context', async () => {
    const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    // The write key in the body makes the message be serialized again (without it): that must not throw.
    const single = await post(core, '/v1/track', `{"writeKey":"${core.writeKey}","userId":"u","event":"E","properties":{"a":${nest(20_000)}}}`, { writeKey: null });
    expect(single.status).toBe(400);
    expect(single.json.error.code).toBe('invalid_message');
    // A batch-level context is merged into every message: it may not nest deeper than a message may.
    const batch = await post(core, '/v1/batch', `{"context":{"a":${nest(20_000)}},"batch":[{"type":"track","userId":"u","event":"E"}]}`);
    expect(batch.status).toBe(400);
    expect(batch.json.error).toEqual({ code: 'invalid_batch', message: 'batch-level "context" nests more than 99 levels deep' });
    // One level over, in a document no deeper than a message may be (the check must not wait for more).
    const oneOver = await post(core, '/v1/batch', `{"context":{"a":${nest(99)}},"batch":[{"type":"track","userId":"u","event":"E"}]}`);
    expect(oneOver.json.error?.code).toBe('invalid_batch');
    const justDeepEnough = await post(core, '/v1/batch', `{"context":{"a":${nest(98)}},"batch":[{"type":"track","userId":"u","event":"Ok"}]}`);
    expect(justDeepEnough.status).toBe(200);
    expect(storedMessages(core).map((r) => r.event)).toEqual(['Ok']);
  });

  it('stores what it validated, even when the batch key is spelled with escapes next to a plain one', async () => {
    // JSON.parse keeps the last "batch": the escaped one. Its events are validated and must be what is stored.
    const body = `{"batch":[1,"x"],"\\u0062atch":[{"type":"track","userId":"u","event":"First"},{"type":"track","userId":"u","event":"Second"}]}`;
    const res = await post(core, '/v1/batch', body);
    expect(res.status).toBe(200);
    const stored = storedMessages(core);
    expect(stored.map((r) => JSON.parse(r.raw).event)).toEqual(['First', 'Second']);
    expect(stored.map((r) => r.message!.event)).toEqual(['First', 'Second']);
  });

  it('reads a timestamp without a zone as UTC, and refuses impossible dates and times', async () => {
    await post(core, '/v1/track', { userId: 'u', event: 'Local', timestamp: '2024-01-01T10:00:00' });
    expect(storedMessages(core)[0]!.message!.timestamp).toBe('2024-01-01T10:00:00.000Z');
    // A zone of hours alone, as PostgreSQL prints it (before 2026-12-01: 400 invalid_timestamp).
    const hours = await post(core, '/v1/track', { userId: 'u', event: 'Hours', timestamp: '2024-01-01 10:00:00.5+02' });
    expect(hours.status).toBe(200);
    expect(storedMessages(core).find((m) => m.message?.event === 'Hours')!.message!.timestamp).toBe('2024-01-01T08:00:00.500Z');
    for (const timestamp of ['2024-02-31T00:00:00Z', '2023-02-29', '2024-01-01T24:00:00Z', '2024-13-01']) {
      const res = await post(core, '/v1/track', { userId: 'u', event: 'E', timestamp });
      expect(res.json.error?.code, timestamp).toBe('invalid_timestamp');
    }
    expect(storedMessages(core)).toHaveLength(2);
  });

  it('refuses a messageId holding a lone surrogate, which the store would keep as another id (a silent duplicate before 2026-12-01)', async () => {
    const res = await post(core, '/v1/batch', {
      batch: [
        { type: 'track', userId: 'u', event: 'E', messageId: 'm-\ud800' },
        { type: 'track', userId: 'u', event: 'E', messageId: 'm-\udbff' },
        { type: 'track', userId: 'u', event: 'E', messageId: 'm-\ud83d\ude00' }, // a pair: an emoji, well-formed
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json.rejected.map((r: { index: number; code: string; message: string }) => [r.index, r.code, r.message.includes('messageId')])).toEqual([[0, 'invalid_field', true], [1, 'invalid_field', true]]);
    const stored = storedMessages(core, 'all');
    expect(stored.filter((m) => m.status === 'duplicate')).toEqual([]);
    expect(stored.filter((m) => m.status === 'accepted').map((m) => m.messageId)).toEqual(['m-\ud83d\ude00']);

    // The user ids too: two users kept as one, a deletion request for one would purge the other.
    const users = await post(core, '/v1/batch', { batch: [{ type: 'identify', userId: 'a\ud800' }, { type: 'identify', anonymousId: 'b\udfff' }, { type: 'group', userId: 'u', groupId: 'g\ud800' }] });
    expect(users.json.rejected.map((r: { index: number; code: string }) => [r.index, r.code])).toEqual([[0, 'invalid_field'], [1, 'invalid_field'], [2, 'invalid_field']]);
  });

  it('refuses timestamps outside the years 1–9999, also when only the skew correction leaves them', async () => {
    const far = await post(core, '/v1/track', { userId: 'u', event: 'E', timestamp: '+275760-09-13T00:00:00.000Z' });
    expect(far.json.error.code).toBe('invalid_timestamp');
    const skewed = await post(core, '/v1/track', { userId: 'u', event: 'E', timestamp: '9999-12-01T00:00:00.000Z', sentAt: '0002-01-01T00:00:00.000Z' });
    expect(skewed.status).toBe(400);
    expect(skewed.json.error).toEqual({ code: 'invalid_timestamp', message: expect.stringContaining('sentAt') });
    expect(core.messages.countByStatus().accepted).toBe(0);
  });

  it('accepts a message just under 32 KB, without a warning', async () => {
    const res = await post(core, '/v1/track', { userId: 'u1', event: 'E', properties: { blob: big(32 * 1024 - 100) } });
    expect(res.status).toBe(200);
    expect(storedMessages(core)[0]!.warning).toBeUndefined();
  });

  it('accepts a single message over 32 KB, with the warning', async () => {
    const res = await post(core, '/v1/track', { userId: 'u1', event: 'E', properties: { blob: big(40 * 1024) } });
    expect(res.status).toBe(200);
    expect(storedMessages(core)[0]!.warning).toMatch(/^Segment would refuse this: over 32 KB/);
  });

  it('refuses a request over 4,000 KB, and one that is over 4,000 KB only after gzip decompression', async () => {
    const events = Array.from({ length: 140 }, () => track({ properties: { blob: big(30 * 1024) } }));
    const plain = await post(core, '/v1/batch', { batch: events });
    expect(plain.status).toBe(400);
    expect(plain.json.error).toEqual({ code: 'request_too_large', message: expect.stringContaining('4000 KB') });
    const zipped = await post(core, '/v1/batch', { batch: events }, { gzip: true });
    expect(zipped.status).toBe(400);
    expect(zipped.json.error).toEqual({ code: 'request_too_large', message: expect.stringContaining('after decompression') });
    await until(() => core.messages.list().length === 2);
    expect(core.messages.countByStatus()).toEqual({ accepted: 0, rejected: 2, duplicate: 0 });
  });

  it('takes 2,500 events in a batch and refuses 2,501', async () => {
    const tiny = { type: 'track', userId: 'u', event: 'E' };
    const ok = await post(core, '/v1/batch', { batch: Array.from({ length: 2500 }, () => ({ ...tiny })) });
    expect(ok.status).toBe(200);
    const tooMany = await post(core, '/v1/batch', { batch: Array.from({ length: 2501 }, () => ({ ...tiny })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.error.code).toBe('too_many_events');
    expect(core.messages.countByStatus().accepted).toBe(2500);
  });
});

describe('encodings', () => {
  it('accepts gzip and deflate bodies', async () => {
    expect((await post(core, '/v1/batch', { batch: [track()] }, { gzip: true })).status).toBe(200);
    const deflated = await request(`${core.ingestUrl}/v1/track`, {
      method: 'POST',
      headers: { authorization: basicAuth(core.writeKey), 'content-type': 'application/json', 'content-encoding': 'deflate' },
      body: deflateSync(JSON.stringify({ userId: 'u', event: 'Deflated' })),
    });
    expect(deflated.statusCode).toBe(200);
    expect(storedMessages(core).map((r) => r.event)).toEqual(['Signed Up', 'Deflated']);
  });

  it('refuses a body that is not the gzip it claims to be, and unknown encodings', async () => {
    const bad = await post(core, '/v1/track', Buffer.from('definitely not gzip'), { headers: { 'content-encoding': 'gzip' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_encoding');
    const br = await post(core, '/v1/track', gzipSync('{}'), { headers: { 'content-encoding': 'br' } });
    expect(br.status).toBe(400);
    expect(br.json.error.code).toBe('unsupported_encoding');
  });
});

describe('normalization', () => {
  it('merges batch-level context and integrations into each event; the event wins', async () => {
    await post(core, '/v1/batch', {
      batch: [
        track({ context: { locale: 'fr-FR', device: { model: 'iPhone' } } }),
        track({ integrations: { Webhooks: false } }),
      ],
      context: { locale: 'en-US', library: { name: 'custom', version: '1' } },
      integrations: { All: true },
    });
    const [first, second] = storedMessages(core);
    expect(first!.message!.context).toMatchObject({ locale: 'fr-FR', library: { name: 'custom' }, device: { model: 'iPhone' } });
    expect(second!.message!.context).toMatchObject({ locale: 'en-US', library: { name: 'custom' } });
    expect(first!.message!.integrations).toEqual({ All: true });
    expect(second!.message!.integrations).toEqual({ All: true, Webhooks: false });
  });

  it('generates a messageId when absent and keeps the client\'s when present', async () => {
    await post(core, '/v1/batch', { batch: [track(), track({ messageId: 'client-id-1' })] });
    const [generated, given] = storedMessages(core);
    expect(generated!.message!.messageId).toMatch(/^sluice-[0-9a-f-]{36}$/);
    expect(generated!.messageId).toBe(generated!.message!.messageId);
    expect(given!.message!.messageId).toBe('client-id-1');
  });

  it('keeps the client context as sent and adds the request IP only when it is absent', async () => {
    const context = { ip: '198.51.100.7', device: { model: 'Pixel', type: 'android' }, os: { name: 'Android', version: '15' }, app: { build: '7' } };
    await post(core, '/v1/batch', { batch: [track({ context }), track()] });
    const [withIp, without] = storedMessages(core);
    expect(withIp!.message!.context).toEqual(context);
    expect(without!.message!.context).toEqual({ ip: '127.0.0.1' });
  });

  it('keeps the raw message exactly as sent', async () => {
    const text = '{"batch":[ {"type":"track","userId":"u1","event":"Ünïcödé 🚀","properties":{"n":1.50,"s":"a\\"b"}} ]}';
    await post(core, '/v1/batch', text);
    const [record] = storedMessages(core);
    expect(record!.raw).toBe('{"type":"track","userId":"u1","event":"Ünïcödé 🚀","properties":{"n":1.50,"s":"a\\"b"}}');
    expect(record!.event).toBe('Ünïcödé 🚀');
  });
});

describe('clock skew', () => {
  it('corrects timestamp by the gap between the client\'s sentAt and the server\'s receivedAt', async () => {
    await core.dispose();
    const now = Date.parse('2026-11-21T12:00:00.000Z');
    core = await startCore({ clock: { now: () => now } });
    // The client's clock runs 10 minutes fast; it recorded the event 5 s before sending.
    await post(core, '/v1/batch', {
      batch: [track({ timestamp: '2026-11-21T12:09:55.000Z' }), track()],
      sentAt: '2026-11-21T12:10:00.000Z',
    });
    const [skewed, untimed] = storedMessages(core);
    expect(skewed!.message).toMatchObject({
      originalTimestamp: '2026-11-21T12:09:55.000Z',
      sentAt: '2026-11-21T12:10:00.000Z',
      receivedAt: '2026-11-21T12:00:00.000Z',
      timestamp: '2026-11-21T11:59:55.000Z',
    });
    expect(skewed!.timestamp).toBe(Date.parse('2026-11-21T11:59:55.000Z'));
    // No client timestamp: the server's time is the event's time.
    expect(untimed!.message!.timestamp).toBe('2026-11-21T12:00:00.000Z');
    expect(untimed!.message).not.toHaveProperty('originalTimestamp');
  });

  it('uses the client timestamp as is when there is no sentAt', async () => {
    await post(core, '/v1/track', { userId: 'u', event: 'Old', timestamp: '2020-01-01T00:00:00.000Z' });
    expect(storedMessages(core)[0]!.message!.timestamp).toBe('2020-01-01T00:00:00.000Z');
  });

  it('a per-message sentAt wins over the batch-level one', async () => {
    const now = Date.parse('2026-11-21T12:00:00.000Z');
    await core.dispose();
    core = await startCore({ clock: { now: () => now } });
    await post(core, '/v1/batch', {
      batch: [track({ timestamp: '2026-11-21T12:00:00.000Z', sentAt: '2026-11-21T12:00:01.000Z' })],
      sentAt: '2026-11-21T13:00:00.000Z',
    });
    expect(storedMessages(core)[0]!.message!.timestamp).toBe('2026-11-21T11:59:59.000Z');
  });
});

describe('deduplication', () => {
  it('stores a repeated messageId of the same source as duplicate, within and across requests', async () => {
    await post(core, '/v1/batch', { batch: [track({ messageId: 'm1' }), track({ messageId: 'm1' })] });
    await post(core, '/v1/track', { userId: 'u', event: 'E', messageId: 'm1' });
    const all = storedMessages(core, 'all');
    expect(all.map((r) => r.status)).toEqual(['accepted', 'duplicate', 'duplicate']);
    expect(all.every((r) => r.messageId === 'm1')).toBe(true);
  });

  it('the same messageId from another source is not a duplicate', async () => {
    await core.dispose();
    core = await startCore({
      config: {
        sources: [
          { name: 'web', writeKey: 'wk_web', kind: 'web' },
          { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
        ],
        destinations: [],
      },
    });
    await post(core, '/v1/track', { userId: 'u', event: 'E', messageId: 'same' }, { writeKey: 'wk_web' });
    await post(core, '/v1/track', { userId: 'u', event: 'E', messageId: 'same' }, { writeKey: 'wk_ios' });
    expect(core.messages.countByStatus()).toEqual({ accepted: 2, rejected: 0, duplicate: 0 });
  });
});

describe('durability and concurrency', () => {
  it('keeps messages and the generated write key across a restart', async () => {
    const dataDir = tempDir();
    let first = await startCore({ dataDir });
    const writeKey = first.writeKey;
    await post(first, '/v1/batch', { batch: [track({ messageId: 'keep-1' }), track({ messageId: 'keep-2' })] });
    await first.dispose();

    first = await startCore({ dataDir });
    try {
      expect(first.writeKey).toBe(writeKey);
      expect(storedMessages(first).map((r) => r.messageId)).toEqual(['keep-1', 'keep-2']);
      // Dedupe survives the restart too.
      await post(first, '/v1/track', { userId: 'u', event: 'E', messageId: 'keep-1' });
      expect(first.messages.countByStatus().duplicate).toBe(1);
    } finally {
      await first.dispose();
    }
  });

  it('loses nothing when many batches arrive at once', async () => {
    const requests = 40;
    const perRequest = 100;
    const results = await Promise.all(
      Array.from({ length: requests }, (_, r) =>
        post(core, '/v1/batch', {
          batch: Array.from({ length: perRequest }, (_, i) => track({ messageId: `c-${r}-${i}` })),
        }),
      ),
    );
    expect(results.every((res) => res.status === 200)).toBe(true);
    const ids = core.messages.list({ limit: 10_000 }).map((m) => m.messageId);
    expect(ids).toHaveLength(requests * perRequest);
    expect(new Set(ids).size).toBe(requests * perRequest);
  });

  it('announces messages on the bus only after they are stored', async () => {
    const seen: string[] = [];
    core.bus.on('messages.stored', (committed) => {
      // Readable from the store at the moment it is announced.
      for (const request of committed) for (const id of request.ids) seen.push(core.messages.get(id)!.status);
    });
    const announced = waitForStored(core, 3);
    await post(core, '/v1/batch', { batch: [track({ messageId: 'b1' }), track({ messageId: 'b2' }), { type: 'nope' }] });
    const stored = await announced;
    expect(stored.map((m) => m.status)).toEqual(['accepted', 'accepted', 'rejected']);
    expect(seen).toEqual(['accepted', 'accepted', 'rejected']);
  });
});

describe('browser support', () => {
  it('answers CORS preflights, allowing the Authorization header', async () => {
    const res = await request(`${core.ingestUrl}/v1/t`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
  });

  it('puts Access-Control-Allow-Origin on answers, errors included', async () => {
    const ok = await post(core, '/v1/t', { userId: 'u', event: 'E' }, { headers: { origin: 'http://localhost:3000' } });
    expect(ok.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    const denied = await post(core, '/v1/t', {}, { writeKey: 'wrong', headers: { origin: 'http://localhost:3000' } });
    expect(denied.status).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe('http://localhost:3000');
  });

  it('serves CDN-style project settings that point analytics.js at this endpoint', async () => {
    const res = await request(`${core.ingestUrl}/v1/projects/${core.writeKey}/settings`);
    expect(res.statusCode).toBe(200);
    const settings = (await res.body.json()) as any;
    const host = new URL(core.ingestUrl).host;
    expect(settings.integrations['Segment.io']).toMatchObject({ apiKey: core.writeKey, apiHost: `${host}/v1`, protocol: 'http' });
    expect(Object.keys(settings.integrations)).toEqual(['Segment.io']);
    expect(settings.metrics.sampleRate).toBe(0);
    const unknown = await request(`${core.ingestUrl}/v1/projects/wk_unknown/settings`);
    expect(unknown.statusCode).toBe(404);
    expect(((await unknown.body.json()) as any).error.code).toBe('invalid_write_key');
  });
});
