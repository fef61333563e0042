// The replay views' pure parts (renderer/src/views/replay/): the JSON editor's check with line and
// column, the typed URL's check, bulk progress counting from delivery events, the confirmation's words,
// and the custom time range's input conversion.
import { describe, expect, it } from 'vitest';
import { fromLocalInput, toLocalInput } from '../../renderer/src/lib/local-time.ts';
import { NO_FILTERS } from '../../renderer/src/store/filters.ts';
import { countProgress, describeProgress, recordChanges, type DeliveryState } from '../../renderer/src/views/replay/bulk-progress.ts';
import { confirmation, defaultScope, describeFilters } from '../../renderer/src/views/replay/bulk-plan.ts';
import { checkJsonBody, findSyntaxProblem, lineColumn, MAX_DEPTH } from '../../renderer/src/views/replay/json-check.ts';
import { checkTargetUrl } from '../../renderer/src/views/replay/target-url.ts';

const failure = (text: string) => {
  const check = checkJsonBody(text);
  if (check.ok) throw new Error(`expected ${JSON.stringify(text)} to be refused`);
  return check;
};

describe('JSON editor check', () => {
  it('accepts an object and returns its value', () => {
    expect(checkJsonBody('{\n  "type": "track",\n  "n": -1.5e3, "ok": [true, false, null], "s": "a\\u00e9\\n"\n}')).toEqual({
      ok: true,
      value: { type: 'track', n: -1500, ok: [true, false, null], s: 'aé\n' },
    });
    expect(checkJsonBody('  {}  ')).toEqual({ ok: true, value: {} });
  });

  it('points at a missing comma on the line and column where the next property starts', () => {
    const text = '{\n  "a": 1\n  "b": 2\n}';
    expect(failure(text)).toMatchObject({ line: 3, column: 3, offset: 13, message: "expected ',' or '}' after the property value, found '\"'" });
  });

  it('names trailing commas, single quotes, bad literals, leading zeros and unclosed strings', () => {
    expect(failure('{"a": 1,}')).toMatchObject({ line: 1, column: 9, message: expect.stringMatching(/comma before } is not allowed/) });
    expect(failure('[1, 2,]')).toMatchObject({ column: 7, message: expect.stringMatching(/comma before \] is not allowed/) });
    expect(failure("{'a': 1}")).toMatchObject({ column: 2, message: expect.stringMatching(/property name in double quotes/) });
    expect(failure('{"a": \'x\'}')).toMatchObject({ column: 7, message: expect.stringMatching(/double quotes, not single/) });
    expect(failure('{"a": tru}')).toMatchObject({ column: 7, message: expect.stringMatching(/where a value should be/) });
    expect(failure('{"a": 07}')).toMatchObject({ column: 7, message: expect.stringMatching(/cannot start with 0/) });
    expect(failure('{"a": 1.}')).toMatchObject({ column: 8, message: expect.stringMatching(/followed by digits/) });
    expect(failure('{\n"a": "open\n}')).toMatchObject({ line: 2, column: 11, message: expect.stringMatching(/cannot span lines/) });
    expect(failure('{"a": "\\q"}')).toMatchObject({ column: 8, message: expect.stringMatching(/not a JSON escape/) });
    expect(failure('{"a": "x')).toMatchObject({ column: 7, message: expect.stringMatching(/not closed/) });
  });

  it('reports the end of the text for an unfinished object, and text after the value', () => {
    expect(failure('{\n  "a": {\n')).toMatchObject({ line: 3, column: 1, message: expect.stringMatching(/ends inside an object|ends where a value/) });
    expect(failure('')).toMatchObject({ line: 1, column: 1, message: 'the text ends where a value should be' });
    expect(failure('{"a": 1} x')).toMatchObject({ column: 10, message: expect.stringMatching(/after the JSON value/) });
  });

  it('refuses valid JSON that is not an object: a webhook body is one', () => {
    expect(failure('\n  [1, 2]')).toMatchObject({ line: 2, column: 3, message: expect.stringMatching(/must be a JSON object/) });
    expect(failure('"text"')).toMatchObject({ message: expect.stringMatching(/must be a JSON object/) });
  });

  it('agrees with JSON.parse on what is valid', () => {
    const samples = ['{"a":[1,{"b":null}],"c":"\\"q\\""}', '{"a":1e-7}', '{"a":-0}', '{"a":1,}', '{"a":.5}', '{"a":+1}', '{"a":"\\uzzzz"}', '{"a":"\t"}', '{"a" 1}', '{"a":[}'];
    for (const text of samples) {
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      expect(findSyntaxProblem(text) === null, text).toBe(parses);
    }
  });

  it('refuses nesting deeper than the limit without overflowing the stack', () => {
    const deep = `${'['.repeat(MAX_DEPTH + 5)}${']'.repeat(MAX_DEPTH + 5)}`;
    expect(findSyntaxProblem(deep)?.message).toMatch(/nesting deeper than/);
  });

  it('counts lines and columns from 1', () => {
    expect(lineColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});

describe('replay URL check', () => {
  it('accepts http and https URLs with a host', () => {
    expect(checkTargetUrl(' http://localhost:3000/hook ')).toEqual({ ok: true, url: 'http://localhost:3000/hook' });
    expect(checkTargetUrl('https://127.0.0.1:8443/x?y=1')).toEqual({ ok: true, url: 'https://127.0.0.1:8443/x?y=1' });
  });

  it('refuses other schemes, missing schemes, credentials and empty input with the fix', () => {
    expect(checkTargetUrl('')).toMatchObject({ ok: false, message: expect.stringMatching(/http:\/\/localhost:3000\/hook/) });
    expect(checkTargetUrl('localhost:3000/hook')).toEqual({ ok: false, message: 'Start the URL with http:// or https://, e.g. http://localhost:3000/hook.' });
    expect(checkTargetUrl('ftp://example.com/hook')).toMatchObject({ ok: false, message: expect.stringMatching(/Only http and https .* not ftp/) });
    expect(checkTargetUrl('http://user:pw@localhost/hook')).toMatchObject({ ok: false, message: expect.stringMatching(/user name and password/) });
    expect(checkTargetUrl('http://exa mple.com')).toMatchObject({ ok: false, message: expect.stringMatching(/not a valid URL/) });
  });
});

describe('bulk replay progress', () => {
  const change = (deliveryId: number, status: string, attemptCount: number) => ({ deliveryId, messageId: 1, status, attemptCount, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null });

  it('counts delivered, failed, pending (including deliveries without an event yet) and is done when none is pending', () => {
    const states = new Map<number, DeliveryState>();
    const ids = [1, 2, 3, 4];
    expect(countProgress(ids, states)).toMatchObject({ total: 4, pending: 4, finished: 0, done: false });
    recordChanges(states, [change(1, 'delivered', 1), change(2, 'retrying', 1), change(3, 'failed', 1)]);
    expect(countProgress(ids, states)).toMatchObject({ delivered: 1, failed: 1, pending: 2, finished: 2, done: false });
    recordChanges(states, [change(2, 'delivered', 2), change(4, 'cancelled', 0)]);
    const done = countProgress(ids, states);
    expect(done).toMatchObject({ delivered: 2, failed: 1, other: 1, pending: 0, finished: 4, done: true });
    expect(describeProgress(done)).toBe('4 of 4 finished — 2 delivered · 1 failed · 1 cancelled or skipped · 0 pending');
    // Deliveries not in the set do not count.
    recordChanges(states, [change(99, 'failed', 1)]);
    expect(countProgress(ids, states).failed).toBe(1);
  });

  it('ignores a change older than what is known (fewer attempts), so a delivery never moves back', () => {
    const states = new Map<number, DeliveryState>();
    expect(recordChanges(states, [change(1, 'delivered', 2)])).toBe(true);
    expect(recordChanges(states, [change(1, 'retrying', 1)])).toBe(false);
    expect(states.get(1)?.status).toBe('delivered');
    expect(recordChanges(states, [change(1, 'delivered', 2)])).toBe(false); // the same again: nothing changed
  });

  it('an empty set is done at once', () => {
    expect(countProgress([], new Map())).toMatchObject({ total: 0, finished: 0, done: true });
  });
});

describe('bulk replay confirmation', () => {
  it('says how many messages, and what is left out and why', () => {
    expect(confirmation({ deliveryIds: [], messages: 12, deliveries: 12, leftOut: { rejected: 0, noDestination: 0 } })).toEqual({
      text: 'This replays the 12 messages matching the current filter.',
      button: 'Replay 12 messages',
    });
    expect(confirmation({ deliveryIds: [], messages: 1, deliveries: 2, leftOut: { rejected: 2, noDestination: 1 } })).toEqual({
      text:
        'This replays the 1 message matching the current filter as 2 new deliveries. 2 rejected messages left out (rejected messages are never forwarded); 1 message left out: their source has no enabled destination — choose a destination above to replay them through it.',
      button: 'Replay 1 message',
    });
    expect(confirmation({ deliveryIds: [], messages: 0, deliveries: 0, leftOut: { rejected: 0, noDestination: 0 } })).toEqual({ text: 'Nothing to replay.', button: null });
    // Failed notifications without a message (deletions) are counted as deliveries.
    expect(confirmation({ deliveryIds: [], messages: 0, deliveries: 3, leftOut: { rejected: 0, noDestination: 0 } }).button).toBe('Replay 3 deliveries');
  });

  it('says which set it replays: the current filter’s (the default while one is set), or all failed whatever the filter', () => {
    const outcome = { deliveryIds: [], messages: 37, deliveries: 37, leftOut: { rejected: 0, noDestination: 0 } };
    expect(defaultScope(true)).toBe('filtered');
    expect(defaultScope(false)).toBe('failed');
    expect(confirmation(outcome, 'filtered', true).text).toBe('This replays the 37 messages matching the current filter.');
    expect(confirmation(outcome, 'filtered', false).text).toBe('This replays all 37 messages stored (no filter is set).');
    expect(confirmation(outcome, 'failed', true)).toEqual({
      text: 'This replays all 37 failed deliveries, whatever the filter.',
      button: 'Replay 37 failed deliveries',
    });
    expect(confirmation({ ...outcome, messages: 20 }, 'failed').text).toBe('This replays all 37 failed deliveries (of 20 messages), whatever the filter.');
    expect(confirmation({ ...outcome, messages: 1, deliveries: 1 }, 'failed').text).toBe('This replays the 1 failed delivery, whatever the filter.');
    expect(confirmation({ ...outcome, messages: 0, deliveries: 0 }, 'failed')).toEqual({ text: 'Nothing to replay: no delivery is failed now.', button: null });
  });

  it('describes the stream filters the set comes from', () => {
    const name = (id: number) => (id === 2 ? 'web' : '?');
    const t = (ms: number) => `@${ms}`;
    expect(describeFilters(NO_FILTERS, name, t)).toBe('no filters: every stored message');
    expect(
      describeFilters({ type: 'track', status: 'failed', sourceId: 2, search: ' alice ', time: { kind: 'last', ms: 3_600_000 } }, name, t),
    ).toBe('type track · failed · source web · search “alice” · last 1 h');
    expect(describeFilters({ ...NO_FILTERS, time: { kind: 'between', from: 1, to: 2 } }, name, t)).toBe('received @1 – @2');
  });
});

describe('custom time range inputs', () => {
  it('round-trips a local date and time to the second; empty or partial values are no bound', () => {
    const at = new Date(2026, 10, 21, 9, 5, 7).getTime();
    expect(toLocalInput(at)).toBe('2026-11-21T09:05:07');
    expect(fromLocalInput('2026-11-21T09:05:07')).toBe(at);
    expect(fromLocalInput('2026-11-21T09:05')).toBe(at - 7000);
    expect(fromLocalInput('')).toBeNull();
    expect(fromLocalInput('2026-11-21')).toBeNull();
  });
});
