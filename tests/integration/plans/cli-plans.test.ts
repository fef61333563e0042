// `sluice check`, `sluice plan infer` and `sluice plan import` as a user runs them: the real CLI in a
// child process, on fixture files (tests/fixtures/cli-plans) and on the store of a real relay that is
// running while the plan is inferred from it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { CLI } from '../../helpers/cli.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/cli-plans');
// A Segment Protocols plan as the Config API hands it out (shared with the plan modules' tests).
const SEGMENT_PLAN = path.resolve(import.meta.dirname, '../../fixtures/plans/segment-config-api.json');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `sluice ...args` to completion in `cwd` (the fixtures by default, so that printed paths are short), `stdin` piped in. */
function sluice(args: string[], options: { cwd?: string; stdin?: string } = {}): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? FIXTURES, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const lines = (text: string) => text.trimEnd().split('\n');

describe('sluice check', () => {
  it('exits 0 with the summary when every message conforms (blank lines skipped)', async () => {
    const run = await sluice(['check', '--plan', 'plan.json', 'clean.ndjson']);
    expect(run).toEqual({ code: 0, stdout: 'checked 4 messages against "plan.json" (sluice format): 0 with violations (0 violations), 0 unreadable lines\n', stderr: '' });
  });

  it('exits 1 and prints one line per violation: file:line, the message, the type, the path and the sentence', async () => {
    const run = await sluice(['check', '--plan', 'plan.json', 'violations.ndjson']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(lines(run.stdout)).toEqual([
      'violations.ndjson:2  track "Order Completed" (m2)  Datatype-Mismatch at /properties/price: properties.price must be a number; got the string "12"',
      'violations.ndjson:3  track "Product Viewed" (m3)  Required-Missing at /properties/sku: properties.sku is required by the plan "shop" for "Product Viewed"',
      'violations.ndjson:4  track "Order Refunded" (m4)  Unplanned-Event at /event: "Order Refunded" is not in the plan "shop"',
      'violations.ndjson:5  identify (m5)  Datatype-Mismatch at /traits/email: traits.email must be a string; got the integer 42',
      'violations.ndjson:5  identify (m5)  Datatype-Mismatch at /context/app/version: context.app.version must be a string; got the integer 2',
      'checked 5 messages against "plan.json" (sluice format): 4 with violations (5 violations), 0 unreadable lines',
    ]);
  });

  it('--json: one parseable line per message with violations, then the summary', async () => {
    const run = await sluice(['check', '--plan', 'plan.json', '--json', 'violations.ndjson', 'clean.ndjson']);
    expect(run.code).toBe(1);
    const out = lines(run.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(out).toHaveLength(5);
    expect(out[0]).toEqual({
      file: 'violations.ndjson',
      line: 2,
      messageId: 'm2',
      type: 'track',
      event: 'Order Completed',
      violations: [{ type: 'Datatype-Mismatch', path: '/properties/price', message: 'properties.price must be a number; got the string "12"', plan: 'shop' }],
    });
    expect(out.slice(0, 4).map((o) => [o.line, (o.violations as unknown[]).length])).toEqual([[2, 1], [3, 1], [4, 1], [5, 2]]);
    expect(out[4]).toEqual({ summary: { plan: 'plan.json', format: 'sluice', messages: 9, withViolations: 4, violations: 5, refused: 0, unreadable: 0, skipped: { sluiceMade: 0, duplicates: 0 } } });
  });

  it('reads stdin for -', async () => {
    const clean = await sluice(['check', '--plan', 'plan.json', '-'], { stdin: fs.readFileSync(path.join(FIXTURES, 'clean.ndjson'), 'utf8') });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('checked 4 messages');
    const bad = await sluice(['check', '--plan', 'plan.json', '-'], { stdin: fs.readFileSync(path.join(FIXTURES, 'violations.ndjson'), 'utf8') });
    expect(bad.code).toBe(1);
    expect(lines(bad.stdout)[0]).toBe('<stdin>:2  track "Order Completed" (m2)  Datatype-Mismatch at /properties/price: properties.price must be a number; got the string "12"');
  });

  it('checks batch lines (batch context merged under each message) and exported {message} lines; reports unreadable lines and refused messages and goes on', async () => {
    const run = await sluice(['check', '--plan', 'plan.json', 'mixed.ndjson']);
    expect(run.code).toBe(1);
    expect(lines(run.stdout)).toEqual([
      // The batch's context.app.version (a number) is checked as each message's own context.
      'mixed.ndjson:1  track "Order Completed" (b1, batch[0])  Datatype-Mismatch at /context/app/version: context.app.version must be a string; got the integer 3',
      'mixed.ndjson:1  identify (b2, batch[1])  Datatype-Mismatch at /context/app/version: context.app.version must be a string; got the integer 3',
      // An export's line: the message under "message", its metadata (even a "type") ignored.
      'mixed.ndjson:2  track "Product Viewed" (e1)  Datatype-Mismatch at /properties/sku: properties.sku must be a string; got the integer 7',
      "mixed.ndjson:3  the line is not JSON (Expected ',' or '}' after property value in JSON at position 42 (line 1 column 43))",
      'mixed.ndjson:4  track (t1)  ingestion would refuse it (missing_event): track needs "event"',
      'mixed.ndjson:5  purchase (t2)  ingestion would refuse it (invalid_type): unknown message type "purchase"; expected one of identify, track, page, screen, group, alias',
      'mixed.ndjson:6  the line is not a message: expected an object with "type", a stored message ({"message": {...}}), a page of messages ({"messages": [...]}) or a batch ({"batch": [...]})',
      // Line 7 conforms: checked after the bad lines, nothing printed.
      'checked 6 messages against "plan.json" (sluice format): 3 with violations (3 violations), 2 that ingestion would refuse, 2 unreadable lines',
    ]);
    const json = await sluice(['check', '--plan', 'plan.json', '--json', 'mixed.ndjson']);
    const out = lines(json.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(out[1]).toMatchObject({ line: 1, index: 1, messageId: 'b2', type: 'identify', event: null });
    expect(out[3]).toEqual({ file: 'mixed.ndjson', line: 3, error: expect.stringMatching(/^the line is not JSON/) });
    expect(out[4]).toEqual({ file: 'mixed.ndjson', line: 4, messageId: 't1', type: 'track', event: null, refused: { code: 'missing_event', message: 'track needs "event"' } });
    expect(out.at(-1)).toEqual({ summary: { plan: 'plan.json', format: 'sluice', messages: 6, withViolations: 3, violations: 3, refused: 2, unreadable: 2, skipped: { sluiceMade: 0, duplicates: 0 } } });
  });

  it('an export: leaves out what ingestion never checks (what Sluice made, duplicates), and reports a refused row by its recorded reason', async () => {
    const dir = tempDir('sluice-check-');
    const row = (message: unknown, extra: Record<string, unknown>) => JSON.stringify({ message, id: 1, source: 'web', type: null, event: null, status: 'accepted', origin: 'client', rejection: null, violations: [], blocked: null, ...extra });
    const viewed = { type: 'track', event: 'Product Viewed', userId: 'u', messageId: 'e1', properties: { sku: 7 } };
    fs.writeFileSync(path.join(dir, 'export.ndjson'), [
      row(viewed, {}),
      row(viewed, { status: 'duplicate' }), // the client's retry: checked once, as ingestion did
      row({ type: 'identify', userId: 'u', traits: { pro_users: true } }, { origin: 'audience' }),
      row({ type: 'track', event: 'Violation Generated', userId: 'u', properties: { violationType: 'Unplanned-Event' } }, { origin: 'plan' }),
      row(null, { raw: '{"type": "track", "userId": ', status: 'rejected', rejection: { code: 'invalid_json', reason: 'the body is not JSON' } }),
      JSON.stringify({ messages: [{ ...viewed, messageId: 'e2', receivedAt: 'x', source: 'web', origin: 'client', status: 'duplicate', rejection: null, violations: [], blocked: null }], next: null }),
    ].join('\n'));
    const run = await sluice(['check', '--plan', path.join(FIXTURES, 'plan.json'), 'export.ndjson'], { cwd: dir });
    // Before 2026-12-01 the duplicate was counted again, the audience's identify and the Violation
    // Generated were checked (an unplanned event), and the refused row was checked as a message of its own.
    expect(lines(run.stdout)).toEqual([
      'export.ndjson:1  track "Product Viewed" (e1)  Datatype-Mismatch at /properties/sku: properties.sku must be a string; got the integer 7',
      'export.ndjson:5  message  ingestion would refuse it (invalid_json): the body is not JSON',
      `checked 2 messages against ${JSON.stringify(path.join(FIXTURES, 'plan.json'))} (sluice format): 1 with violations (1 violation), 1 that ingestion would refuse, 0 unreadable lines; left out, as ingestion does not check them: 2 messages Sluice made itself (audience syncs, Violation Generated) and 2 duplicates`,
    ]);
    expect(run.code).toBe(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a file with only an unreadable line exits 1', async () => {
    const dir = tempDir('sluice-check-');
    fs.writeFileSync(path.join(dir, 'broken.ndjson'), '\n{"type": "track",\n');
    const run = await sluice(['check', '--plan', path.join(FIXTURES, 'plan.json'), 'broken.ndjson'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(lines(run.stdout)[0]).toMatch(/^broken\.ndjson:2 {2}the line is not JSON \(/);
    expect(lines(run.stdout)[1]).toBe(`checked 0 messages against ${JSON.stringify(path.join(FIXTURES, 'plan.json'))} (sluice format): 0 with violations (0 violations), 1 unreadable line`);
    expect(run.stderr).toBe('sluice: warning: no messages were checked: no line of broken.ndjson is a message (see the lines above)\n');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('exits 0 for an input without messages, with a warning on stderr', async () => {
    const dir = tempDir('sluice-check-');
    fs.writeFileSync(path.join(dir, 'empty.ndjson'), '');
    fs.writeFileSync(path.join(dir, 'blank.ndjson'), '\n{"batch": []}\n{"messages": [], "next": null}\n');
    const plan = path.join(FIXTURES, 'plan.json');
    const summary = `checked 0 messages against ${JSON.stringify(plan)} (sluice format): 0 with violations (0 violations), 0 unreadable lines\n`;
    expect(await sluice(['check', '--plan', plan, 'empty.ndjson'], { cwd: dir })).toEqual({
      code: 0,
      stdout: summary,
      stderr: 'sluice: warning: no messages were checked: empty.ndjson holds no messages (empty, blank lines or empty lists only)\n',
    });
    expect(await sluice(['check', '--plan', plan, 'empty.ndjson', 'blank.ndjson', '-'], { cwd: dir })).toEqual({
      code: 0,
      stdout: summary,
      stderr: 'sluice: warning: no messages were checked: empty.ndjson, blank.ndjson and <stdin> hold no messages (empty, blank lines or empty lists only)\n',
    });
    // --json: stdout stays JSON lines; the warning is on stderr only.
    const json = await sluice(['check', '--plan', plan, '--json', 'empty.ndjson'], { cwd: dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ summary: { messages: 0 } });
    expect(json.stderr).toMatch(/^sluice: warning: no messages were checked: /);
    // A check that found messages says nothing on stderr.
    expect((await sluice(['check', '--plan', 'plan.json', 'clean.ndjson'])).stderr).toBe('');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('checks a page of the HTTP API ({"messages": [...], "next"}) like a batch, and a stored message as GET /api/v1/messages/{id} gives it; their metadata is not checked', async () => {
    // Each message carries Sluice's metadata (receivedAt, source, status, rejection, violations — here an
    // older plan's — and blocked): the plan's checks read type, event, properties, traits and context only.
    const run = await sluice(['check', '--plan', 'plan.json', 'api-page.ndjson']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(lines(run.stdout)).toEqual([
      'api-page.ndjson:1  track "Order Completed" (p2, messages[1])  Datatype-Mismatch at /properties/price: properties.price must be a number; got the string "12"',
      'api-page.ndjson:3  "messages" must be an array of messages (a page of GET /api/v1/messages); got an object',
      'checked 4 messages against "plan.json" (sluice format): 1 with violations (1 violation), 1 unreadable line',
    ]);
    const json = await sluice(['check', '--plan', 'plan.json', '--json', 'api-page.ndjson']);
    const out = lines(json.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(out[0]).toMatchObject({ file: 'api-page.ndjson', line: 1, index: 1, list: 'messages', messageId: 'p2', type: 'track', event: 'Order Completed' });
    expect(out.at(-1)).toEqual({ summary: { plan: 'plan.json', format: 'sluice', messages: 4, withViolations: 1, violations: 1, refused: 0, unreadable: 1, skipped: { sluiceMade: 0, duplicates: 0 } } });
  });

  it('--unplanned allow lets unlisted track events through; flag (the default) does not, nor block (a config file\'s word)', async () => {
    const file = 'unplanned.ndjson';
    const dir = tempDir('sluice-check-');
    fs.writeFileSync(path.join(dir, file), '{"type":"track","event":"Order Refunded","userId":"u1","messageId":"m4"}\n');
    const plan = path.join(FIXTURES, 'plan.json');
    const allowed = await sluice(['check', '--plan', plan, '--unplanned', 'allow', file], { cwd: dir });
    expect(allowed.code).toBe(0);
    const flagged = await sluice(['check', '--plan', plan, '--unplanned', 'flag', file], { cwd: dir });
    expect(flagged.code).toBe(1);
    expect(lines(flagged.stdout)[0]).toBe('unplanned.ndjson:1  track "Order Refunded" (m4)  Unplanned-Event at /event: "Order Refunded" is not in the plan "shop"');
    const blocked = await sluice(['check', '--plan', plan, '--unplanned', 'block', file], { cwd: dir });
    expect(blocked).toEqual(flagged);
    const wrong = await sluice(['check', '--plan', plan, '--unplanned', 'deny', file], { cwd: dir });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.split('\n')[0]).toBe('sluice: --unplanned must be allow, flag or block, not "deny"');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('exits 2 with a sentence for a missing plan, a plan that cannot be used, a missing file, and a wrong command line', async () => {
    const dir = tempDir('sluice-check-');
    fs.writeFileSync(path.join(dir, 'broken-plan.json'), JSON.stringify({ events: { 'Order Completed': { type: 'nmber' } } }));
    fs.writeFileSync(path.join(dir, 'not-a-plan.json'), '{"events": ');
    fs.copyFileSync(path.join(FIXTURES, 'clean.ndjson'), path.join(dir, 'clean.ndjson'));
    const cases: [string[], RegExp | string][] = [
      [['--plan', 'missing.json', 'clean.ndjson'], 'sluice: cannot read the plan missing.json: there is no such file\n'],
      [['--plan', 'broken-plan.json', 'clean.ndjson'], /^sluice: the plan broken-plan\.json cannot be used:\n {2}events\["Order Completed"\]\.type: .+\n$/],
      [['--plan', 'not-a-plan.json', 'clean.ndjson'], /^sluice: the plan not-a-plan\.json cannot be used:\n {2}not-a-plan\.json is not JSON: .+\n$/],
      [['--plan', 'broken-plan.json', 'clean.ndjson', 'nowhere.ndjson'], 'sluice: cannot read nowhere.ndjson: there is no such file\n'],
      [['--plan', 'broken-plan.json', '.'], 'sluice: cannot read .: it is a folder, not a file\n'],
    ];
    for (const [args, stderr] of cases) {
      const run = await sluice(['check', ...args], { cwd: dir });
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
      if (typeof stderr === 'string') expect(run.stderr).toBe(stderr);
      else expect(run.stderr).toMatch(stderr);
    }
    // Usage errors: the sentence, then the command's help.
    for (const [args, sentence] of [
      [['clean.ndjson'], 'sluice: --plan PLAN is required: the tracking plan to check the messages against'],
      [['--plan', 'plan.json'], 'sluice: name the files to check (NDJSON, one message per line; - reads stdin)'],
      [['--plan', 'plan.json', '--colour', 'clean.ndjson'], expect.stringMatching(/^sluice: Unknown option '--colour'/)],
      [['--plan', 'plan.json', '-', '-'], 'sluice: stdin (-) can be read only once'],
    ] as const) {
      const run = await sluice(['check', ...args], { cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stderr.split('\n')[0]).toEqual(sentence);
      expect(run.stderr).toContain('Usage: sluice check --plan PLAN [options] FILE...');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('checks against a Segment Protocols export (Config API), its highest version of each event', async () => {
    const run = await sluice(['check', '--plan', SEGMENT_PLAN, 'segment-events.ndjson']);
    expect(run.code).toBe(1);
    const plan = 'the plan "Acme Shop (Protocols)"';
    expect(lines(run.stdout)).toEqual([
      // Version 2 of "Order Completed" requires currency and products; version 1 did not.
      `segment-events.ndjson:1  track "Order Completed" (s2, batch[1])  Required-Missing at /properties/currency: properties.currency is required by ${plan} for "Order Completed"`,
      `segment-events.ndjson:1  track "Order Completed" (s2, batch[1])  Required-Missing at /properties/products: properties.products is required by ${plan} for "Order Completed"`,
      'segment-events.ndjson:1  track "Order Completed" (s2, batch[1])  Datatype-Mismatch at /properties/total: properties.total must be a number; got the string "30"',
      'segment-events.ndjson:3  identify (s4)  Unknown-Violation at /traits/email: traits.email must be an email address; got "not an address"',
      // The plan's global rules: every message's context.library.
      `segment-events.ndjson:4  track "Product Viewed" (s5)  Required-Missing at /context/library: context.library is required by ${plan} for every message`,
      `checked 5 messages against ${JSON.stringify(SEGMENT_PLAN)} (segment format): 3 with violations (5 violations), 0 unreadable lines`,
    ]);
  });

  it('has its help: check --help, help check, and a line in sluice --help', async () => {
    const help = await sluice(['check', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: sluice check --plan PLAN \[options\] FILE\.\.\.\n/);
    for (const option of ['--plan PLAN', '--unplanned allow|flag|block', '--json', '{"messages": [...], "next": ...}', 'a later sluice export']) expect(help.stdout).toContain(option);
    expect(help.stdout).not.toMatch(/sluice export's|exported stored message/);
    expect(await sluice(['help', 'check'])).toEqual(help);
    const top = await sluice(['--help']);
    expect(top.stdout).toMatch(/^ {2}check +check exported messages against a tracking plan/m);
    expect(top.stdout).toMatch(/^ {2}plan infer +write a tracking plan inferred/m);
    expect(top.stdout).toMatch(/^ {2}plan import +convert a Segment Protocols or RudderStack plan/m);
  });
});

describe('sluice plan infer, beside a running relay', () => {
  let core: TestCore;
  let dataDir: string;
  const web = 'wk_cli_plans_web';
  const server = 'wk_cli_plans_server';
  // What the web source sends: two track events, an identify, a page; as one batch with a context.
  const webBatch = {
    context: { library: { name: 'analytics.js', version: '1.0.0' } },
    batch: [
      { type: 'track', event: 'Order Completed', userId: 'u1', messageId: 'w1', properties: { price: 12.5, currency: 'EUR', items: [{ sku: 'A' }] } },
      { type: 'track', event: 'Order Completed', userId: 'u2', messageId: 'w2', properties: { price: 7, currency: 'USD', items: [] } },
      { type: 'track', event: 'Product Viewed', anonymousId: 'a1', messageId: 'w3', properties: { sku: 'A', position: 1 } },
      { type: 'identify', userId: 'u1', messageId: 'w4', traits: { email: 'u1@example.com', age: 31 } },
      { type: 'page', userId: 'u1', messageId: 'w5', name: 'Home', properties: { path: '/' } },
    ],
  };
  const serverBatch = { batch: [{ type: 'track', event: 'Invoice Paid', userId: 'u9', messageId: 's1', properties: { amount: 100 } }] };

  beforeAll(async () => {
    dataDir = tempDir('sluice-infer-');
    core = await startCore({
      dataDir,
      host: '127.0.0.1',
      config: configFileSchema.parse({ sources: [{ name: 'web', writeKey: web, kind: 'web' }, { name: 'server', writeKey: server, kind: 'server' }] }),
    });
    // Accepted messages are committed before ingestion answers: the store has them once these resolve.
    expect((await post(core, '/v1/batch', webBatch, { writeKey: web })).status).toBe(200);
    expect((await post(core, '/v1/batch', serverBatch, { writeKey: server })).status).toBe(200);
  });

  afterAll(async () => {
    await core?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('infers a plan from the running relay\'s store; its own messages conform to it, a field of another type does not', async () => {
    const run = await sluice(['plan', 'infer', '--data-dir', dataDir]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('inferred 3 events, identify, page (from 6 messages)\n');
    const plan = JSON.parse(run.stdout) as { events: Record<string, unknown>; identify?: unknown; page?: unknown };
    expect(Object.keys(plan.events).sort()).toEqual(['Invoice Paid', 'Order Completed', 'Product Viewed']);
    expect(plan.identify).toBeDefined();
    expect(plan.page).toBeDefined();

    const dir = tempDir('sluice-infer-check-');
    fs.writeFileSync(path.join(dir, 'inferred.json'), run.stdout);
    // The same messages, as a batch line and one message per line.
    fs.writeFileSync(path.join(dir, 'same.ndjson'), `${JSON.stringify(webBatch)}\n${serverBatch.batch.map((m) => JSON.stringify(m)).join('\n')}\n`);
    const same = await sluice(['check', '--plan', 'inferred.json', 'same.ndjson'], { cwd: dir });
    expect(same).toEqual({ code: 0, stdout: 'checked 6 messages against "inferred.json" (sluice format): 0 with violations (0 violations), 0 unreadable lines\n', stderr: '' });

    const changed = { ...webBatch.batch[0], messageId: 'w9', properties: { ...webBatch.batch[0]!.properties, price: '12.50' } };
    fs.writeFileSync(path.join(dir, 'changed.ndjson'), `${JSON.stringify(changed)}\n`);
    const other = await sluice(['check', '--plan', 'inferred.json', 'changed.ndjson'], { cwd: dir });
    expect(other.code).toBe(1);
    expect(lines(other.stdout)[0]).toMatch(/^changed\.ndjson:1 {2}track "Order Completed" \(w9\) {2}Datatype-Mismatch at \/properties\/price: properties\.price must be a number; got the string "12\.50"$/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a page of the running relay\'s HTTP API, and one stored message from it, check clean against the plan inferred from its store', async () => {
    const inferred = await sluice(['plan', 'infer', '--data-dir', dataDir]);
    const ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
    await ui.listen();
    const get = async (route: string) => {
      const res = await fetch(`${ui.apiUrl}${route}`, { headers: { authorization: `Bearer ${ui.token}` } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const [page, one] = [await get('/messages'), await get('/messages/w1')];
    await ui.close();
    // The API's answers as they come (one JSON text each), one per line.
    expect(JSON.parse(page)).toMatchObject({ messages: expect.arrayContaining([expect.objectContaining({ messageId: 'w1', status: 'accepted', violations: [], blocked: null })]), next: null });
    const dir = tempDir('sluice-infer-api-');
    fs.writeFileSync(path.join(dir, 'inferred.json'), inferred.stdout);
    fs.writeFileSync(path.join(dir, 'api.ndjson'), `${page}\n${one}\n`);
    const run = await sluice(['check', '--plan', 'inferred.json', 'api.ndjson'], { cwd: dir });
    expect(run).toEqual({ code: 0, stdout: 'checked 7 messages against "inferred.json" (sluice format): 0 with violations (0 violations), 0 unreadable lines\n', stderr: '' });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('--source takes one source\'s messages; an unknown source is refused with the known names', async () => {
    const run = await sluice(['plan', 'infer', '--data-dir', dataDir, '--source', 'server']);
    expect(run.code).toBe(0);
    expect(Object.keys((JSON.parse(run.stdout) as { events: object }).events)).toEqual(['Invoice Paid']);
    expect(run.stderr).toBe('inferred 1 event (from 1 message of the source "server")\n');
    const unknown = await sluice(['plan', 'infer', '--data-dir', dataDir, '--source', 'mobile']);
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: `sluice: there is no source "mobile" in ${dataDir}: its sources are "server", "web"\n` });
  });

  it('--examples N takes the newest N of each event', async () => {
    const run = await sluice(['plan', 'infer', '--data-dir', dataDir, '--examples', '1']);
    expect(run.stderr).toBe('inferred 3 events, identify, page (from 5 messages)\n'); // one of the two Order Completed
    const bad = await sluice(['plan', 'infer', '--data-dir', dataDir, '--examples', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe('sluice: --examples must be a whole number from 1 to 100,000, not "0"');
  });

  it('--out writes the file with a line on stderr; an existing file is replaced only with --force', async () => {
    const dir = tempDir('sluice-infer-out-');
    const out = path.join(dir, 'plan.json');
    const first = await sluice(['plan', 'infer', '--data-dir', dataDir, '--out', out]);
    expect(first).toEqual({ code: 0, stdout: '', stderr: `wrote ${out}: 3 events, identify, page (from 6 messages)\n` });
    expect(Object.keys((JSON.parse(fs.readFileSync(out, 'utf8')) as { events: object }).events)).toHaveLength(3);
    fs.writeFileSync(out, '{"events": {}}\n');
    const refused = await sluice(['plan', 'infer', '--data-dir', dataDir, '--out', out]);
    expect(refused).toEqual({ code: 2, stdout: '', stderr: `sluice: ${out} already exists: give --force to replace it\n` });
    expect(fs.readFileSync(out, 'utf8')).toBe('{"events": {}}\n');
    const forced = await sluice(['plan', 'infer', '--data-dir', dataDir, '--out', out, '--force', '--source', 'web']);
    expect(forced.code).toBe(0);
    expect(Object.keys((JSON.parse(fs.readFileSync(out, 'utf8')) as { events: object }).events).sort()).toEqual(['Order Completed', 'Product Viewed']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a folder without a store, and says how to get one', async () => {
    const empty = tempDir('sluice-infer-empty-');
    const run = await sluice(['plan', 'infer', '--data-dir', empty]);
    expect(run).toEqual({ code: 2, stdout: '', stderr: `sluice: no Sluice store in ${empty} (there is no sluice.db): run sluice serve first, or give --data-dir\n` });
    fs.rmSync(empty, { recursive: true, force: true });
  });

  it('has its help: plan infer --help, help plan infer; plan alone lists the subcommands', async () => {
    const help = await sluice(['plan', 'infer', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: sluice plan infer \[options\]\n/);
    for (const option of ['--data-dir DIR', '--source NAME', '--examples N', '--out FILE', '--force']) expect(help.stdout).toContain(option);
    expect(await sluice(['help', 'plan', 'infer'])).toEqual(help);
    const plan = await sluice(['plan']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/^Usage: sluice plan <command> \[options\]\n/);
    expect((await sluice(['help', 'plan'])).stdout).toBe(plan.stdout);
    const unknown = await sluice(['plan', 'export']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe('sluice: unknown command "plan export"');
  });
});

describe('sluice plan infer, after the relay stopped', () => {
  it('reads a store no relay has open', async () => {
    const dataDir = tempDir('sluice-infer-stopped-');
    const core = await startCore({ dataDir, host: '127.0.0.1' });
    expect((await post(core, '/v1/track', { event: 'Stopped', userId: 'u', properties: { n: 1 } })).status).toBe(200);
    await core.close();
    const run = await sluice(['plan', 'infer', '--data-dir', dataDir]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: 'inferred 1 event (from 1 message)\n' });
    expect(Object.keys((JSON.parse(run.stdout) as { events: object }).events)).toEqual(['Stopped']);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('never learns from the messages Sluice made itself: an audience sync\'s identify calls, Violation Generated events', async () => {
    const dataDir = tempDir('sluice-infer-origins-');
    const core = await startCore({ dataDir, host: '127.0.0.1' });
    expect((await post(core, '/v1/track', { event: 'Stopped', userId: 'u', properties: { n: 1 } })).status).toBe(200);
    await core.close();
    // Rows as the audience writer (origin 'audience') and the plan checks (origin 'plan') store them.
    const db = new DatabaseSync(path.join(dataDir, 'sluice.db'));
    const { id: sourceId } = db.prepare('SELECT id FROM sources LIMIT 1').get() as { id: number };
    const insert = db.prepare(
      `INSERT INTO messages (request_id, source_id, message_id, type, status, origin, user_id, event, received_at, timestamp, raw)
       VALUES (NULL, ?, ?, ?, 'accepted', ?, 'u', ?, ?, ?, ?)`,
    );
    const now = Date.now();
    insert.run(sourceId, 'aud-1', 'identify', 'audience', null, now, now, JSON.stringify({ type: 'identify', userId: 'u', messageId: 'aud-1', traits: { vip_customers: true } }));
    const violation = { type: 'track', event: 'Violation Generated', userId: 'u', messageId: 'plan-1', properties: { violationType: 'Datatype-Mismatch' } };
    insert.run(sourceId, 'plan-1', 'track', 'plan', 'Violation Generated', now, now, JSON.stringify(violation));
    db.close();
    const run = await sluice(['plan', 'infer', '--data-dir', dataDir]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: 'inferred 1 event (from 1 message)\n' });
    const plan = JSON.parse(run.stdout) as { events: object; identify?: unknown };
    expect(Object.keys(plan.events)).toEqual(['Stopped']);
    expect(plan.identify).toBeUndefined();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});

describe('sluice plan import', () => {
  it('converts a Segment Protocols export to a Sluice plan with its events, and says what it left out', async () => {
    const run = await sluice(['plan', 'import', SEGMENT_PLAN]);
    expect(run.code).toBe(0);
    expect(lines(run.stderr)).toEqual([
      `recognised a Segment Protocols export in ${SEGMENT_PLAN}: 4 events, identify, group, context`,
      '  note: rules.events[1]: "Order Completed" version 2 is used; version 1 is left out (Sluice checks the highest version)',
      "  note: rules.events[4].rules.properties.context: not carried over (Sluice's plan checks a track event's properties here)",
      "  note: rules.events[4].rules.required: userId not carried over (Sluice's plan checks a track event's properties here)",
    ]);
    const plan = JSON.parse(run.stdout) as { name: string; events: Record<string, { required: string[] }>; identify: object; group: object; context: object };
    expect(plan.name).toBe('Acme Shop (Protocols)');
    expect(Object.keys(plan.events)).toEqual(['Order Completed', 'Product Viewed', 'Checkout Started', 'Signed Up']);
    expect(plan.events['Order Completed']!.required).toEqual(['order_id', 'total', 'currency', 'products']);
    expect(plan).toHaveProperty('identify.required', ['email']);

    // Written with --out, the converted plan checks messages as the export does.
    const dir = tempDir('sluice-import-');
    const out = path.join(dir, 'plan.json');
    const written = await sluice(['plan', 'import', SEGMENT_PLAN, '--out', out]);
    expect({ code: written.code, stdout: written.stdout, first: lines(written.stderr)[0] }).toEqual({
      code: 0,
      stdout: '',
      first: `recognised a Segment Protocols export in ${SEGMENT_PLAN}: 4 events, identify, group, context; wrote ${out}`,
    });
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual(plan);
    const [viaExport, viaImport] = await Promise.all([
      sluice(['check', '--plan', SEGMENT_PLAN, '--json', 'segment-events.ndjson']),
      sluice(['check', '--plan', out, '--json', 'segment-events.ndjson']),
    ]);
    const results = (run: Run) => lines(run.stdout).slice(0, -1);
    expect(results(viaImport)).toEqual(results(viaExport));
    expect(results(viaImport)).toHaveLength(3);
    expect(JSON.parse(lines(viaImport.stdout).at(-1)!)).toMatchObject({ summary: { format: 'sluice', violations: 5 } });

    const again = await sluice(['plan', 'import', SEGMENT_PLAN, '--out', out]);
    expect(again).toEqual({ code: 2, stdout: '', stderr: `sluice: ${out} already exists: give --force to replace it\n` });
    expect((await sluice(['plan', 'import', SEGMENT_PLAN, '--out', out, '--force'])).code).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a file that is not a plan, and a missing one, in a sentence', async () => {
    const notPlan = await sluice(['plan', 'import', 'clean.ndjson']);
    expect(notPlan.code).toBe(2);
    expect(notPlan.stderr).toMatch(/^sluice: the plan clean\.ndjson cannot be used:\n {2}clean\.ndjson is not JSON/);
    expect(await sluice(['plan', 'import', 'nope.json'])).toEqual({ code: 2, stdout: '', stderr: 'sluice: cannot read the plan nope.json: there is no such file\n' });
    const none = await sluice(['plan', 'import']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^sluice: name the plan file to import\n\nUsage: sluice plan import FILE \[options\]/);
    expect((await sluice(['help', 'plan', 'import'])).stdout).toMatch(/^Usage: sluice plan import FILE \[options\]\n/);
  });
});
