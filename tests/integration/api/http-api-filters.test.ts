// The HTTP API's filters (issue 24, points 2 and 3): a parameter an endpoint does not read is an error,
// not a filter left out that matches every message; `search` (the query language) on /messages,
// /deliveries and /export; a query that does not parse is a JSON 400 before any byte of an answer,
// streamed or not. And /messages and /deliveries, read by id with SQL, answer what the test queries'
// JavaScript filter picks (core/queries/filters.ts), with the same cursors. A real core, UI server and
// webhook receiver on loopback, plain HTTP requests.
import fs from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { matches } from '../../../electron/core/queries/filters.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { indexCaughtUp } from '../../helpers/search-index.ts';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

let ui: UiServer;

async function setup(options: { receiver?: Receiver; plan?: boolean } = {}): Promise<TestCore> {
  const config = parseConfig(
    JSON.stringify({
      sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }],
      destinations: options.receiver ? [{ name: 'hooks', sources: ['web'], webhooks: [{ url: `${options.receiver.url}/in` }] }] : [],
      ...(options.plan
        ? { trackingPlans: [{ name: 'shop', sources: ['web'], plan: { events: { 'Order Completed': { type: 'object', properties: { price: { type: 'number' } } } } }, forwardViolationsTo: 'hooks' }] }
        : {}),
    }),
  );
  const core = await startCore({ config });
  core.writeKey = 'wk_web';
  open.push({ close: () => core.dispose() });
  ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
  await ui.listen();
  open.push(ui);
  return core;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  open.push(r);
  return r;
}

/** Resolves once no delivery is pending or retrying: what a page reads does not change meanwhile. */
async function settled(core: TestCore): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const counts = core.deliveries.countByStatus();
    if (!counts.pending && !counts.retrying) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('deliveries did not settle within 10 s');
}

async function api(pathname: string, method: 'GET' | 'POST' = 'GET') {
  const res = await request(`${ui.apiUrl}${pathname}`, { method, headers: { authorization: `Bearer ${ui.token}` } });
  const text = await res.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json, headers: res.headers };
}

const messageIds = (json: { messages: { messageId: string }[] }) => json.messages.map((m) => m.messageId);

/** Every page of `pathname` (limit per page), followed by its cursors: the items, and the cursors seen. */
async function allPages(pathname: string, key: 'messages' | 'deliveries', limit: number): Promise<{ items: any[]; cursors: string[] }> {
  const items: any[] = [];
  const cursors: string[] = [];
  const join = pathname.includes('?') ? '&' : '?';
  for (let after: string | null = null; ; ) {
    const page = await api(`${pathname}${join}limit=${limit}${after ? `&after=${after}` : ''}`);
    expect(page.status, page.text).toBe(200);
    items.push(...page.json[key]);
    if (page.json.next === null) return { items, cursors };
    cursors.push(page.json.next);
    after = page.json.next;
  }
}

const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/http-api.openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { parameters?: ({ $ref: string } | { name: string; in: string })[]; responses?: Record<string, unknown> }>>;
  components: { parameters: Record<string, { name: string; in: string }> };
};

/** The query parameters the OpenAPI document gives an operation ($refs resolved). */
function documentedQuery(route: string, method: string): string[] {
  return (doc.paths[route]![method]!.parameters ?? [])
    .map((p) => ('$ref' in p ? doc.components.parameters[p.$ref.split('/').at(-1)!]! : p))
    .filter((p) => p.in === 'query')
    .map((p) => p.name);
}

describe('a query parameter an endpoint does not read', () => {
  it('is refused with 400 unknown_parameter naming it and the valid ones, on every endpoint; the valid ones are the documented ones', async () => {
    const core = await setup();
    await post(core, '/v1/track', { userId: 'u', event: 'Real', messageId: 'r-1' });
    // The measured case: a misspelt filter answered every message with 200.
    const misspelt = await api('/messages?evnt=Nope');
    expect(misspelt.status).toBe(400);
    expect(misspelt.json.error.code).toBe('unknown_parameter');
    expect(misspelt.json.error.message).toBe(
      'GET /api/v1/messages has no parameter "evnt": its parameters are type, event, userId, anonymousId, source, messageId, status, origin, violations, search, limit, after, afterSequence, order',
    );
    for (const [route, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) {
        const res = await api(`${route.replace('{messageId}', 'r-1')}?bogus=1`, method.toUpperCase() as 'GET' | 'POST');
        const where = `${method.toUpperCase()} ${route}`;
        expect(res.status, where).toBe(400);
        expect(res.json.error.code, where).toBe('unknown_parameter');
        expect(Object.keys(doc.paths[route]![method]!.responses ?? {}), `${where} documents its 400`).toContain('400');
        const named = /has no parameter "bogus": (?:its parameters are (.*)|it takes no query parameters)$/.exec(res.json.error.message);
        expect(named, res.json.error.message).not.toBeNull();
        expect((named![1]?.split(', ') ?? []).sort(), where).toEqual(documentedQuery(route, method).sort());
      }
    }
    // Given twice, only one value would be read: refused as well.
    expect((await api('/messages?event=Real&event=Other')).json.error).toEqual({ code: 'invalid_request', message: '"event" is given more than once: give it once' });
    expect(messageIds((await api('/messages?event=Real')).json)).toEqual(['r-1']);
  });

  it('given empty (a script\'s unset variable) is refused on every endpoint that reads it, not read as no filter', async () => {
    const core = await setup();
    await post(core, '/v1/track', { userId: 'u', event: 'Real', messageId: 'r-1' });
    for (const [route, names] of [
      ['/messages', ['event', 'type', 'userId', 'source', 'messageId', 'status', 'origin', 'violations', 'search']],
      ['/deliveries', ['event', 'destination', 'status', 'search']],
      ['/export', ['event', 'type', 'userId', 'source', 'status', 'search', 'since', 'format', 'delivery']],
    ] as const) {
      for (const name of names) {
        const res = await api(`${route}?${name}=`);
        expect([res.status, res.json?.error?.code], `${route}?${name}=`).toEqual([400, 'invalid_request']);
        expect(res.json.error.message, `${route}?${name}=`).toMatch(new RegExp(`^"${name}" is empty|^${name} must be`));
      }
    }
  });
});

describe('search on /messages, /deliveries and /export', () => {
  it('picks the messages the query matches, through the index and past it, with the filters and paging', async () => {
    const hooks = await receiver();
    const core = await setup({ receiver: hooks });
    const plans = ['basic', 'gold', 'gold', 'team', 'gold', 'basic'];
    for (const [i, plan] of plans.entries()) {
      await post(core, '/v1/track', { userId: `u_${i % 2}`, event: i % 3 === 0 ? 'Signed Up' : 'Upgraded', messageId: `m-${i}`, properties: { plan, seats: i } });
    }
    await indexCaughtUp(core.dataDir);
    // Two more after the indexes caught up: a search reads them past the indexed range.
    await post(core, '/v1/track', { userId: 'u_0', event: 'Upgraded', messageId: 'm-6', properties: { plan: 'gold', seats: 6 } });
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_ios' }, '/v1/identify', { userId: 'u_9', messageId: 'm-7', traits: { plan: 'gold' } });
    await hooks.waitFor(7);
    await settled(core);

    expect(messageIds((await api('/messages?search=gold')).json)).toEqual(['m-1', 'm-2', 'm-4', 'm-6', 'm-7']);
    expect(messageIds((await api(`/messages?search=${encodeURIComponent('properties.plan:gold -u_1')}`)).json)).toEqual(['m-2', 'm-4', 'm-6']);
    expect(messageIds((await api(`/messages?search=${encodeURIComponent('properties.seats:>=4')}&event=Upgraded`)).json)).toEqual(['m-4', 'm-5', 'm-6']);
    expect(messageIds((await api('/messages?search=enterprise')).json)).toEqual([]);
    expect(messageIds((await api('/messages?search=gold&source=ios')).json)).toEqual(['m-7']);
    // Paged one at a time: the same matches, each cursor the last match's row id.
    const paged = await allPages('/messages?search=gold', 'messages', 1);
    expect(paged.items.map((m) => m.messageId)).toEqual(['m-1', 'm-2', 'm-4', 'm-6', 'm-7']);
    const rowIds = new Map(core.messages.list({ limit: 100 }).map((m) => [m.messageId, m.id]));
    expect(paged.cursors).toEqual(['m-1', 'm-2', 'm-4', 'm-6'].map((id) => `0:${rowIds.get(id)}`));

    const deliveries = await api('/deliveries?search=gold');
    expect(deliveries.status).toBe(200);
    expect(deliveries.json.deliveries.map((d: { message: { messageId: string } }) => d.message.messageId)).toEqual(['m-1', 'm-2', 'm-4', 'm-6']);
    expect(deliveries.json.deliveries.every((d: { destination: string }) => d.destination === 'hooks')).toBe(true);
    const pagedDeliveries = await allPages(`/deliveries?search=${encodeURIComponent('properties.plan:gold')}&userId=u_0`, 'deliveries', 1);
    expect(pagedDeliveries.items.map((d) => d.message.messageId)).toEqual(['m-2', 'm-4', 'm-6']);
    expect(pagedDeliveries.cursors).toEqual(pagedDeliveries.items.slice(0, -1).map((d) => `0:${d.id}`));

    const exported = await api('/export?search=gold');
    expect(exported.text.split('\n').filter(Boolean).map((l) => JSON.parse(l).messageId)).toEqual(['m-1', 'm-2', 'm-4', 'm-6', 'm-7']);
  });

  it('a query that does not parse is 400 invalid_query with the parser\'s sentence, found before the first byte of a streamed answer', async () => {
    const core = await setup();
    await post(core, '/v1/track', { userId: 'u', event: 'Any', messageId: 'a-1' });
    // The measured case: the export's headers went out before the query was read, and the connection was dropped.
    for (const endpoint of ['/export', '/export?format=har', '/messages', '/deliveries']) {
      const res = await api(`${endpoint}${endpoint.includes('?') ? '&' : '?'}search=${encodeURIComponent('properties.revenue:>=')}`);
      expect(res.status, endpoint).toBe(400);
      expect(res.headers['content-type'], endpoint).toBe('application/json; charset=utf-8');
      expect(res.headers['content-disposition'], endpoint).toBeUndefined();
      expect(res.json, endpoint).toEqual({ error: { code: 'invalid_query', message: 'search: properties.revenue:>=: >= compares with a number, e.g. properties.revenue:>=10' } });
    }
    const unclosed = await api(`/export?search=${encodeURIComponent('"unclosed')}`);
    expect(unclosed).toMatchObject({ status: 400, json: { error: { code: 'invalid_query', message: 'search: a quote is not closed: end the value with "' } } });
  });
});

describe('/messages and /deliveries read by id with SQL', () => {
  it('answer what the test queries\' filter picks, for each filter, with the same pages', async () => {
    const hooks = await receiver();
    const core = await setup({ receiver: hooks, plan: true });
    await post(core, '/v1/batch', {
      batch: [
        { type: 'track', event: 'Order Completed', userId: 42, messageId: 'num-user', properties: { price: 12 } },
        { type: 'track', event: 'Order Completed', userId: 'u_1', messageId: 'violating', properties: { price: 'twelve' } },
        { type: 'page', name: 'Home', anonymousId: 'a_1', messageId: 'page-home' },
        { type: 'identify', userId: 'u_1', event: 'Home', traits: { a: 1 } }, // no messageId: Sluice gives one; an "event" of its own
        { type: 'purchase', userId: 'u_2', messageId: 5 }, // rejected: an unknown type, a messageId that is a number
        { type: 'track', event: 7, userId: 'u_2', messageId: 'bad-event' }, // rejected: an event that is a number
        { type: 'track', event: 'Order Completed', userId: 'u_1', messageId: 'num-user', properties: { price: 1 } }, // a duplicate
      ],
    });
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_ios' }, '/v1/screen', { userId: 'u_1', name: 'Home', messageId: 'screen-home' });
    await hooks.waitFor(5); // the 4 accepted messages of web, and the violation's Violation Generated event
    await settled(core);
    const filters: Record<string, string>[] = [
      {},
      { type: 'track' },
      { type: 'purchase' },
      { type: 'page' },
      { event: 'Order Completed' },
      { event: 'Home' },
      { event: '7' },
      { event: 'Violation Generated' },
      { event: 'Violation Generated', origin: 'plan' },
      { origin: 'plan' },
      { origin: 'ingest', status: 'accepted' },
      { userId: '42' },
      { userId: 'u_1', source: 'web' },
      { anonymousId: 'a_1' },
      { source: 'ios' },
      { messageId: 'num-user' },
      { messageId: '5' },
      { status: 'rejected' },
      { status: 'duplicate' },
      { violations: 'true' },
      { violations: 'false', type: 'track' },
    ];
    // What the API answers, read by SQL, against every stored message filtered in JavaScript (matches).
    const everything = [...(await core.queries.rows({})), ...(await core.queries.rows({ origin: 'plan' }))].sort((a, b) => a.id - b.id);
    for (const filter of filters) {
      const { violations, ...rest } = filter;
      const wanted = { ...rest, ...(violations !== undefined ? { violations: violations === 'true' } : {}) };
      const expected = everything.filter((r) => matches(r.message, wanted));
      expect(await core.queries.rows(wanted), JSON.stringify(filter)).toEqual(expected);
      const query = new URLSearchParams(filter).toString();
      const whole = await api(`/messages?${query}`);
      expect(whole.json.messages, query).toEqual(expected.map((r) => r.message));
      const paged = await allPages(`/messages?${query}`, 'messages', 2);
      expect(paged.items, query).toEqual(expected.map((r) => r.message));
      expect(paged.cursors, query).toEqual(expected.filter((_, i) => i % 2 === 1 && i < expected.length - 1).map((r) => `0:${r.id}`));
    }
    // /stats counts without reading every row (event_counts, partial indexes): as counting every stored message does.
    const statuses: Record<string, number> = { accepted: 0, rejected: 0, duplicate: 0 };
    const types: Record<string, number> = {};
    for (const { message } of everything) (statuses[message.status]! += 1, (types[String(message.type)] = (types[String(message.type)] ?? 0) + 1));
    const everyDelivery = [...(await core.queries.deliveries({})), ...(await core.queries.deliveries({ origin: 'plan' }))];
    const deliveryStatuses: Record<string, number> = {};
    for (const d of everyDelivery) deliveryStatuses[d.status] = (deliveryStatuses[d.status] ?? 0) + 1;
    expect(await core.queries.stats()).toEqual({ messages: statuses, types, deliveries: deliveryStatuses });
    expect(statuses).toMatchObject({ rejected: 2, duplicate: 1 });
    expect((await core.queries.rows({ type: 'purchase' })).length).toBe(1); // the filters above pick something: the comparison is not of nothing with nothing
    expect((await core.queries.rows({ event: 'Home' })).length).toBe(1);
    for (const filter of [{}, { destination: 'hooks' }, { status: 'delivered' }, { event: 'Order Completed' }, { origin: 'plan' }, { userId: 'u_1' }] as Record<string, string>[]) {
      const expected = await core.queries.deliveries(filter);
      const query = new URLSearchParams(filter).toString();
      expect((await api(`/deliveries?${query}`)).json.deliveries, query).toEqual(expected);
      expect((await allPages(`/deliveries?${query}`, 'deliveries', 1)).items, query).toEqual(expected);
    }
    expect((await core.queries.deliveries({ origin: 'plan' })).length).toBe(1);
  });
});
