// `sluice plan infer` writes what a plan should say (issue 30, point 4): `number` for numbers however
// whole they happened to be (`integer` only with --integers), no union for a field sent with several
// types — it is left untyped and told on stderr with its types, counts and a message of each — and it
// infers from a file as well as a store: an export of that store gives the same plan, and so does a HAR
// of the Tracking API calls. The inspector's Add to plan (plans.addEvent) infers the same way. The real
// CLI in a child process, beside a real relay and its store.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { runSluice as sluice } from '../../helpers/cli.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const orders = [
  { type: 'track', event: 'Order Completed', userId: 'u1', messageId: 'm1', properties: { price: 12, currency: 'EUR', coupon: 'SPRING' } },
  { type: 'track', event: 'Order Completed', userId: 'u2', messageId: 'm2', properties: { price: 7, currency: 'USD', coupon: 5 } },
  { type: 'track', event: 'Order Completed', userId: 'u3', messageId: 'm3', properties: { price: 30, currency: 'EUR', coupon: 'FALL' } },
  { type: 'track', event: 'Signed Up', userId: 'u1', messageId: 'm4', properties: { plan: 'pro' } },
  { type: 'identify', userId: 'u1', messageId: 'm5', traits: { age: 31 } },
];
const MIXED_LINE = 'mixed types at track "Order Completed" properties.coupon: string 2 (e.g. messageId "m1"), number 1 (e.g. messageId "m2"); left without a type: choose one in the plan';

type Plan = { events: Record<string, { properties: Record<string, unknown> }>; identify: { properties: Record<string, unknown> } };

describe('sluice plan infer: number, no unions, from a store, an export or a HAR', () => {
  let core: TestCore;
  let dataDir: string;
  let dir: string;

  beforeAll(async () => {
    dataDir = tempDir('sluice-infer-types-');
    dir = tempDir('sluice-infer-files-');
    core = await startCore({
      dataDir,
      config: parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_infer' }], trackingPlans: [{ name: 'p', plan: { events: {} }, unplanned: 'allow' }] })),
    });
    expect((await post(core, '/v1/batch', { batch: orders })).status).toBe(200);
    // A copy of m1 with a boolean coupon: a duplicate, which no plan checks, must not make the coupon a third type.
    expect((await post(core, '/v1/track', { ...orders[0], properties: { ...orders[0]!.properties, coupon: true } })).status).toBe(200);
  });

  afterAll(async () => {
    await core?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('from the store: a whole price is a number, the coupon sent as a string and a number is untyped and told on stderr', async () => {
    const run = await sluice(['plan', 'infer', '--data-dir', dataDir]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`inferred 2 events, identify (from 5 messages)\n${MIXED_LINE}\n`);
    const plan = JSON.parse(run.stdout) as Plan;
    expect(plan.events['Order Completed']!.properties).toEqual({ coupon: {}, currency: { type: 'string' }, price: { type: 'number' } });
    expect(plan.identify.properties).toEqual({ age: { type: 'number' } });
    expect(run.stdout).not.toContain('integer');
  });

  it('--integers writes integer where every number was whole', async () => {
    const run = await sluice(['plan', 'infer', '--data-dir', dataDir, '--integers']);
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout) as Plan;
    expect(plan.events['Order Completed']!.properties.price).toEqual({ type: 'integer' });
    expect(plan.identify.properties).toEqual({ age: { type: 'integer' } });
  });

  it('--from an export of the store gives the same plan (its duplicate left out), from a file or stdin', async () => {
    const file = path.join(dir, 'export.ndjson');
    const exported = await sluice(['export', '--data-dir', dataDir, '--out', file]);
    expect(exported.code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toContain('"status":"duplicate"');
    const fromStore = await sluice(['plan', 'infer', '--data-dir', dataDir]);
    const fromFile = await sluice(['plan', 'infer', '--from', file]);
    expect(fromFile).toEqual({ code: 0, stdout: fromStore.stdout, stderr: `inferred 2 events, identify (from 5 messages in ${file})\n${MIXED_LINE}\n` });
    const fromStdin = await sluice(['plan', 'infer', '--from', '-'], { stdin: fs.readFileSync(file, 'utf8') });
    expect(fromStdin.stdout).toBe(fromStore.stdout);
    expect(fromStdin.stderr.split('\n')[0]).toBe('inferred 2 events, identify (from 5 messages in <stdin>)');
  });

  it('--from a HAR: the bodies of its POSTs to Tracking API paths (a batch, a single call whose type is its path, base64 too); other entries are not messages', async () => {
    const entry = (method: string, url: string, body?: unknown, base64 = false) => ({
      startedDateTime: '2025-03-01T12:00:00.000Z',
      time: 1,
      request: {
        method,
        url,
        httpVersion: 'HTTP/1.1',
        headers: [],
        queryString: [],
        cookies: [],
        headersSize: -1,
        bodySize: -1,
        ...(body !== undefined ? { postData: { mimeType: 'application/json', text: base64 ? Buffer.from(JSON.stringify(body)).toString('base64') : JSON.stringify(body), ...(base64 ? { encoding: 'base64' } : {}) } } : {}),
      },
      response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [], cookies: [], content: { size: 0, mimeType: 'application/json' }, redirectURL: '', headersSize: -1, bodySize: -1 },
      cache: {},
      timings: { send: 0, wait: 1, receive: 0 },
    });
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'test', version: '1' },
        entries: [
          entry('POST', 'https://api.segment.io/v1/batch', { batch: orders.slice(0, 2) }),
          entry('GET', 'https://cdn.segment.com/v1/projects/abc/settings'),
          entry('POST', 'https://api.segment.io/v1/track', { event: 'Order Completed', userId: 'u3', messageId: 'm3', properties: orders[2]!.properties }),
          entry('POST', 'https://api.segment.io/v1/identify', { userId: 'u1', messageId: 'm5', traits: { age: 31 } }, true),
          entry('POST', 'https://example.com/collect', { event: 'Not Tracking API', properties: { x: 1 } }),
        ],
      },
    };
    const file = path.join(dir, 'calls.har');
    fs.writeFileSync(file, JSON.stringify(har, null, 2)); // as browsers write it: over many lines
    const run = await sluice(['plan', 'infer', '--from', file]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`inferred 1 event, identify (from 4 messages in ${file})\n${MIXED_LINE}\n`);
    const plan = JSON.parse(run.stdout) as Plan;
    expect(Object.keys(plan.events)).toEqual(['Order Completed']);
    expect(plan.events['Order Completed']!.properties).toEqual({ coupon: {}, currency: { type: 'string' }, price: { type: 'number' } });
    expect(plan.identify.properties).toEqual({ age: { type: 'number' } });
  });

  it('refuses --from with --data-dir, a file that is not there, and a file without messages, with a sentence and exit 2', async () => {
    const both = await sluice(['plan', 'infer', '--from', 'x.ndjson', '--data-dir', dataDir]);
    expect(both.code).toBe(2);
    expect(both.stderr.split('\n')[0]).toBe('sluice: --from reads a file: give it without --data-dir and --source');
    const missing = await sluice(['plan', 'infer', '--from', path.join(dir, 'missing.har')]);
    expect(missing).toMatchObject({ code: 2, stdout: '', stderr: `sluice: cannot read ${path.join(dir, 'missing.har')}: there is no such file\n` });
    const empty = path.join(dir, 'nothing.ndjson');
    fs.writeFileSync(empty, '{"type": "alias", "userId": "a", "previousId": "b"}\nnot json\n');
    const none = await sluice(['plan', 'infer', '--from', empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^sluice: no track, identify, group, page or screen messages in .*nothing\.ndjson to infer a plan from .*; 1 line or entry could not be read and was skipped \(.*nothing\.ndjson:2: the line is not JSON/);
  });

  it('Add to plan (plans.addEvent) infers the same way: number, the mixed field untyped and named with its examples', async () => {
    const preview = await core.operations['plans.addEvent']({ name: 'p', type: 'track', event: 'Order Completed', dryRun: true });
    expect(preview.examples).toBe(3);
    expect((preview.schema as { properties: unknown }).properties).toEqual({ coupon: {}, currency: { type: 'string' }, price: { type: 'number' } });
    expect(preview.mixed).toEqual([
      { type: 'track', event: 'Order Completed', path: 'properties.coupon', types: [{ type: 'string', count: 2, example: 'm3' }, { type: 'number', count: 1, example: 'm2' }] },
    ]);
  });
});
