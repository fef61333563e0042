// receiver.inbox and receiver.setBehaviour through the contract: the newest entries, each hook's
// behaviour (so a reloaded inspector shows what it was set to), and refusals of bad behaviours.
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import type { Responses } from '../../../shared/contract.ts';
import { startCore, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

describe('receiver.inbox over the contract', () => {
  it('returns the newest entries up to the limit and every hook’s behaviour', async () => {
    core = await startCore();
    const handlers = createHandlers(core);
    for (const n of [1, 2, 3]) {
      await request(core.receiver.hookUrl(n === 3 ? 'b' : 'a'), { method: 'POST', body: `{"n":${n}}` }).then((r) => r.body.text());
    }
    expect(await invoke(handlers, 'receiver.setBehaviour', { hook: 'b', behaviour: { mode: 'random', failureRate: 0.25 } })).toEqual({
      ok: true,
      value: { hook: 'b', behaviour: { mode: 'random', failureRate: 0.25, status: 500 } },
    });
    const all = (await invoke(handlers, 'receiver.inbox', {})) as { ok: true; value: Responses['receiver.inbox'] };
    expect(all.value.entries.map((e) => e.body)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(all.value.behaviours).toEqual({ b: { mode: 'random', failureRate: 0.25, status: 500 } });
    const newest = (await invoke(handlers, 'receiver.inbox', { limit: 2 })) as { ok: true; value: Responses['receiver.inbox'] };
    expect(newest.value.entries.map((e) => e.body)).toEqual(['{"n":2}', '{"n":3}']);
    const onlyA = (await invoke(handlers, 'receiver.inbox', { hook: 'a', limit: 1 })) as { ok: true; value: Responses['receiver.inbox'] };
    expect(onlyA.value.entries.map((e) => e.body)).toEqual(['{"n":2}']);
  });

  it('refuses a behaviour it cannot follow, with the field that is wrong', async () => {
    core = await startCore();
    const handlers = createHandlers(core);
    const refused = await invoke(handlers, 'receiver.setBehaviour', { hook: 'a', behaviour: { mode: 'status', status: 1000 } });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('status') } });
    // 1xx are interim answers: a sender cannot take one as the answer (undici reports a reset or waits).
    const interim = await invoke(handlers, 'receiver.setBehaviour', { hook: 'a', behaviour: { mode: 'status', status: 103 } });
    expect(interim).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('status') } });
    expect(await invoke(handlers, 'receiver.inbox', { limit: 0 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(core.receiver.behaviours()).toEqual({});
  });
});
