// sluice/matchers (issue 27, point 1) in Vitest's expect: each matcher passing and failing against a
// real relay in this process (startSluice) and, by its HTTP API, as a relay in another process is
// reached. Real HTTP ingestion, real deliveries to the built-in receiver, a real tracking plan.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSluice, type Sluice } from '../../../electron/testing/index.ts';
import { configureSluiceMatchers, sluiceMatchers, SluiceMatcherError, type SluiceMatchers } from '../../../electron/testing/matchers/index.ts';
import { post } from '../../helpers/core.ts';
import { queriesOf } from '../../../electron/testing/handle.ts';

declare module 'vitest' {
  interface Assertion<R, T> extends SluiceMatchers<Promise<void>> {}
}

expect.extend(sluiceMatchers);

const CONFIG = {
  sources: [{ name: 'shop', writeKey: 'wk_shop' }],
  destinations: [{ name: 'orders', sources: ['shop'], webhooks: [{ url: 'sluice://receiver/orders' }] }],
  trackingPlans: [{ name: 'checkout', sources: ['shop'], plan: { events: { 'Order Completed': { type: 'object', properties: { total: { type: 'number' } } }, 'Cart Viewed': { type: 'object' } } } }],
};

let sluice: Sluice;
/** The same relay as a test in another process reaches it: its HTTP API only. */
let remote: { apiUrl: string; token: string };
beforeAll(async () => {
  sluice = await startSluice({ config: CONFIG });
  remote = { apiUrl: sluice.apiUrl, token: sluice.token };
});
afterAll(() => sluice.close());
beforeEach(() => sluice.reset());

const track = (event: string, properties: Record<string, unknown> = {}, userId = 'u_1') => post(sluice, '/v1/track', { userId, event, properties });

/** What the assertion threw (it must throw). */
async function failure(assertion: Promise<unknown>): Promise<Error> {
  const outcome = await assertion.then(() => null, (error: unknown) => error as Error);
  if (outcome === null) throw new Error('the assertion passed; it should have failed');
  return outcome;
}

/** The first frame of a stack outside the runner and Node (the frame a runner shows the code of). */
const firstFrame = (error: Error) => error.stack!.split('\n').find((line) => /^\s+at /.test(line) && !/node_modules|node:/.test(line)) ?? '';

describe('toHaveReceived', () => {
  it('passes once the count arrived; fails with the closest message\'s difference and the test\'s line', async () => {
    await track('Order Completed', { total: 42, currency: 'EUR' });
    await expect(sluice).toHaveReceived({ event: 'Order Completed', properties: { total: 42 } });
    await track('Order Completed', { total: 7 });
    await expect(sluice).toHaveReceived({ event: 'Order Completed' }, { count: 2 });
    const error = await failure(expect(sluice).toHaveReceived({ event: 'Order Completed', properties: { total: 43 } }, { timeoutMs: 100 }));
    expect(error.message).toMatch(/^waited 100 ms for 1 accepted message matching \{"event":"Order Completed","properties":\{"total":43\}\}; 0 arrived \(2 stored in all\)\. Closest:\n {2}- track "Order Completed" of "u_1" .*: properties\.total: wanted 43, got 42/);
    expect(firstFrame(error)).toContain('tests/integration/testing/matchers.test.ts:');
    // Three asked, two stored: a count not reached fails.
    await failure(expect(sluice).toHaveReceived({ event: 'Order Completed' }, { count: 3, timeoutMs: 50 }));
  });

  it('waits for a message sent after the call (pushed by the commit)', async () => {
    const waiting = expect(sluice).toHaveReceived({ event: 'Cart Viewed' }, { timeoutMs: 30_000 });
    await track('Cart Viewed');
    await waiting;
  });

  it('the default wait is configurable', async () => {
    const before = configureSluiceMatchers();
    try {
      configureSluiceMatchers({ timeoutMs: 120 });
      const error = await failure(expect(sluice).toHaveReceived({ event: 'Never Sent' }));
      expect(error.message).toMatch(/^waited 120 ms for 1 accepted message/);
      expect(() => configureSluiceMatchers({ timeoutMs: -1 })).toThrow('configureSluiceMatchers(): timeoutMs must be a number of ms ≥ 0');
    } finally {
      configureSluiceMatchers(before);
    }
    expect(before).toEqual({ timeoutMs: 3_000, withinMs: 500 });
  });
});

describe('.not.toHaveReceived', () => {
  it('passes when nothing matches within the window', async () => {
    await track('Order Completed', { total: 42 });
    await expect(sluice).not.toHaveReceived({ properties: { cardNumber: '4242' } }, { within: 100 });
  });

  it('fails at the first match, not at the window\'s end, naming it', async () => {
    // A window far longer than the test may run: the assertion can only end by the match.
    const watching = failure(expect(sluice).not.toHaveReceived({ event: 'Password Sent' }, { within: 600_000 }));
    await track('Password Sent', { password: 'hunter2' });
    const error = await watching;
    expect(error.message).toMatch(/^expected no message matching \{"event":"Password Sent"\} within 600000 ms; one came \(after \d+ ms\):\n {2}- track "Password Sent" of "u_1" \(accepted, /);
    expect(firstFrame(error)).toContain('tests/integration/testing/matchers.test.ts:');
  });

  it('refuses the option the form does not read: timeoutMs with .not, within without it', async () => {
    const notTimeout = await failure(expect(sluice).not.toHaveReceived({ event: 'Password Sent' }, { timeoutMs: 100 }));
    expect(notTimeout).toBeInstanceOf(TypeError);
    expect(notTimeout.message).toMatch(/^\.not\.toHaveReceived\(\): the window to watch is \{ within: ms \}/);
    expect(firstFrame(notTimeout)).toContain('tests/integration/testing/matchers.test.ts:');
    await track('Cart Viewed');
    const within = await failure(expect(sluice).toHaveReceived({ event: 'Cart Viewed' }, { within: 100 }));
    expect(within.message).toMatch(/^toHaveReceived\(\): within is the window of \.not\.toHaveReceived\(\)/);
  });
});

describe('options a matcher does not take', () => {
  it('are a TypeError naming them and what it takes, never dropped: a dropped status or option would pass on the wrong match', async () => {
    const cases: [Promise<unknown>, RegExp][] = [
      [expect(sluice).toHaveReceived({ event: 'Cart Viewed' }, { timeout: 100 } as never), /^toHaveReceived\(\): unknown option "timeout" \(did you mean timeoutMs\?\); it takes count, timeoutMs, within$/],
      [expect(sluice).toHaveReceived({ event: 'Cart Viewed' }, { event: 'x' } as never), /^toHaveReceived\(\): unknown option "event" \(a field of the filter: give it there\)/],
      [expect(sluice).toHaveDelivered({ event: 'Order Completed', status: 'failed' } as never), /^toHaveDelivered\(\): a delivery's status goes in the options/],
      [expect(sluice).toHaveDelivered({ event: 'Order Completed' }, { destinaton: 'orders' } as never), /^toHaveDelivered\(\): unknown option "destinaton"; it takes count, timeoutMs, within, destination, status$/],
      [expect(sluice).toCoverPlan({ violation: false } as never), /^toCoverPlan\(\): unknown option "violation"; it takes plan, violations$/],
      [expect(sluice).not.toHaveReceivedInOrder([{ event: 'a' }, { event: 'b' }], { within: 100 } as never), /^\.not\.toHaveReceivedInOrder\(\): unknown option "within"; it takes timeoutMs$/],
    ];
    expect(() => configureSluiceMatchers({ within: 1000 } as never)).toThrow(/^configureSluiceMatchers\(\): unknown option "within"; it takes timeoutMs, withinMs$/);
    for (const [assertion, message] of cases) {
      const error = await failure(assertion);
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toMatch(message);
    }
  });
});

describe('toHaveReceivedInOrder', () => {
  it('passes for matches stored in that order; fails with the stored order otherwise, or with the filter that never matched', async () => {
    await track('Cart Viewed');
    await track('Order Completed', { total: 42 });
    await expect(sluice).toHaveReceivedInOrder([{ event: 'Cart Viewed' }, { event: 'Order Completed' }]);
    const reversed = await failure(expect(sluice).toHaveReceivedInOrder([{ event: 'Order Completed' }, { event: 'Cart Viewed' }], { timeoutMs: 100 }));
    expect(reversed.message).toMatch(/no match of filter 2 \(\{"event":"Cart Viewed"\}\) comes after the match of filter 1 within 100 ms\. Stored order:\n {2}- track "Cart Viewed" .*: filter 2\n {2}- track "Order Completed" .*: filter 1$/);
    const missing = await failure(expect(sluice).toHaveReceivedInOrder([{ event: 'Cart Viewed' }, { event: 'Checkout Started' }], { timeoutMs: 100 }));
    expect(missing.message).toMatch(/^expected 2 messages in order; filter 2 of 2 never matched: waited 100 ms for 1 accepted message matching \{"event":"Checkout Started"\}/);
  });

  it('waits for a match that comes after the previous filter\'s, when one stored before it would break the order', async () => {
    // A "Cart Viewed" from before (another step of the test), then the "Order Completed"; the
    // "Cart Viewed" expected after it is on its way. Until 2026-12-01 the order was read once, as soon as
    // each filter had a match, and this failed.
    await track('Cart Viewed', { step: 1 });
    await track('Order Completed', { total: 42 });
    const asserted = expect(sluice).toHaveReceivedInOrder([{ event: 'Order Completed' }, { event: 'Cart Viewed' }], { timeoutMs: 30_000 });
    // .not reads the order once: it holds now, and does not wait for the timeout.
    const started = performance.now();
    await expect(sluice).not.toHaveReceivedInOrder([{ event: 'Order Completed' }, { event: 'Cart Viewed' }], { timeoutMs: 30_000 });
    expect(performance.now() - started).toBeLessThan(20_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await track('Cart Viewed', { step: 2 });
    await asserted;
    // The same through the HTTP API (POST /messages/wait with afterSequence), as a relay in another process is asked.
    await track('Order Completed', { total: 43 });
    const remoteAsserted = expect(remote).toHaveReceivedInOrder([{ event: 'Order Completed', properties: { total: 43 } }, { event: 'Cart Viewed' }], { timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await track('Cart Viewed', { step: 3 });
    await remoteAsserted;
  });

  it('reads the first match of each filter, not every message a filter matches', async () => {
    const batch = Array.from({ length: 1_200 }, (_, i) => ({ type: 'track', userId: 'u_1', event: 'Cart Viewed', properties: { i } }));
    expect((await post(sluice, '/v1/batch', { batch })).status).toBe(200);
    await track('Order Completed', { total: 42 });
    await expect(sluice).toHaveReceived({ event: 'Order Completed' });
    // The stored messages the ordering step is given, counted at the relay's queries (its waits aside:
    // each wait's first look reads one bounded step).
    const queries = queriesOf(sluice)!;
    const { rows, page } = queries;
    let read = 0;
    queries.rows = async (...args) => {
      const found = await rows.apply(queries, args);
      read += found.length;
      return found;
    };
    queries.page = async (...args) => {
      const found = await page.apply(queries, args);
      read += found.rows.length;
      return found;
    };
    try {
      await expect(sluice).toHaveReceivedInOrder([{ event: 'Cart Viewed' }, { event: 'Order Completed' }]);
      await failure(expect(sluice).toHaveReceivedInOrder([{ event: 'Order Completed' }, { event: 'Cart Viewed' }], { timeoutMs: 100 }));
    } finally {
      Object.assign(queries, { rows, page });
    }
    // One per filter, and three per filter for the failure's stored order (without the bound: each of
    // the 1,200 Cart Viewed, twice).
    expect(read).toBeLessThanOrEqual(2 + 1 + 3 + 1);
  });
});

describe('toHaveDelivered', () => {
  it('passes once delivered to the destination; fails naming what the deliveries did', async () => {
    await track('Order Completed', { total: 42 });
    await expect(sluice).toHaveDelivered({ event: 'Order Completed' }, { destination: 'orders' });
    const error = await failure(expect(sluice).toHaveDelivered({ event: 'Order Completed' }, { destination: 'elsewhere', timeoutMs: 100 }));
    expect(error.message).toMatch(/^waited 100 ms for 1 delivery matching \{"event":"Order Completed","destination":"elsewhere","status":"delivered"\}; 0 matched .*orders: delivered/);
  });
});

describe('toHaveNoViolations', () => {
  it('passes when no stored message breaks a plan; fails listing each violation', async () => {
    await track('Order Completed', { total: 42 });
    await expect(sluice).toHaveReceived({ event: 'Order Completed' });
    await expect(sluice).toHaveNoViolations();
    await track('Order Completed', { total: 'ten' }, 'u_2');
    await expect(sluice).toHaveReceived({ userId: 'u_2' });
    const error = await failure(expect(sluice).toHaveNoViolations());
    expect(error.message).toMatch(/^expected no tracking-plan violations among the stored messages; 1 breaks a plan:\n {2}- track "Order Completed" of "u_2" .*: .*total/);
    await expect(sluice).toHaveNoViolations({ userId: 'u_1' });
  });

  it('reads the first 100 messages that break a plan, not all of them, and says "at least"', async () => {
    const batch = Array.from({ length: 150 }, (_, i) => ({ type: 'track', userId: 'u_3', event: 'Order Completed', properties: { total: `t${i}` } }));
    expect((await post(sluice, '/v1/batch', { batch })).status).toBe(200);
    await expect(sluice).toHaveReceived({ userId: 'u_3' }, { count: 150 });
    const queries = queriesOf(sluice)!;
    const rowsOf = queries.rowsOf.bind(queries);
    let converted = 0;
    queries.rowsOf = (ids) => ((converted += ids.length), rowsOf(ids));
    let error: Error;
    try {
      error = await failure(expect(sluice).toHaveNoViolations());
    } finally {
      queries.rowsOf = rowsOf;
    }
    expect(error.message).toMatch(/; at least 100 break a plan:\n/);
    expect(error.message).toMatch(/…and at least 90 more$/);
    expect(converted).toBeLessThanOrEqual(101); // without the bound: all 150
    expect((await failure(expect(remote).toHaveNoViolations())).message).toMatch(/; at least 100 break a plan:/);
  });
});

describe('what a matcher is given', () => {
  it('anything but a Sluice is a typed error that says what to pass, at the test\'s line', async () => {
    for (const received of [undefined, 42, { apiUrl: 'http://127.0.0.1:1' }]) {
      const error = await failure(expect(received).toHaveReceived({ event: 'Order Completed' }));
      expect(error).toBeInstanceOf(SluiceMatcherError);
      expect(error.message).toContain('not a Sluice: pass the Sluice that startSluice() (sluice/testing) gives, or { apiUrl, token }');
      expect(firstFrame(error)).toContain('tests/integration/testing/matchers.test.ts:');
    }
    const badFilter = await failure(expect(sluice).toHaveReceived({ evnt: 'x' } as never));
    expect(badFilter.message).toContain('unknown filter field "evnt"');
    expect(firstFrame(badFilter)).toContain('tests/integration/testing/matchers.test.ts:');
  });
});

describe('a relay in another process, by its HTTP API ({ apiUrl, token })', () => {
  it('toHaveReceived and .not wait through POST /api/v1/messages/wait, with the same failure text', async () => {
    await track('Order Completed', { total: 42 });
    await expect(remote).toHaveReceived({ event: 'Order Completed', properties: { total: 42 } });
    const error = await failure(expect(remote).toHaveReceived({ event: 'Order Completed', properties: { total: 43 } }, { timeoutMs: 100 }));
    expect(error.message).toMatch(/^waited 100 ms for 1 accepted message matching .*Closest:\n {2}- track "Order Completed" of "u_1" .*: properties\.total: wanted 43, got 42/);
    const watching = failure(expect({ api: sluice.apiUrl, token: sluice.token }).not.toHaveReceived({ event: 'Late' }, { within: 600_000 }));
    await track('Late');
    expect((await watching).message).toMatch(/^expected no message matching \{"event":"Late"\} within 600000 ms; one came/);
  });

  it('toHaveNoViolations reads the messages that break a plan; a wrong token fails clearly', async () => {
    await track('Order Completed', { total: 'ten' });
    await expect(remote).toHaveReceived({ event: 'Order Completed' });
    expect((await failure(expect(remote).toHaveNoViolations({ properties: { total: 'ten' } }))).message).toMatch(/1 breaks a plan:\n {2}- track "Order Completed" of "u_1"/);
    await expect(remote).toHaveNoViolations({ properties: { total: 11 } });
    expect((await failure(expect({ ...remote, token: 'wrong' }).toHaveReceived({}))).message).toMatch(/^Sluice's HTTP API answered 401/);
  });

  it('toHaveReceivedInOrder orders by the messages\' sequence (the stored order, the same in list, get and wait answers): in order passes, reversed fails showing the stored order', async () => {
    await track('Order Completed', { total: 7 }); // the first Order Completed comes before the Cart Viewed
    await track('Cart Viewed');
    await track('Checkout Started');
    await track('Order Completed', { total: 42 });
    await expect(remote).toHaveReceived({ event: 'Order Completed', properties: { total: 42 } });
    // Each message's sequence, as the HTTP API gives it in its list, a lookup by messageId and a wait.
    const api = async (route: string, body?: unknown) => {
      const response = await fetch(`${remote.apiUrl}/${route}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${remote.token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, any>;
    };
    const listed = (await api('messages')).messages as { event: string; messageId: string; sequence: number; properties: { total?: number } }[];
    expect(listed.map((m) => m.event)).toEqual(['Order Completed', 'Cart Viewed', 'Checkout Started', 'Order Completed']);
    const sequences = listed.map((m) => m.sequence);
    expect(sequences.every((n, i) => Number.isInteger(n) && (i === 0 || n > sequences[i - 1]!))).toBe(true);
    for (const m of listed) expect((await api(`messages/${encodeURIComponent(m.messageId)}`)).message.sequence).toBe(m.sequence);
    expect((await api('messages/wait', { filter: { event: 'Order Completed' }, count: 2, timeoutMs: 1_000 })).messages.map((m: { sequence: number }) => m.sequence)).toEqual([sequences[0], sequences[3]]);
    // In order: the Order Completed after the Cart Viewed (not the first one, stored before it) is the match.
    await expect(remote).toHaveReceivedInOrder([{ event: 'Cart Viewed' }, { event: 'Checkout Started' }, { event: 'Order Completed' }]);
    await expect({ api: remote.apiUrl, token: remote.token }).toHaveReceivedInOrder([{ event: 'Cart Viewed' }, { event: 'Order Completed', properties: { total: 42 } }]);
    const reversed = await failure(expect(remote).toHaveReceivedInOrder([{ event: 'Order Completed', properties: { total: 42 } }, { event: 'Cart Viewed' }], { timeoutMs: 100 }));
    expect(reversed).not.toBeInstanceOf(SluiceMatcherError);
    const [first, cart, , last] = sequences;
    expect(reversed.message).toBe(
      [
        'expected messages matching these 2 filters in this order; no match of filter 2 ({"event":"Cart Viewed"}) comes after the match of filter 1 within 100 ms. Stored order:',
        `  - track "Cart Viewed" of "u_1" (accepted, ${listed[1]!.messageId}) at sequence ${cart}: filter 2`,
        `  - track "Order Completed" of "u_1" (accepted, ${listed[3]!.messageId}) at sequence ${last}: filter 1`,
      ].join('\n'),
    );
    expect(first).toBeLessThan(cart!);
    expect(firstFrame(reversed)).toContain('tests/integration/testing/matchers.test.ts:');
  });

  it('toHaveDelivered waits through POST /api/v1/deliveries/wait', async () => {
    await track('Order Completed', { total: 42 });
    await expect(remote).toHaveDelivered({ event: 'Order Completed' }, { destination: 'orders' });
    const error = await failure(expect(remote).toHaveDelivered({ event: 'Order Completed' }, { destination: 'elsewhere', timeoutMs: 100 }));
    expect(error.message).toMatch(/^waited 100 ms for 1 delivery matching \{"event":"Order Completed","destination":"elsewhere","status":"delivered"\}; 0 matched .*orders: delivered/);
    const watching = failure(expect(remote).not.toHaveDelivered({ event: 'Refund Issued' }, { within: 600_000 }));
    await track('Refund Issued');
    expect((await watching).message).toMatch(/^expected no delivered delivery of messages matching \{"event":"Refund Issued"\} within 600000 ms; one came .*:\n {2}- orders: track "Refund Issued" of "u_1"/);
  });
});
