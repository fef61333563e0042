// Webhook bodies (seed §2.2, §9; DESIGN.md §5.1), their signature (seed §5.1; DESIGN.md §5.2) and the
// retry schedule (DESIGN.md §5.4). Bodies are compared as the exact bytes sent (`JSON.stringify`), so
// key order, `version`, timestamps and absent-versus-null fields all count.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deleteBody, webhookBody } from '../../shared/webhook-body.ts';
import { signBody, verifyAsSeedReceiver } from '../../electron/core/signature/signature.ts';
import {
  gaveUpReason,
  HOURLY_MS,
  MAX_ROUNDS,
  nextAttemptAt,
  parseRetryAfter,
  RETRY_DELAYS_MS,
  RETRY_WINDOW_MS,
} from '../../electron/core/delivery/retry-schedule.ts';

const TS = '2026-11-21T10:00:00.123Z';

/** What the ingest pipeline stores: the client's fields plus messageId, receivedAt, context.ip and so on. */
function normalized(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    anonymousId: 'anon-7',
    messageId: 'msg-1',
    context: { ip: '203.0.113.9', library: { name: 'analytics-node', version: '6.2.0' }, locale: 'en-US' },
    integrations: { All: true },
    originalTimestamp: '2026-11-21T09:59:59.000Z',
    sentAt: '2026-11-21T10:00:01.000Z',
    receivedAt: '2026-11-21T10:00:02.000Z',
    timestamp: TS,
    ...fields,
  };
}

const bodyOf = (message: Record<string, unknown>, shape?: 'seed' | 'full') => JSON.stringify(webhookBody(message, shape));

describe('seed body per type (seed table 2.2)', () => {
  it('page: version, type, userId, properties, timestamp; page name, category and context are not sent', () => {
    const message = normalized({
      type: 'page',
      userId: 'u_1',
      name: 'Docs',
      category: 'Help',
      properties: { path: '/docs', referrer: 'https://example.com/', title: 'Docs', url: 'https://sluice.dev/docs', plan: 'pro' },
    });
    expect(bodyOf(message)).toBe(
      '{"version":1,"type":"page","userId":"u_1","properties":{"path":"/docs","referrer":"https://example.com/","title":"Docs","url":"https://sluice.dev/docs","plan":"pro"},"timestamp":"2026-11-21T10:00:00.123Z"}',
    );
  });

  it('screen: name, timestamp, then context with only device{model,type}, os{name,version}, app{build,name,version}', () => {
    const message = normalized({
      type: 'screen',
      userId: 'u_1',
      name: 'Checkout',
      properties: { step: 2 },
      // Keys deliberately in another order than the seed's, with extra keys that must not be sent.
      context: {
        ip: '203.0.113.9',
        app: { version: '2.1.0', namespace: 'dev.sluice.demo', name: 'Sluice Demo', build: '210' },
        os: { version: '17.1', name: 'iOS' },
        device: { manufacturer: 'Apple', type: 'ios', id: 'device-1', model: 'iPhone15,2', advertisingId: 'ad-1' },
        network: { wifi: true },
        screen: { width: 390, height: 844 },
      },
    });
    expect(bodyOf(message)).toBe(
      '{"version":1,"type":"screen","userId":"u_1","name":"Checkout","timestamp":"2026-11-21T10:00:00.123Z",' +
        '"context":{"device":{"model":"iPhone15,2","type":"ios"},"os":{"name":"iOS","version":"17.1"},"app":{"build":"210","name":"Sluice Demo","version":"2.1.0"}}}',
    );
  });

  it('screen: a partial context keeps only the sub-objects and keys present; none at all means no context key', () => {
    const partial = normalized({
      type: 'screen',
      userId: 'u_1',
      name: 'Home',
      context: { os: { name: 'Android', version: null }, device: { id: 'only-an-id' }, app: { build: '7' } },
    });
    expect(bodyOf(partial)).toBe(
      '{"version":1,"type":"screen","userId":"u_1","name":"Home","timestamp":"2026-11-21T10:00:00.123Z","context":{"os":{"name":"Android"},"app":{"build":"7"}}}',
    );
    const none = normalized({ type: 'screen', userId: 'u_1', name: 'Home', context: { ip: '203.0.113.9', locale: 'fr-FR' } });
    expect(bodyOf(none)).toBe('{"version":1,"type":"screen","userId":"u_1","name":"Home","timestamp":"2026-11-21T10:00:00.123Z"}');
    const noContext = { type: 'screen', userId: 'u_1', timestamp: TS };
    expect(bodyOf(noContext)).toBe('{"version":1,"type":"screen","userId":"u_1","timestamp":"2026-11-21T10:00:00.123Z"}');
  });

  it('identify: version, type, userId, traits, timestamp', () => {
    const message = normalized({ type: 'identify', userId: 'u_1', traits: { email: 'zoe@example.com', name: 'Zoë', plan: 'pro', logins: 3 } });
    expect(bodyOf(message)).toBe(
      '{"version":1,"type":"identify","userId":"u_1","traits":{"email":"zoe@example.com","name":"Zoë","plan":"pro","logins":3},"timestamp":"2026-11-21T10:00:00.123Z"}',
    );
  });

  it('track: version, type, userId, event, properties, timestamp', () => {
    const message = normalized({
      type: 'track',
      userId: 'u_1',
      event: 'Order Completed',
      properties: { revenue: 42.5, currency: 'EUR', products: [{ sku: 'A-1', qty: 2 }] },
    });
    expect(bodyOf(message)).toBe(
      '{"version":1,"type":"track","userId":"u_1","event":"Order Completed","properties":{"revenue":42.5,"currency":"EUR","products":[{"sku":"A-1","qty":2}]},"timestamp":"2026-11-21T10:00:00.123Z"}',
    );
  });

  it('alias: the keys "Previous ID" and "User ID" (with a space), in that order', () => {
    const message = normalized({ type: 'alias', userId: 'u_1', previousId: 'anon-7' });
    expect(bodyOf(message)).toBe('{"version":1,"type":"alias","Previous ID":"anon-7","User ID":"u_1","timestamp":"2026-11-21T10:00:00.123Z"}');
    expect(webhookBody(message)).not.toHaveProperty('previousId');
    expect(webhookBody(message)).not.toHaveProperty('userId');
  });

  it('group: version, type, groupId, userId, traits, timestamp', () => {
    const message = normalized({ type: 'group', userId: 'u_1', groupId: 'g_9', traits: { name: 'Acme', employees: 120 } });
    expect(bodyOf(message)).toBe(
      '{"version":1,"type":"group","groupId":"g_9","userId":"u_1","traits":{"name":"Acme","employees":120},"timestamp":"2026-11-21T10:00:00.123Z"}',
    );
  });

  it('delete: type, userId, timestamp and no version (seed §9.1)', () => {
    const at = Date.parse('2026-01-02T03:04:05.006Z');
    expect(JSON.stringify(deleteBody('u_9', at))).toBe('{"type":"delete","userId":"u_9","timestamp":"2026-01-02T03:04:05.006Z"}');
    expect(bodyOf({ type: 'delete', userId: 'u_9', timestamp: '2026-01-02T03:04:05.006Z' })).toBe(
      '{"type":"delete","userId":"u_9","timestamp":"2026-01-02T03:04:05.006Z"}',
    );
  });

  it('every type except delete carries the number 1 as version, first', () => {
    for (const type of ['page', 'screen', 'identify', 'track', 'alias', 'group']) {
      const body = webhookBody(normalized({ type, userId: 'u', previousId: 'p', groupId: 'g', event: 'E' }));
      expect(Object.keys(body)[0], type).toBe('version');
      expect(body.version, type).toBe(1);
      expect(Object.keys(body)[1], type).toBe('type');
      expect(body.type, type).toBe(type);
    }
    expect(webhookBody({ type: 'delete', userId: 'u', timestamp: TS })).not.toHaveProperty('version');
  });

  it('never sends anonymousId, messageId, context (outside screen), integrations or the other times', () => {
    for (const type of ['page', 'identify', 'track', 'alias', 'group', 'screen']) {
      const body = webhookBody(normalized({ type, userId: 'u', previousId: 'p', groupId: 'g', event: 'E' }));
      for (const key of ['anonymousId', 'messageId', 'integrations', 'receivedAt', 'sentAt', 'originalTimestamp']) {
        expect(body, `${type}.${key}`).not.toHaveProperty(key);
      }
      if (type !== 'screen') expect(body, type).not.toHaveProperty('context');
    }
  });
});

describe('seed body: absent fields, ids and timestamps', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('leaves out fields the message lacks or has as null, never writing null', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'track', anonymousId: 'a', event: 'E', timestamp: TS }, '{"version":1,"type":"track","event":"E","timestamp":"2026-11-21T10:00:00.123Z"}'],
      [
        { type: 'track', userId: null, event: 'E', properties: null, timestamp: TS },
        '{"version":1,"type":"track","event":"E","timestamp":"2026-11-21T10:00:00.123Z"}',
      ],
      [{ type: 'identify', userId: 'u', traits: null, timestamp: TS }, '{"version":1,"type":"identify","userId":"u","timestamp":"2026-11-21T10:00:00.123Z"}'],
      [{ type: 'page', anonymousId: 'a', timestamp: TS }, '{"version":1,"type":"page","timestamp":"2026-11-21T10:00:00.123Z"}'],
      [{ type: 'screen', userId: null, name: null, timestamp: TS }, '{"version":1,"type":"screen","timestamp":"2026-11-21T10:00:00.123Z"}'],
      [{ type: 'group', anonymousId: 'a', groupId: 'g', timestamp: TS }, '{"version":1,"type":"group","groupId":"g","timestamp":"2026-11-21T10:00:00.123Z"}'],
      [{ type: 'alias', anonymousId: 'a', previousId: 'p', timestamp: TS }, '{"version":1,"type":"alias","Previous ID":"p","timestamp":"2026-11-21T10:00:00.123Z"}'],
    ];
    for (const [message, expected] of cases) expect(bodyOf(message), JSON.stringify(message)).toBe(expected);
  });

  it('keeps empty objects and falsy values that are present (they are not "absent")', () => {
    expect(bodyOf({ type: 'track', userId: 'u', event: 'E', properties: {}, timestamp: TS })).toBe(
      '{"version":1,"type":"track","userId":"u","event":"E","properties":{},"timestamp":"2026-11-21T10:00:00.123Z"}',
    );
    expect(bodyOf({ type: 'identify', userId: 'u', traits: { active: false, score: 0, note: '' }, timestamp: TS })).toBe(
      '{"version":1,"type":"identify","userId":"u","traits":{"active":false,"score":0,"note":""},"timestamp":"2026-11-21T10:00:00.123Z"}',
    );
  });

  it('turns numeric ids into strings (userId, groupId, previousId) for every type', () => {
    expect(bodyOf({ type: 'identify', userId: 42, timestamp: TS })).toBe('{"version":1,"type":"identify","userId":"42","timestamp":"2026-11-21T10:00:00.123Z"}');
    expect(bodyOf({ type: 'track', userId: 0, event: 'E', timestamp: TS })).toBe(
      '{"version":1,"type":"track","userId":"0","event":"E","timestamp":"2026-11-21T10:00:00.123Z"}',
    );
    expect(bodyOf({ type: 'page', userId: 7.5, timestamp: TS })).toBe('{"version":1,"type":"page","userId":"7.5","timestamp":"2026-11-21T10:00:00.123Z"}');
    expect(bodyOf({ type: 'screen', userId: 8, timestamp: TS })).toBe('{"version":1,"type":"screen","userId":"8","timestamp":"2026-11-21T10:00:00.123Z"}');
    expect(bodyOf({ type: 'group', userId: 1, groupId: 99, timestamp: TS })).toBe(
      '{"version":1,"type":"group","groupId":"99","userId":"1","timestamp":"2026-11-21T10:00:00.123Z"}',
    );
    expect(bodyOf({ type: 'alias', userId: 2, previousId: 3, timestamp: TS })).toBe(
      '{"version":1,"type":"alias","Previous ID":"3","User ID":"2","timestamp":"2026-11-21T10:00:00.123Z"}',
    );
  });

  it("webhookBody's delete branch follows the same rules: no null userId, a numeric userId as a string", () => {
    expect(bodyOf({ type: 'delete', timestamp: TS })).toBe('{"type":"delete","timestamp":"2026-11-21T10:00:00.123Z"}');
    expect(bodyOf({ type: 'delete', userId: null, timestamp: TS })).toBe('{"type":"delete","timestamp":"2026-11-21T10:00:00.123Z"}');
    expect(bodyOf({ type: 'delete', userId: 42, timestamp: TS })).toBe('{"type":"delete","userId":"42","timestamp":"2026-11-21T10:00:00.123Z"}');
  });

  it('writes timestamps as ISO 8601 in UTC with milliseconds', () => {
    const at = (timestamp: string) => webhookBody({ type: 'track', userId: 'u', event: 'E', timestamp }).timestamp;
    expect(at('2026-11-21T10:00:00Z')).toBe('2026-11-21T10:00:00.000Z');
    expect(at('2026-11-21T12:30:00.5+02:30')).toBe('2026-11-21T10:00:00.500Z');
    expect(at('2026-11-21T05:00:00.123-05:00')).toBe('2026-11-21T10:00:00.123Z');
    expect(at('2026-11-21T10:00:00.123456Z')).toBe('2026-11-21T10:00:00.123Z');
    expect(at('1999-12-31T23:59:59.999Z')).toBe('1999-12-31T23:59:59.999Z');
    // Already in toISOString()'s form (what normalization writes): kept as is, leap days included.
    expect(at('2024-02-29T10:00:00.000Z')).toBe('2024-02-29T10:00:00.000Z');
    // A day the month does not have is read the way Date.parse reads it, not passed through.
    expect(at('2026-02-30T10:00:00.000Z')).toBe(new Date(Date.parse('2026-02-30T10:00:00.000Z')).toISOString());
    expect(at('2026-02-30T10:00:00.000Z')).not.toBe('2026-02-30T10:00:00.000Z');
    for (const type of ['page', 'screen', 'identify', 'track', 'alias', 'group', 'delete']) {
      expect(String(webhookBody({ type, userId: 'u', timestamp: '2026-11-21T10:00:00+01:00' }).timestamp), type).toMatch(
        /^2026-11-21T09:00:00\.000Z$/,
      );
    }
  });

  it('uses the current time when the message has no usable timestamp', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-05-06T07:08:09.010Z'));
    expect(webhookBody({ type: 'track', userId: 'u', event: 'E' }).timestamp).toBe('2026-05-06T07:08:09.010Z');
    expect(webhookBody({ type: 'identify', userId: 'u', timestamp: 'not a date' }).timestamp).toBe('2026-05-06T07:08:09.010Z');
  });
});

describe('full body shape (DESIGN.md §5.1)', () => {
  it('is the whole normalized message with version 1 first and the timestamp in UTC milliseconds', () => {
    const message = {
      type: 'track',
      userId: 'u_1',
      anonymousId: 'anon-7',
      event: 'Signed Up',
      properties: { plan: 'pro' },
      context: { ip: '203.0.113.9', device: { model: 'Pixel 8', id: 'd-1' } },
      integrations: { All: true },
      messageId: 'msg-1',
      originalTimestamp: '2026-11-21T11:00:00+01:00',
      receivedAt: '2026-11-21T10:00:02.000Z',
      timestamp: '2026-11-21T11:00:00.1+01:00',
    };
    expect(bodyOf(message, 'full')).toBe(
      '{"version":1,"type":"track","userId":"u_1","anonymousId":"anon-7","event":"Signed Up","properties":{"plan":"pro"},' +
        '"context":{"ip":"203.0.113.9","device":{"model":"Pixel 8","id":"d-1"}},"integrations":{"All":true},"messageId":"msg-1",' +
        '"originalTimestamp":"2026-11-21T11:00:00+01:00","receivedAt":"2026-11-21T10:00:02.000Z","timestamp":"2026-11-21T10:00:00.100Z"}',
    );
  });

  it('keeps version 1 even when the client sent its own version field', () => {
    const body = webhookBody({ type: 'identify', userId: 'u', version: 2, timestamp: TS }, 'full');
    expect(body.version).toBe(1);
    expect(Object.keys(body)[0]).toBe('version');
  });
});

describe('X-Signature (seed §5.1)', () => {
  it('matches the reference vector: secret abc123, body {"cool":true}', () => {
    expect(signBody('{"cool":true}', 'abc123')).toBe('5099cab379b3be52908387457007040cc934ef86');
  });

  // Each expected digest was computed with `openssl dgst -sha1 -hmac <secret>` over the same bytes.
  it('matches openssl HMAC-SHA1 for other bodies and secrets', () => {
    expect(signBody('{"cool":true}', 'abc124')).toBe('8b4b571d19153cc984aeb331c45b005e5b479be8');
    expect(signBody('{"cool": true}', 'abc123')).toBe('51e3145483714ccb7b30289fdc404410c19c79e5');
    expect(signBody('', 'abc123')).toBe('55c1a2b99e1f3bddb0b601bd6c4474dfdea200b1');
    expect(signBody('{"type":"delete","userId":"u_9","timestamp":"2026-01-02T03:04:05.006Z"}', 'abc123')).toBe(
      'dcfd6ba6517bc9e20b91003c20fbd44fb1042f44',
    );
    // A key longer than SHA-1's 64-byte block is hashed first.
    expect(signBody('{"cool":true}', 'k'.repeat(100))).toBe('36272f4174372b8b48eb9df50b3dc45b6fc238a4');
    // Non-ASCII in body and key: both are taken as UTF-8 bytes.
    expect(
      signBody('{"version":1,"type":"track","userId":"u_1","event":"Ünïcode 🚀","properties":{"a":1},"timestamp":"2026-11-21T10:00:00.123Z"}', 's3cr3t-ключ'),
    ).toBe('841f58d477881cf4ac2cc94ce0f59fe79d510f3c');
    // JSON escapes are signed as the escape's characters, not what they decode to.
    expect(signBody(String.raw`{"s":"line\nbreak\u2028 \"q\" \\ é","n":12345678901234567000,"f":0.1}`, 'abc123')).toBe(
      '0fcfc7a8e85e13b0250e347a9d35c1449aa1d3fb',
    );
  });

  const tricky = {
    version: 1,
    type: 'identify',
    userId: '42',
    traits: { name: 'Zoë 👩‍💻', quote: '"hi"\\n', ls: 'a\u2028b', ctl: '\u0001', big: 12345678901234567890, tiny: 1e-7, neg: -0.5 },
    timestamp: '2026-11-21T10:00:00.000Z',
  };

  it('signs the JSON.stringify bytes of a body with emoji, escapes, control characters and big numbers', () => {
    const body = JSON.stringify(tricky);
    expect(Buffer.byteLength(body)).toBe(219);
    expect(signBody(body, 'abc123')).toBe('b1b05cfd8eafbfc202fe1ca3f8f9061cf404b6dc');
    expect(signBody(body, 'pässwörd 🔑')).toBe('aee9030ed3e6210e66c846ad6330a025e86833b7');
    expect(signBody(body, 'abc123')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('a seed receiver (parse, stringify, sign, compare) accepts what Sluice sends', () => {
    const bodies = [
      JSON.stringify(tricky),
      JSON.stringify({ cool: true }),
      JSON.stringify(webhookBody({ type: 'alias', userId: 'ü', previousId: '🚀', timestamp: TS })),
      JSON.stringify({ deep: [[[{ a: [null, true, false, 0, -0, 1.5e300, 'x\ty\r\n\u0000'] }]]], '': 'empty key', 'Previous ID': 'p' }),
      JSON.stringify({ s: '\ud83d\ude80 \u00e9\u0301 \u202e rtl \ufeff bom', lone: '\ud800' }),
    ];
    for (const body of bodies) {
      for (const secret of ['abc123', 'pässwörd 🔑', 'k'.repeat(100)]) {
        expect(verifyAsSeedReceiver(body, signBody(body, secret), secret), body).toBe(true);
      }
    }
  });

  it('a seed receiver rejects tampered bodies, wrong secrets and missing or altered signatures', () => {
    const body = JSON.stringify(tricky);
    const signature = signBody(body, 'abc123');
    expect(verifyAsSeedReceiver(body, signature, 'abc123')).toBe(true);
    expect(verifyAsSeedReceiver(body.replace('"42"', '"43"'), signature, 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver(body.replace('-0.5', '-0.6'), signature, 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver(body.replace('12345678901234567000', '12345678901234599000'), signature, 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver(body.replace('Zoë', 'Zoe'), signature, 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver(JSON.stringify({ ...tricky, extra: 1 }), signature, 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver(body, signature, 'abc1234')).toBe(false);
    expect(verifyAsSeedReceiver(body, signature.replace(/^./, (c) => (c === '0' ? '1' : '0')), 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver(body, undefined, 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver(body, '', 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver(`${body.slice(0, -1)}`, signature, 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver('not json', signBody('not json', 'abc123'), 'abc123')).toBe(false);
  });

  it('a seed receiver compares over the re-stringified body, so non-canonical JSON signed as sent does not verify', () => {
    const spaced = '{"cool": true}';
    expect(verifyAsSeedReceiver(spaced, signBody(spaced, 'abc123'), 'abc123')).toBe(false);
    expect(verifyAsSeedReceiver(spaced, '5099cab379b3be52908387457007040cc934ef86', 'abc123')).toBe(true);
  });
});

describe('retry schedule (DESIGN.md §5.4)', () => {
  const first = Date.parse('2026-11-21T10:00:00.000Z');
  const deadline = first + RETRY_WINDOW_MS;
  const mid = () => 0.5; // factor 1: no jitter

  it('has the documented constants', () => {
    expect([...RETRY_DELAYS_MS]).toEqual([5_000, 15_000, 60_000, 300_000, 900_000, 1_800_000]);
    expect(HOURLY_MS).toBe(3_600_000);
    expect(RETRY_WINDOW_MS).toBe(4 * 3_600_000);
  });

  it('waits 5 s, 15 s, 1 min, 5 min, 15 min, 30 min, then hourly, from the time the round ended', () => {
    const now = first + 1_234;
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 11].map((rounds) => nextAttemptAt({ rounds, firstAttemptAt: first, now, random: mid })! - now);
    expect(delays).toEqual([5_000, 15_000, 60_000, 300_000, 900_000, 1_800_000, 3_600_000, 3_600_000, 3_600_000]);
  });

  it('applies jitter of at most ±20 %, proportional to random()', () => {
    const now = first;
    const at = (rounds: number, r: number) => nextAttemptAt({ rounds, firstAttemptAt: first, now, random: () => r })! - now;
    expect(at(1, 0)).toBe(4_000);
    expect(at(1, 0.25)).toBe(4_500);
    expect(at(1, 0.75)).toBe(5_500);
    expect(at(1, 0.999_999)).toBe(6_000);
    expect(at(3, 0)).toBe(48_000);
    expect(at(3, 0.999_999)).toBe(72_000);
    expect(at(7, 0)).toBe(2_880_000);
    for (let i = 0; i < 200; i++) {
      const rounds = 1 + (i % 8);
      const base = RETRY_DELAYS_MS[rounds - 1] ?? HOURLY_MS;
      const delay = nextAttemptAt({ rounds, firstAttemptAt: first, now, random: () => (i * 0.618_033) % 1 })! - now;
      expect(delay).toBeGreaterThanOrEqual(base * 0.8);
      expect(delay).toBeLessThanOrEqual(base * 1.2);
    }
    // Without an injected random, still within the bounds and not always the same.
    const seen = new Set<number>();
    for (let i = 0; i < 50; i++) {
      const delay = nextAttemptAt({ rounds: 4, firstAttemptAt: first, now })! - now;
      expect(delay).toBeGreaterThanOrEqual(240_000);
      expect(delay).toBeLessThanOrEqual(360_000);
      seen.add(delay);
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it('returns whole milliseconds', () => {
    const at = nextAttemptAt({ rounds: 1, firstAttemptAt: first, now: first, random: () => 0.123_456_789 })!;
    expect(Number.isInteger(at)).toBe(true);
  });

  it('never schedules past the deadline (4 h after the first attempt): the last attempt is at the deadline', () => {
    expect(nextAttemptAt({ rounds: 9, firstAttemptAt: first, now: deadline - 60_000, random: mid })).toBe(deadline);
    expect(nextAttemptAt({ rounds: 1, firstAttemptAt: first, now: deadline - 1, random: mid })).toBe(deadline);
    expect(nextAttemptAt({ rounds: 1, firstAttemptAt: first, now: deadline - 10_000, random: mid })).toBe(deadline - 5_000);
    expect(nextAttemptAt({ rounds: 2, firstAttemptAt: first, now: first, retryAfterMs: 5 * HOURLY_MS })).toBe(deadline);
  });

  it('returns null once the deadline is reached or passed', () => {
    expect(nextAttemptAt({ rounds: 9, firstAttemptAt: first, now: deadline, random: mid })).toBeNull();
    expect(nextAttemptAt({ rounds: 9, firstAttemptAt: first, now: deadline + 1, random: mid })).toBeNull();
    expect(nextAttemptAt({ rounds: 2, firstAttemptAt: first, now: deadline, retryAfterMs: 1_000 })).toBeNull();
  });

  it('a longer Retry-After replaces the schedule, exactly', () => {
    const now = first + 10_000;
    expect(nextAttemptAt({ rounds: 1, firstAttemptAt: first, now, retryAfterMs: 120_000, random: mid })).toBe(now + 120_000);
    expect(nextAttemptAt({ rounds: 3, firstAttemptAt: first, now, retryAfterMs: 61_000, random: mid })).toBe(now + 61_000);
  });

  // Retry-After: 0 (or a past date) once made ~2,700 requests/s: the schedule's delay is the floor.
  it('a shorter, zero or negative Retry-After never shortens the schedule (jitter still applies)', () => {
    const now = first + 10_000;
    expect(nextAttemptAt({ rounds: 1, firstAttemptAt: first, now, retryAfterMs: 0, random: mid })).toBe(now + 5_000);
    expect(nextAttemptAt({ rounds: 1, firstAttemptAt: first, now, retryAfterMs: -5_000, random: mid })).toBe(now + 5_000);
    expect(nextAttemptAt({ rounds: 1, firstAttemptAt: first, now, retryAfterMs: 1_000, random: () => 0 })).toBe(now + 4_000);
    expect(nextAttemptAt({ rounds: 6, firstAttemptAt: first, now, retryAfterMs: 1_000, random: mid })).toBe(now + 1_800_000);
  });

  it(`stops after MAX_ROUNDS (${MAX_ROUNDS}) rounds even inside the window`, () => {
    expect(nextAttemptAt({ rounds: MAX_ROUNDS - 1, firstAttemptAt: first, now: first + 1_000, random: mid })).not.toBeNull();
    expect(nextAttemptAt({ rounds: MAX_ROUNDS, firstAttemptAt: first, now: first + 1_000, random: mid })).toBeNull();
    expect(gaveUpReason(MAX_ROUNDS)).toBe(`gave up after ${MAX_ROUNDS} rounds`);
    expect(gaveUpReason(3)).toMatch(/4-hour retry window/);
  });

  it('the schedule alone, at its shortest jitter, fits within MAX_ROUNDS in the 4-hour window', () => {
    // Walk the schedule with -20 % jitter (the most rounds possible): the window, not the cap, ends it.
    let t = first;
    let rounds = 1;
    for (;;) {
      const next = nextAttemptAt({ rounds, firstAttemptAt: first, now: t, random: () => 0 });
      if (next === null) break;
      t = next;
      rounds++;
    }
    expect(t).toBe(deadline);
    expect(rounds).toBeLessThanOrEqual(MAX_ROUNDS);
  });

  describe('parseRetryAfter', () => {
    const now = Date.parse('2026-11-21T10:00:00.000Z');

    it('reads delay-seconds', () => {
      expect(parseRetryAfter('120', now)).toBe(120_000);
      expect(parseRetryAfter('0', now)).toBe(0);
      expect(parseRetryAfter(' 30 ', now)).toBe(30_000);
      expect(parseRetryAfter('86400', now)).toBe(86_400_000);
      expect(parseRetryAfter(['7', '99'], now)).toBe(7_000);
    });

    it('reads an HTTP-date as the time from now, and a past date as 0', () => {
      expect(parseRetryAfter('Sat, 21 Nov 2026 10:02:00 GMT', now)).toBe(120_000);
      expect(parseRetryAfter(new Date(now + 3_600_000).toUTCString(), now)).toBe(3_600_000);
      // RFC 850, an obsolete form recipients must still accept.
      expect(parseRetryAfter('Saturday, 21-Nov-26 10:05:00 GMT', now)).toBe(300_000);
      expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
    });

    it('is undefined when absent, empty or not a date', () => {
      expect(parseRetryAfter(undefined, now)).toBeUndefined();
      expect(parseRetryAfter('', now)).toBeUndefined();
      expect(parseRetryAfter('   ', now)).toBeUndefined();
      expect(parseRetryAfter([], now)).toBeUndefined();
      expect(parseRetryAfter('soon', now)).toBeUndefined();
      expect(parseRetryAfter('120 s', now)).toBeUndefined();
    });

    // RFC 9110 §10.2.3: Retry-After = HTTP-date / delay-seconds, delay-seconds = 1*DIGIT. Anything else
    // must be ignored (the normal schedule applies), not read as "retry right now".
    it('ignores values that are neither delay-seconds nor an HTTP-date (fractions, signs)', () => {
      expect(parseRetryAfter('1.5', now)).toBeUndefined();
      expect(parseRetryAfter('-5', now)).toBeUndefined();
      expect(parseRetryAfter('+5', now)).toBeUndefined();
    });
  });
});
