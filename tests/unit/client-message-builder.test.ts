// Building one message per call: fields by type, defaults, validation with the endpoint's own rules, limits.
import { describe, expect, it } from 'vitest';
import { SEGMENT_MAX_MESSAGE_BYTES } from '../../shared/limits.ts';
import { buildMessage } from '../../electron/client/message-builder.ts';
import { ClientError } from '../../electron/client/errors.ts';
import { LIBRARY } from '../../electron/client/version.ts';
import pkg from '../../package.json' with { type: 'json' };

const NOW = Date.parse('2026-11-20T08:30:00.123Z');
const parse = (built: { json: string }) => JSON.parse(built.json) as Record<string, any>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function thrown(fn: () => unknown): ClientError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ClientError);
    return error as ClientError;
  }
  throw new Error('expected a ClientError');
}

describe('buildMessage', () => {
  it('adds messageId, timestamp and context.library (name sluice-client, version from package.json)', () => {
    const built = buildMessage('track', { userId: 'u_1', event: 'Signed Up' }, NOW);
    const m = parse(built);
    expect(m.messageId).toMatch(UUID);
    expect(built.id).toBe(m.messageId);
    expect(m.timestamp).toBe('2026-11-20T08:30:00.123Z');
    expect(m.context).toEqual({ library: { name: 'sluice-client', version: pkg.version } });
    expect(LIBRARY).toEqual({ name: 'sluice-client', version: pkg.version });
    expect(built.bytes).toBe(Buffer.byteLength(built.json));
    // The messageId is the second key: the batch splitter reads ids back from the serialized text.
    expect(built.json.startsWith(`{"type":"track","messageId":"${m.messageId}"`)).toBe(true);
  });

  it('gives each message its own id', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => buildMessage('track', { userId: 'u', event: 'e' }, NOW).id));
    expect(ids.size).toBe(1000);
  });

  it('keeps the fields of each type, with empty objects for missing traits and properties', () => {
    expect(parse(buildMessage('identify', { userId: 'u_1', traits: { plan: 'pro' } }, NOW))).toMatchObject({ type: 'identify', userId: 'u_1', traits: { plan: 'pro' } });
    expect(parse(buildMessage('identify', { anonymousId: 'a_1' }, NOW))).toMatchObject({ type: 'identify', anonymousId: 'a_1', traits: {} });
    expect(parse(buildMessage('track', { userId: 7, event: 'E' }, NOW))).toMatchObject({ userId: 7, event: 'E', properties: {} });
    expect(parse(buildMessage('screen', { userId: 'u', name: 'Home', category: 'Nav', properties: { a: 1 } }, NOW))).toMatchObject({
      type: 'screen',
      name: 'Home',
      category: 'Nav',
      properties: { a: 1 },
    });
    expect(parse(buildMessage('group', { userId: 'u', groupId: 'g_1', traits: { seats: 5 } }, NOW))).toMatchObject({ groupId: 'g_1', traits: { seats: 5 } });
    expect(parse(buildMessage('group', { userId: 'u', groupId: 42 }, NOW))).toMatchObject({ groupId: 42, traits: {} });
    expect(parse(buildMessage('alias', { userId: 'u', previousId: 'anon' }, NOW))).toMatchObject({ type: 'alias', userId: 'u', previousId: 'anon' });
  });

  it("sends a page's traits as its properties (merged with Segment's `properties`, traits winning)", () => {
    const traits = { url: 'https://example.com/p', title: 'P', referrer: 'https://r', path: '/p', custom: true };
    const m = parse(buildMessage('page', { userId: 'u', name: 'Pricing', category: 'Docs', traits }, NOW));
    expect(m).toMatchObject({ type: 'page', name: 'Pricing', category: 'Docs', properties: traits });
    expect(m.traits).toBeUndefined();
    expect(parse(buildMessage('page', { userId: 'u', properties: { path: '/a' } }, NOW)).properties).toEqual({ path: '/a' });
    expect(parse(buildMessage('page', { userId: 'u', properties: { path: '/a', x: 1 }, traits: { path: '/b' } }, NOW)).properties).toEqual({ path: '/b', x: 1 });
    expect(parse(buildMessage('page', { userId: 'u' }, NOW)).properties).toEqual({});
  });

  it('merges the caller context with the library; keeps integrations, a given messageId and a historical timestamp', () => {
    const m = parse(
      buildMessage(
        'track',
        {
          userId: 'u',
          event: 'E',
          context: { ip: '203.0.113.1', library: { name: 'spoof' } },
          integrations: { All: false, Webhooks: true },
          messageId: 'import-1',
          timestamp: new Date('2020-01-02T03:04:05.678Z'),
        },
        NOW,
      ),
    );
    expect(m.context).toEqual({ ip: '203.0.113.1', library: LIBRARY });
    expect(m.integrations).toEqual({ All: false, Webhooks: true });
    expect(m.messageId).toBe('import-1');
    expect(m.timestamp).toBe('2020-01-02T03:04:05.678Z');
    expect(parse(buildMessage('track', { userId: 'u', event: 'E', timestamp: '2020-01-02T03:04:05Z' }, NOW)).timestamp).toBe('2020-01-02T03:04:05Z');
  });

  it('snapshots the caller objects: changing them after the call changes nothing', () => {
    const properties: Record<string, unknown> = { n: 1 };
    const built = buildMessage('track', { userId: 'u', event: 'E', properties }, NOW);
    properties.n = 2;
    expect(parse(built).properties).toEqual({ n: 1 });
  });

  it.each([
    ['identify', {}, 'missing_user', 'identify: needs a userId or an anonymousId'],
    ['track', { userId: 'u' }, 'missing_event', 'track: needs "event"'],
    ['track', { userId: 'u', event: '' }, 'missing_event', 'track: needs "event"'],
    ['group', { userId: 'u' }, 'missing_group_id', 'group: needs "groupId"'],
    ['alias', { userId: 'u' }, 'missing_previous_id', 'alias: needs "previousId"'],
    ['page', { anonymousId: '' }, 'missing_user', 'page: needs a userId or an anonymousId'],
    ['track', { userId: 'u', event: 'E', properties: 'x' }, 'invalid_field', '"properties"'],
    ['identify', { userId: 'u', traits: [1] }, 'invalid_field', '"traits"'],
    ['track', { userId: 'u', event: 'E', timestamp: 'yesterday' }, 'invalid_timestamp', '"timestamp"'],
    ['track', { userId: 'u', event: 'E', timestamp: new Date(Number.NaN) }, 'invalid_timestamp', 'invalid Date'],
    ['track', { userId: 'u', event: 'E', context: 'x' }, 'invalid_field', '"context" must be an object'],
    ['page', { userId: 'u', traits: 'x', properties: {} }, 'invalid_field', '"traits" must be an object'],
    ['track', { userId: {}, event: 'E' }, 'invalid_field', '"userId"'],
    ['track', { userId: 'u', event: 'E', messageId: '' }, 'invalid_field', '"messageId"'],
  ] as const)('%s %j → %s', (type, params, code, text) => {
    const error = thrown(() => buildMessage(type, params as never, NOW));
    expect(error.code).toBe(code);
    expect(error.message).toContain(text);
  });

  it('refuses a call without an object, and values JSON cannot hold', () => {
    expect(thrown(() => buildMessage('track', null as never, NOW)).code).toBe('invalid_message');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const error = thrown(() => buildMessage('track', { userId: 'u', event: 'E', properties: circular }, NOW));
    expect(error.code).toBe('invalid_message');
    expect(error.message).toMatch(/cannot be serialized to JSON/);
    expect(thrown(() => buildMessage('track', { userId: 'u', event: 'E', properties: { n: 1n } }, NOW)).code).toBe('invalid_message');
  });

  it('refuses a message over 32 KB serialized (counted in UTF-8 bytes), and takes one of exactly 32 KB', () => {
    const base = buildMessage('track', { userId: 'u', event: 'E', messageId: 'm', properties: { pad: '' } }, NOW).bytes;
    const exact = buildMessage('track', { userId: 'u', event: 'E', messageId: 'm', properties: { pad: 'x'.repeat(SEGMENT_MAX_MESSAGE_BYTES - base) } }, NOW);
    expect(exact.bytes).toBe(SEGMENT_MAX_MESSAGE_BYTES);
    const over = thrown(() => buildMessage('track', { userId: 'u', event: 'E', messageId: 'm', properties: { pad: 'x'.repeat(SEGMENT_MAX_MESSAGE_BYTES - base + 1) } }, NOW));
    expect(over.code).toBe('message_too_large');
    expect(over.message).toContain(`${SEGMENT_MAX_MESSAGE_BYTES + 1} bytes`);
    expect(over.messageIds).toEqual(['m']);
    // 'é' is 2 bytes in UTF-8: 11,000 of them are 22,000 characters' worth of bytes, over the limit.
    expect(thrown(() => buildMessage('track', { userId: 'u', event: 'E', properties: { pad: 'é'.repeat(17_000) } }, NOW)).code).toBe('message_too_large');
  });
});
