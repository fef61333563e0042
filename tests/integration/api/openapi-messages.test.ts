// The OpenAPI document (docs/http-api.openapi.json, shipped in the package) against what the HTTP API
// answers, checked with a JSON Schema validator as a client generated from the document would check it:
// every message of GET /messages — rejected ones too, whose type and messageId are whatever the client
// sent — and a newest-first page's cursor given back as `after`. Before 2026-12-01 the document required a
// string `type` every message has (a refused request's stand-in has none, a batch element may carry 42),
// and its `after` pattern refused the cursor a newest-first page gives. A real core and API on loopback.
import fs from 'node:fs';
import path from 'node:path';
import AjvModule from 'ajv';
import { expect, it } from 'vitest';
import { closedAfterEach, relayWithApi } from '../../helpers/api-host.ts';
import { post } from '../../helpers/core.ts';

const closing = closedAfterEach();
const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/http-api.openapi.json'), 'utf8')) as {
  components: { parameters: Record<string, { schema: { pattern?: string } }> };
};

it('describes every message the list answers, rejected ones too, and the cursor a newest-first page gives', async () => {
  const { core, api } = await relayWithApi(closing);
  await post(core, '/v1/track', { userId: 'u', event: 'Fine', messageId: 'ok-1' });
  await post(core, '/v1/batch', { batch: [{ userId: 'u', event: 'No Type' }, { type: 42, userId: 'u' }, { type: 'track', userId: 'u', event: 'E', messageId: 5 }] });
  await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_nobody' }, '/v1/track', { userId: 'u', event: 'Refused' });
  await api('/messages/wait', { filter: { status: 'rejected' }, count: 4, timeoutMs: 5_000 });

  const ajv = new AjvModule.default({ allErrors: true, strict: false, validateFormats: false });
  ajv.addSchema(doc, 'api');
  const message = ajv.getSchema('api#/components/schemas/Message')!;
  const listed = (await api<{ messages: unknown[] }>('/messages')).json.messages; // every status
  expect(listed).toHaveLength(5);
  for (const item of listed) expect(message(item) ? [] : message.errors, JSON.stringify(item).slice(0, 200)).toEqual([]);

  const page = await api<{ next: string }>('/messages?status=rejected&order=newest&limit=1');
  expect(page.json.next).toMatch(new RegExp(doc.components.parameters.after!.schema.pattern!));
});
