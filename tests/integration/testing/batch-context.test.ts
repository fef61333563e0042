// A message's batch-level context, integrations and sentAt (a /v1/batch request's, beside `batch`) as a
// test sees the message: merged one level down, the message's own keys winning, as ingestion checked it
// against the tracking plans and as the export carries it — in sluice/testing's messages and waits, their
// filters, GET /api/v1/messages, the HTTP wait, and `sluice check` of a saved page. Before 2026-12-01 the
// view was the message's own JSON alone. A real relay (startSluice) on loopback, the real CLI.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSluice, type Sluice, type TestMessage } from '../../../electron/testing/index.ts';
import { CLI } from '../../helpers/cli.ts';
import { post, tempDir } from '../../helpers/core.ts';
import { indexCaughtUp } from '../../helpers/search-index.ts';

const open: Sluice[] = [];
afterEach(async () => {
  for (const sluice of open.splice(0)) await sluice.close();
});

// Every message must name its app: ingestion checks the context with the batch's merged in.
const PLAN = {
  events: { E: { type: 'object' } },
  context: { type: 'object', properties: { app: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }, required: ['app'] },
};

async function start(): Promise<Sluice> {
  const sluice = await startSluice({ config: { sources: [{ name: 'shop', writeKey: 'wk_shop' }], trackingPlans: [{ name: 'app plan', sources: ['shop'], plan: PLAN }] } });
  open.push(sluice);
  return sluice;
}

async function api(sluice: Sluice, route: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${sluice.apiUrl}${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${sluice.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

const SENT_AT = '2026-11-30T10:00:00.000Z';
const BATCH_CONTEXT = { app: { name: 'shop' }, library: { name: 'batch-lib' } };
// One message with no context of its own; one whose own `app` wins over the batch's, and whose own
// keys stay after those it takes (the export's order).
const plain = { batch: [{ type: 'track', event: 'E', userId: 'u', messageId: 'plain' }], context: BATCH_CONTEXT, integrations: { All: false }, sentAt: SENT_AT };
const ownApp = {
  batch: [{ type: 'track', event: 'E', userId: 'u', messageId: 'own', context: { app: { name: 'own' }, locale: 'fr' }, integrations: { Mixpanel: true } }],
  context: BATCH_CONTEXT,
  integrations: { All: false },
};
const ids = (messages: TestMessage[]) => messages.map((m) => m.messageId);

describe("a batch's context, integrations and sentAt", () => {
  it('show in the message (its own keys win) and match filters: messages, waits pending and asked after, over the word index too', async () => {
    const sluice = await start();
    // Pending before the message arrives: matched on the commit.
    const pending = sluice.waitForMessages({ context: { app: { name: 'shop' } } }, { timeoutMs: 10_000 });
    expect((await post(sluice, '/v1/batch', plain)).status).toBe(200);
    expect((await post(sluice, '/v1/batch', ownApp)).status).toBe(200);
    expect(ids(await pending)).toEqual(['plain']);
    // Once the search indexes hold them: a context string is not in the message's own words.
    await indexCaughtUp(sluice.dataDir, 30_000);

    const [first, second] = await sluice.messages();
    expect(first).toMatchObject({ messageId: 'plain', context: BATCH_CONTEXT, integrations: { All: false }, sentAt: SENT_AT, violations: [] });
    expect(second).toMatchObject({ messageId: 'own', context: { library: { name: 'batch-lib' }, app: { name: 'own' }, locale: 'fr' }, integrations: { All: false, Mixpanel: true }, violations: [] });
    expect(Object.keys(second!.context!)).toEqual(['library', 'app', 'locale']);
    expect(second!.sentAt).toBeUndefined();

    expect(ids(await sluice.messages({ context: { app: { name: 'shop' } } }))).toEqual(['plain']);
    expect(ids(await sluice.messages({ context: { app: { name: 'own' } } }))).toEqual(['own']);
    expect(ids(await sluice.messages({ context: { library: { name: 'batch-lib' } } }))).toEqual(['plain', 'own']);
    expect(ids(await sluice.messages({ context: { locale: 'fr', library: { name: 'batch-lib' } } }))).toEqual(['own']);
    expect(ids(await sluice.messages({ event: 'E', context: { app: { name: 'shop' } } }))).toEqual(['plain']);
    // Asked after: found on the wait's first look at the store (SQL).
    expect(ids(await sluice.waitForMessages({ context: { app: { name: 'shop' } } }, { timeoutMs: 1000 }))).toEqual(['plain']);
  });

  it('GET /api/v1/messages and the HTTP wait show and match them, as the export line carries them, byte for byte', async () => {
    const sluice = await start();
    await post(sluice, '/v1/batch', plain);
    await post(sluice, '/v1/batch', ownApp);
    const page = await api(sluice, '/messages');
    expect(page.status).toBe(200);
    const { messages } = JSON.parse(page.text) as { messages: TestMessage[] };
    expect(messages.map((m) => [m.messageId, (m.context as { app: { name: string } }).app.name])).toEqual([['plain', 'shop'], ['own', 'own']]);
    expect(messages[0]).toMatchObject({ context: BATCH_CONTEXT, integrations: { All: false }, sentAt: SENT_AT });

    const exported = await api(sluice, '/export?format=ndjson');
    const lines = exported.text.trimEnd().split('\n').map((line) => JSON.parse(line) as { message: Record<string, unknown> });
    expect(lines).toHaveLength(2);
    for (const [i, line] of lines.entries()) {
      for (const field of ['context', 'integrations', 'sentAt']) expect(JSON.stringify(messages[i]![field]), `${i} ${field}`).toBe(JSON.stringify(line.message[field]));
    }

    const waited = await api(sluice, '/messages/wait', { filter: { context: { app: { name: 'shop' } } }, timeoutMs: 1000 });
    expect(waited.status).toBe(200);
    expect(ids((JSON.parse(waited.text) as { messages: TestMessage[] }).messages)).toEqual(['plain']);
    const one = JSON.parse((await api(sluice, '/messages/by-id/plain')).text) as { message: TestMessage };
    expect(one.message.context).toEqual(BATCH_CONTEXT);
  });

  it('a rejected message that is a JSON object takes them, as its export line does; one that is not an object or not kept whole takes none', async () => {
    const sluice = await start();
    let deep: unknown = 1;
    for (let i = 0; i < 120; i++) deep = { d: deep };
    const res = await post(sluice, '/v1/batch', {
      batch: [{ type: 'track', userId: 'u', messageId: 'no-event' }, 42, { type: 'track', event: 'E', userId: 'u', messageId: 'deep', properties: deep }],
      context: { app: { name: 'shop' } },
    });
    // Each is stored, rejected (all of them: the request is answered 400).
    expect([res.status, res.json.error.code]).toEqual([400, 'all_rejected']);
    const rejected = await sluice.messages({ status: 'rejected' });
    expect(rejected.map((m) => [m.messageId, m.context])).toEqual([
      ['no-event', { app: { name: 'shop' } }],
      [undefined, undefined],
      ['deep', undefined],
    ]);
    expect(rejected[2]).toHaveProperty('_sluice'); // the stand-in ingestion keeps of a message too deep
    const exported = (await api(sluice, '/export?format=ndjson&status=rejected')).text.trimEnd().split('\n').map((line) => JSON.parse(line) as { message: unknown });
    expect(exported.map((line) => line.message)).toEqual([{ type: 'track', userId: 'u', messageId: 'no-event', context: { app: { name: 'shop' } } }, 42, null]);
    expect(ids(await sluice.messages({ status: 'rejected', context: { app: { name: 'shop' } } }))).toEqual(['no-event']);
  });

  it('`sluice check` of a saved GET /api/v1/messages page finds what ingestion found: the batch gave the context the plan requires', async () => {
    const sluice = await start();
    await post(sluice, '/v1/batch', plain);
    await post(sluice, '/v1/batch', ownApp);
    const page = await api(sluice, '/messages');
    const dir = tempDir('sluice-batch-context-');
    try {
      fs.writeFileSync(path.join(dir, 'plan.json'), JSON.stringify({ name: 'app plan', ...PLAN }));
      fs.writeFileSync(path.join(dir, 'page.ndjson'), `${page.text}\n`);
      const child = spawn(process.execPath, [CLI, 'check', '--plan', 'plan.json', 'page.ndjson'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'checked 2 messages against "plan.json" (sluice format): 0 with violations (0 violations), 0 unreadable lines\n', stderr: '' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
