// The circuit breakers' policy (electron/core/delivery/circuit-breaker.ts), on an explicit clock.
import { describe, expect, it } from 'vitest';
import { BASE_COOLDOWN_MS, CircuitBreakers, FAILURE_THRESHOLD, MAX_COOLDOWN_MS } from '../../electron/core/delivery/circuit-breaker.ts';

const URL_A = 'http://127.0.0.1:9/a';
const URL_B = 'http://127.0.0.1:9/b';

function opened(t = 0) {
  const changes: string[] = [];
  // `~`: only the failure count changed (no move between states).
  const breakers = new CircuitBreakers((url, state, moved) => changes.push(`${url.slice(-1)}:${state}${moved ? '' : '~'}`));
  for (let i = 0; i < FAILURE_THRESHOLD; i++) breakers.record(URL_A, true, 'refused', t);
  return { breakers, changes };
}

describe('CircuitBreakers', () => {
  it(`opens after ${FAILURE_THRESHOLD} failures in a row, not before; a success in between starts the count again`, () => {
    const breakers = new CircuitBreakers();
    for (let i = 0; i < FAILURE_THRESHOLD - 1; i++) breakers.record(URL_A, true, 'e', 0);
    breakers.record(URL_A, false, null, 0);
    for (let i = 0; i < FAILURE_THRESHOLD - 1; i++) breakers.record(URL_A, true, 'e', 0);
    expect(breakers.state(URL_A, 0)).toBe('closed');
    expect(breakers.admit(URL_A, 0)).toBe(true);
    breakers.record(URL_A, true, 'the last straw', 0);
    expect(breakers.view(URL_A, 0)).toEqual({ url: URL_A, state: 'open', failures: FAILURE_THRESHOLD, probeAt: BASE_COOLDOWN_MS, lastError: 'the last straw' });
    expect(breakers.state(URL_B, 0)).toBe('closed'); // per URL
  });

  it('open: nothing is admitted until the cooldown ends; then exactly one probe', () => {
    const { breakers, changes } = opened();
    expect(breakers.admissible(URL_A, BASE_COOLDOWN_MS - 1)).toBe(false);
    expect(breakers.admit(URL_A, BASE_COOLDOWN_MS - 1)).toBe(false);
    expect(breakers.nextProbeAt([URL_A, URL_B])).toBe(BASE_COOLDOWN_MS);
    expect(breakers.admissible(URL_A, BASE_COOLDOWN_MS)).toBe(true);
    expect(breakers.admit(URL_A, BASE_COOLDOWN_MS)).toBe(true);
    expect(breakers.state(URL_A, BASE_COOLDOWN_MS)).toBe('half-open');
    expect(breakers.admit(URL_A, BASE_COOLDOWN_MS + 1)).toBe(false);
    expect(breakers.admissible(URL_A, BASE_COOLDOWN_MS + 1)).toBe(false);
    expect(breakers.nextProbeAt([URL_A])).toBeNull(); // under way: its end decides
    expect(changes).toEqual(['a:closed~', 'a:open', 'a:half-open']);
  });

  it('a failed probe opens it again for twice as long, up to the cap; a successful one closes it', () => {
    const { breakers, changes } = opened();
    let t = BASE_COOLDOWN_MS;
    let cooldown = BASE_COOLDOWN_MS;
    for (let i = 0; i < 8; i++) {
      expect(breakers.admit(URL_A, t)).toBe(true);
      breakers.record(URL_A, true, 'still down', t);
      cooldown = Math.min(cooldown * 2, MAX_COOLDOWN_MS);
      expect(breakers.view(URL_A, t).probeAt).toBe(t + cooldown);
      t += cooldown;
    }
    expect(cooldown).toBe(MAX_COOLDOWN_MS);
    expect(breakers.admit(URL_A, t)).toBe(true);
    breakers.record(URL_A, false, null, t);
    expect(breakers.view(URL_A, t)).toMatchObject({ state: 'closed', failures: 0, probeAt: null });
    expect(changes.at(-1)).toBe('a:closed');
  });

  it('a first failure and a recovery below the threshold are announced as such (the inspector shows the count)', () => {
    const changes: string[] = [];
    const breakers = new CircuitBreakers((url, state, moved) => changes.push(`${state}${moved ? '' : '~'}`));
    breakers.record(URL_A, true, 'e', 0);
    breakers.record(URL_A, true, 'e', 0);
    breakers.record(URL_A, false, null, 0);
    breakers.record(URL_A, false, null, 0); // nothing left to recover from: silent
    expect(changes).toEqual(['closed~', 'closed~']);
  });

  it('release() gives back an unused probe; reset() closes at once', () => {
    const { breakers, changes } = opened();
    expect(breakers.admit(URL_A, BASE_COOLDOWN_MS)).toBe(true);
    breakers.release(URL_A);
    expect(breakers.admit(URL_A, BASE_COOLDOWN_MS)).toBe(true);
    breakers.reset(URL_A);
    expect(breakers.state(URL_A, 0)).toBe('closed');
    expect(changes.at(-1)).toBe('a:closed');
    breakers.reset(URL_B); // nothing to reset: no change announced
    expect(changes.at(-1)).toBe('a:closed');
    expect(changes.filter((c) => c.startsWith('b'))).toEqual([]);
  });
});
