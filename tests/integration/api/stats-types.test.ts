// GET /api/v1/stats counts messages by type, and a rejected message's type is whatever the client
// wrote (issue 24, point 7): counted in a plain object, "constructor" and "toString" printed a
// function's source and "__proto__" vanished. A real core and UI server on loopback, plain HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
let ui: UiServer | undefined;
afterEach(async () => {
  await ui?.close();
  await core?.dispose();
});

describe('GET /api/v1/stats', () => {
  it('counts types named like Object.prototype members as the types they are', async () => {
    core = await startCore();
    ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
    await ui.listen();
    const odd = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'toString'];
    const res = await post(core, '/v1/batch', {
      batch: [{ type: 'track', userId: 'u', event: 'Fine' }, ...odd.map((type) => ({ type, userId: 'u' }))],
    });
    expect(res.status).toBe(200);
    expect(res.json.rejected).toHaveLength(odd.length);

    const answer = await request(`${ui.apiUrl}/stats`, { headers: { authorization: `Bearer ${ui.token}` } });
    const text = await answer.body.text();
    expect(answer.statusCode).toBe(200);
    const { types, messages } = JSON.parse(text) as { types: Record<string, unknown>; messages: Record<string, number> };
    expect(messages).toMatchObject({ accepted: 1, rejected: odd.length });
    expect(Object.entries(types).sort()).toEqual(
      [['track', 1], ['constructor', 1], ['toString', 2], ['__proto__', 1], ['hasOwnProperty', 1], ['valueOf', 1]].sort(),
    );
    expect(text).not.toContain('native code');
    // In the process too (what the HTTP API serializes): own properties, numbers only.
    const inProcess = (await core.queries.stats()).types;
    expect(Object.hasOwn(inProcess, '__proto__')).toBe(true);
    expect(Object.values(inProcess).every((n) => typeof n === 'number')).toBe(true);
  });
});
