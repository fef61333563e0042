// What titles identify, group and alias rows in the stream (issue 18, "Clarity"): the core reads their
// names from the payload for each listed page, by id and in the detail. Real core (SQLite file,
// ingestion over HTTP), through the contract's handlers as the inspector calls them.
import { afterEach, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import type { MessageSummary } from '../../../shared/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

it('lists the identify’s email and name traits, the group’s id and name, the alias’s previousId; text only, cut at 200', async () => {
  core = await startCore();
  const handlers = createHandlers(core);
  const batch = [
    { type: 'identify', userId: 'u_1', traits: { email: 'ada@example.com', name: 'Ada' } },
    { type: 'identify', userId: 'u_2', traits: { email: { work: 'x' }, name: 'n'.repeat(300) } },
    { type: 'identify', userId: 'u_3' },
    { type: 'group', userId: 'u_1', groupId: 'g_42', traits: { name: 'Acme Inc' } },
    { type: 'group', userId: 'u_1', groupId: 42 },
    { type: 'alias', userId: 'u_1', previousId: 'anon_9' },
    { type: 'track', userId: 'u_1', event: 'Signed Up', properties: { email: 'not@this.one' } },
  ];
  expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
  // A rejected identify (its payload may not even be an object) gets none.
  const rejected = { type: 'identify', traits: { email: 'nobody@example.com' } }; // no user
  expect((await post(core, '/v1/batch', { batch: [rejected, { type: 'track', userId: 'u_9', event: 'Later' }] })).status).toBe(200);

  const listed = await invoke(handlers, 'messages.list', { limit: 50 });
  if (!listed.ok) throw new Error(listed.error.message);
  const rows = (listed.value as { messages: MessageSummary[] }).messages.reverse();
  expect(rows.map((m) => [m.type, m.names ?? null])).toEqual([
    ['identify', { email: 'ada@example.com', name: 'Ada' }],
    ['identify', { name: `${'n'.repeat(199)}…` }], // an object is no title
    ['identify', null],
    ['group', { groupId: 'g_42', name: 'Acme Inc' }],
    ['group', { groupId: '42' }],
    ['alias', { previousId: 'anon_9' }],
    ['track', null],
    ['identify', null],
    ['track', null],
  ]);
  expect(rows.at(-2)!.status).toBe('rejected');

  // The same through byIds (the live path) and in the detail.
  const byIds = await invoke(handlers, 'messages.byIds', { ids: [rows[5]!.id, rows[0]!.id] });
  if (!byIds.ok) throw new Error(byIds.error.message);
  expect((byIds.value as { messages: MessageSummary[] }).messages.map((m) => m.names)).toEqual([{ previousId: 'anon_9' }, { email: 'ada@example.com', name: 'Ada' }]);
  const detail = await invoke(handlers, 'messages.get', { id: rows[3]!.id });
  if (!detail.ok) throw new Error(detail.error.message);
  expect((detail.value as MessageSummary).names).toEqual({ groupId: 'g_42', name: 'Acme Inc' });
});
