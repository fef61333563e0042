// Client options: defaults, the seed's `size` alias, and clear errors for bad values.
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOST, DEFAULT_INGEST_PORT } from '../../shared/limits.ts';
import { DEFAULT_ENDPOINT, resolveOptions } from '../../electron/client/options.ts';
import { ClientError } from '../../electron/client/errors.ts';
import { debugEnabled, createDebugLog } from '../../electron/client/debug-log.ts';

function invalid(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).code).toBe('invalid_option');
    return (error as Error).message;
  }
  throw new Error('expected invalid_option');
}

describe('resolveOptions', () => {
  it('defaults to the seed: flushAt 20, flushAfter 5 s, and Sluice’s local endpoint', () => {
    const o = resolveOptions('wk');
    expect(DEFAULT_ENDPOINT).toBe(`http://${DEFAULT_HOST}:${DEFAULT_INGEST_PORT}`);
    expect(o.endpoint.href).toBe('http://127.0.0.1:8787/');
    expect(o).toMatchObject({ flushAt: 20, flushAfter: 5000, maxQueueSize: 10_000, maxQueueBytes: 16 << 20, maxInFlight: 4, maxRetries: 3, timeoutMs: 10_000 });
  });
  it('takes size as the seed’s name for flushAt', () => {
    expect(resolveOptions('wk', { size: 1 }).flushAt).toBe(1);
    expect(resolveOptions('wk', { flushAt: 5, size: 5 }).flushAt).toBe(5);
    expect(invalid(() => resolveOptions('wk', { flushAt: 5, size: 6 }))).toMatch(/same setting/);
  });
  it('refuses bad values, naming them', () => {
    expect(invalid(() => resolveOptions(''))).toMatch(/writeKey/);
    expect(invalid(() => resolveOptions(undefined))).toMatch(/writeKey/);
    expect(invalid(() => resolveOptions('wk', { flushAt: 0 }))).toMatch(/flushAt must be an integer from 1 to 2500/);
    expect(invalid(() => resolveOptions('wk', { flushAt: 2501 }))).toMatch(/flushAt/);
    expect(invalid(() => resolveOptions('wk', { flushAfter: -1 }))).toMatch(/flushAfter/);
    expect(invalid(() => resolveOptions('wk', { maxRetries: 1.5 }))).toMatch(/maxRetries/);
    expect(invalid(() => resolveOptions('wk', { flushAt: 50, maxQueueSize: 10 }))).toMatch(/maxQueueSize must be an integer from 50/);
    expect(invalid(() => resolveOptions('wk', { endpoint: 'localhost:8787' }))).toMatch(/http or https/);
    expect(invalid(() => resolveOptions('wk', { endpoint: 'not a url' }))).toMatch(/not a URL/);
    expect(invalid(() => resolveOptions('wk', { endpoint: 'http://k:@127.0.0.1' }))).toMatch(/credentials/);
    expect(invalid(() => resolveOptions('wk', { onError: 'log' as never }))).toMatch(/onError must be a function/);
  });
});

describe('DEBUG', () => {
  it('turns logging on for "analytics" in the list, or wildcards', () => {
    for (const value of ['analytics', 'express,analytics', 'x analytics', '*', 'analytics*', 'analytics:*']) expect(debugEnabled(value)).toBe(true);
    for (const value of [undefined, '', 'analytics-node', 'express', 'analyticsx']) expect(debugEnabled(value)).toBe(false);
  });
  it('writes one line per event, with key=value fields', () => {
    const lines: string[] = [];
    const log = createDebugLog('analytics', (line) => lines.push(line), () => Date.parse('2026-11-20T08:30:00.123Z'))!;
    log('retry', { batch: 3, inMs: 512, message: 'the endpoint answered 500', skipped: undefined });
    expect(lines).toEqual(['analytics 2026-11-20T08:30:00.123Z retry batch=3 inMs=512 message="the endpoint answered 500"\n']);
    expect(createDebugLog('express')).toBeNull();
  });
});
