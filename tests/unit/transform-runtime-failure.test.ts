// What a delivery makes of a transform call the runtime could not run (no worker could start, a crash
// beside it, a close) — retried on its schedule, as the runtime's sentence promises — and of a call whose
// own code failed: failed. Before 2026-12-01 both failed the delivery for good.
import { describe, expect, it } from 'vitest';
import { transformed } from '../../electron/core/delivery/shaping.ts';
import type { TransformOutcome } from '../../electron/core/transforms/transformer.ts';

const recipe = { bodyShape: 'full' as const, sharedSecret: null };
const base = { version: 'abc123def456', ms: 0, logs: [] };

describe('a transform failure, for a delivery', () => {
  it('the runtime\'s: retried, saying the runtime failed and not the code', () => {
    const message = 'the transform runtime could not start a worker thread (EMFILE); the next calls try again';
    const shaped = transformed(recipe, { ...base, kind: 'failed', code: 'error', message, runtime: true } as TransformOutcome, null);
    expect(shaped).toMatchObject({ kind: 'retry', error: `the transform runtime could not run the call (${message}); retried on the delivery's schedule` });
  });

  it('the call\'s own: failed, as before', () => {
    const shaped = transformed(recipe, { ...base, kind: 'failed', code: 'error', message: 'boom' } as TransformOutcome, null);
    expect(shaped).toMatchObject({ kind: 'fail', error: 'the transform threw: boom' });
  });
});
