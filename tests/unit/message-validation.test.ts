import { describe, expect, it } from 'vitest';
import { conformsToSchema, findRejection, incomingMessageSchema, parseTime, validateMessage } from '../../shared/messages.ts';

describe('validateMessage', () => {
  it.each([
    [{ type: 'identify', userId: 'u' }],
    [{ type: 'identify', anonymousId: 'a', userId: null }],
    [{ type: 'identify', anonymousId: 'a', userId: '' }],
    [{ type: 'track', userId: 7, event: 'E', properties: {} }],
    [{ type: 'page', anonymousId: 'a', name: null, properties: { url: 'x' } }],
    [{ type: 'screen', userId: 'u' }],
    [{ type: 'group', userId: 'u', groupId: 'g', traits: { n: 1 } }],
    [{ type: 'alias', userId: 'u', previousId: 'p' }],
    [{ type: 'track', userId: 'u', event: 'E', timestamp: '2026-01-01T00:00:00Z', unknownKey: [1] }],
  ])('accepts %j without copying it', (input) => {
    const result = validateMessage(input);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.message).toBe(input);
  });

  it.each([
    [null, 'invalid_message'],
    [[1], 'invalid_message'],
    [{ userId: 'u' }, 'invalid_type'],
    [{ type: 'delete', userId: 'u' }, 'invalid_type'],
    [{ type: 'identify' }, 'missing_user'],
    [{ type: 'identify', userId: '', anonymousId: null }, 'missing_user'],
    [{ type: 'track', userId: 'u' }, 'missing_event'],
    [{ type: 'group', userId: 'u', groupId: null }, 'missing_group_id'],
    [{ type: 'alias', userId: 'u', previousId: '' }, 'missing_previous_id'],
    [{ type: 'track', userId: 'u', event: 'E', context: 'x' }, 'invalid_field'],
    [{ type: 'track', userId: 'u', event: 5 }, 'invalid_field'],
    [{ type: 'track', userId: 'u', event: 'E', sentAt: 'later' }, 'invalid_timestamp'],
    [{ type: 'track', userId: 'u', event: 'E', messageId: '' }, 'invalid_field'],
  ])('rejects %j with %s and a message naming the problem', (input, code) => {
    const result = validateMessage(input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.rejection.code).toBe(code);
      expect(result.rejection.message.length).toBeGreaterThan(10);
    }
  });

  // The hand-written hot-path check must say exactly what the zod schema says.
  it('conformsToSchema agrees with the zod schema on generated messages', () => {
    let agreed = 0;
    for (const message of generatedMessages(5000)) {
      const zod = incomingMessageSchema.safeParse(message).success;
      expect({ message, verdict: conformsToSchema(message) }).toEqual({ message, verdict: zod });
      if (zod) agreed++;
    }
    expect(agreed).toBeGreaterThan(100); // the generator reaches the accepting side too
  });

  // The client library validates with findRejection (no zod): its verdicts must be ingestion's.
  it('findRejection gives the code, and names the field, that validateMessage (zod) gives', () => {
    const seen = new Set<string>();
    for (const message of generatedMessages(5000, 7)) {
      const zod = validateMessage(message);
      const hand = findRejection(message);
      const field = (r: { message: string } | null | undefined) => /^"(\w+)"/.exec(r?.message ?? '')?.[1] ?? null;
      const expected = zod.ok ? null : { code: zod.rejection.code, field: field(zod.rejection) };
      expect({ message, verdict: hand && { code: hand.code, field: field(hand) } }).toEqual({ message, verdict: expected });
      if (!zod.ok) {
        expect(hand!.message).toMatch(zod.rejection.code === 'invalid_field' ? /^"\w+" must be / : /./);
        if (zod.rejection.code !== 'invalid_field') expect(hand!.message).toBe(zod.rejection.message);
      }
      seen.add(zod.ok ? 'ok' : zod.rejection.code);
    }
    // The generator reaches every verdict.
    expect([...seen].sort()).toEqual(
      ['invalid_field', 'invalid_timestamp', 'invalid_type', 'missing_event', 'missing_group_id', 'missing_previous_id', 'missing_user', 'ok'],
    );
    expect(findRejection([1])?.code).toBe('invalid_message');
  });
});

/** Messages of every type (and some of none), each field present at random with a random, often wrong, value. */
function generatedMessages(count: number, seed = 11): Record<string, unknown>[] {
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = <T,>(values: T[]): T => values[Math.floor(rand() * values.length)]!;
  const anyValue = () =>
    pick<unknown>([undefined, null, '', 'x', 'y'.repeat(1025), 0, 1.5, Number.NaN, true, {}, { a: 1 }, [], ['a'], '2026-01-01T00:00:00.000Z', 'not a date']);
  const fields = ['messageId', 'userId', 'anonymousId', 'context', 'integrations', 'timestamp', 'sentAt', 'event', 'name', 'category', 'properties', 'traits', 'groupId', 'previousId'];
  return Array.from({ length: count }, () => {
    const message: Record<string, unknown> = { type: pick(['identify', 'track', 'page', 'screen', 'group', 'alias', 'delete', 5, undefined]) };
    for (const field of fields) if (rand() < 0.25) message[field] = anyValue();
    return message;
  });
}

describe('parseTime', () => {
  it('reads a time without a zone as UTC, whatever the machine\'s time zone', () => {
    const saved = process.env.TZ;
    try {
      for (const tz of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
        process.env.TZ = tz;
        expect(new Date(parseTime('2024-01-01T10:00:00')).toISOString(), tz).toBe('2024-01-01T10:00:00.000Z');
        expect(new Date(parseTime('2024-07-01 10:00')).toISOString(), tz).toBe('2024-07-01T10:00:00.000Z');
        expect(new Date(parseTime('2024-01-01T10:00:00+02:00')).toISOString(), tz).toBe('2024-01-01T08:00:00.000Z');
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('refuses dates and times that do not exist (Date.parse would roll them over)', () => {
    for (const text of ['2024-02-30', '2023-02-29T00:00:00Z', '2024-04-31', '2024-01-01T24:00:00Z', '2024-01-01T10:60:00Z', '2024-00-10']) {
      expect(parseTime(text), text).toBeNaN();
    }
    expect(new Date(parseTime('2024-02-29')).toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(new Date(parseTime('2000-02-29T23:59:59.999Z')).toISOString()).toBe('2000-02-29T23:59:59.999Z');
  });

  it('reads a zone of hours alone (ISO 8601 ±hh, what PostgreSQL prints for a whole-hour zone), which Date.parse refuses', () => {
    expect(new Date(parseTime('2024-03-01 12:34:56.789+00')).toISOString()).toBe('2024-03-01T12:34:56.789Z');
    expect(new Date(parseTime('2024-03-01T12:34:56+05')).toISOString()).toBe('2024-03-01T07:34:56.000Z');
    expect(new Date(parseTime('2024-03-01T12:34-03')).toISOString()).toBe('2024-03-01T15:34:00.000Z');
    expect(new Date(parseTime('2024-03-01T12:34:56+0530')).toISOString()).toBe('2024-03-01T07:04:56.000Z');
    expect(parseTime('2024-03-01T12:34:56+5')).toBeNaN();
  });
});
