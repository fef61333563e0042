// A NUL in a filter's value over the HTTP API (a real core and API server on loopback): the value is
// matched exactly, as any other. Before 2026-12-01 the trigram index's hint put it inside an FTS5 phrase,
// which a NUL ends: "unterminated string", answered 500 (and a wait rejected with SQLite's error).
import { expect, it } from 'vitest';
import { closedAfterEach, relayWithApi } from '../../helpers/api-host.ts';
import { post } from '../../helpers/core.ts';
import { indexCaughtUp } from '../../helpers/search-index.ts';

const closing = closedAfterEach();

it('matches a value holding a NUL exactly, in a list, a search and a wait', async () => {
  const { core, api: call } = await relayWithApi(closing);
  const api = (path: string, body?: unknown) => call<{ messages?: { messageId: string }[] }>(path, body);
  expect((await post(core, '/v1/track', { userId: 'ab\u0000cd', event: 'E', messageId: 'nul-1' })).status).toBe(200);
  await post(core, '/v1/track', { userId: 'abcd', event: 'E', messageId: 'plain-1' });
  await api('/messages/wait', { filter: { messageId: 'plain-1' }, timeoutMs: 5_000 });
  await indexCaughtUp(core.dataDir, 30_000); // the index's hint is used where it holds the messages

  const listed = await api(`/messages?userId=${encodeURIComponent('ab\u0000cd')}`);
  expect(listed.status).toBe(200);
  expect(listed.json.messages!.map((m) => m.messageId)).toEqual(['nul-1']);
  const searched = await api(`/messages?search=${encodeURIComponent('userId:"ab\u0000cd"')}`);
  expect(searched.status).toBe(200);
  expect(searched.json.messages!.map((m) => m.messageId)).toEqual(['nul-1']);
  const waited = await api('/messages/wait', { filter: { userId: 'ab\u0000cd' }, timeoutMs: 5_000 });
  expect(waited.status).toBe(200);
  expect(waited.json.messages!.map((m) => m.messageId)).toEqual(['nul-1']);
});
