// sluice/testing's errors carry the caller's stack (electron/testing/caller-stack.ts): an error made
// far from the call — in a timer, after awaits — is thrown with the frames of the line that called the
// public function, under its own name and message. The installed package's real Vitest run is in
// tests/packaging/testing-errors.test.ts.
import { describe, expect, it } from 'vitest';
import { withCallerStack } from '../../electron/testing/caller-stack.ts';

class LateError extends Error {
  override name = 'LateError';
}

/** Rejects from a timer, as a wait's timeout does: no frame of the caller is on the stack then. */
const waitInATimer = withCallerStack((message: string) => new Promise<never>((_, reject) => setTimeout(() => reject(new LateError(message)), 1)));
const throwAtOnce = withCallerStack((): number => {
  throw new TypeError('a filter is an object');
});

describe('withCallerStack', () => {
  it('gives a rejection made in a timer the caller\'s frames, under its own name and message', async () => {
    const error = (await waitInATimer('waited 1 ms\nfor nothing').catch((e: unknown) => e)) as LateError;
    expect(error).toBeInstanceOf(LateError);
    const [header, second, firstFrame] = error.stack!.split('\n');
    expect(`${header}\n${second}`).toBe('LateError: waited 1 ms\nfor nothing');
    expect(firstFrame).toMatch(/caller-stack\.test\.ts:\d+:\d+\)?$/);
    expect(error.stack).not.toMatch(/setTimeout|listOnTimeout/);
  });

  it('keeps a synchronous throw synchronous, with the caller\'s frames first', () => {
    let thrown: unknown;
    try {
      throwAtOnce();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).stack!.split('\n')[1]).toMatch(/caller-stack\.test\.ts:\d+:\d+\)?$/);
  });

  it('passes results through, and leaves what is not an Error alone', async () => {
    expect(await withCallerStack(async (n: number) => n * 2)(21)).toBe(42);
    expect(withCallerStack(() => 'sync')()).toBe('sync');
    await expect(withCallerStack(() => Promise.reject('a string'))()).rejects.toBe('a string');
  });
});
