// `sluice plan coverage` (issue 30, point 2) as a CI job runs it: the real CLI in a child process,
// beside a real relay whose tracking plans check what it stores — over its store (the counts it keeps,
// the violations its plans recorded) and over an export of that store (each message checked by the
// command) — with --json and --fail-on-missing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import type { CoverageReport } from '../../../shared/plan-coverage.ts';
import { runSluice as sluice } from '../../helpers/cli.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const PLAN = {
  name: 'web',
  events: {
    'Order Completed': { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] },
    'Product Viewed': { type: 'object' },
    'Signed Up': { type: 'object' },
  },
  identify: { type: 'object', properties: { email: { type: 'string' } } },
};
const track = (messageId: string, event: string, properties: Record<string, unknown> = {}) => ({ type: 'track', userId: 'u1', messageId, event, properties });

/** What the relay stored: Order Completed 3 times (one breaking the plan), Product Viewed once, Debug Ping (unplanned) twice; never Signed Up nor an identify. */
const EVENTS = [
  { type: 'track', event: 'Order Completed', state: 'violated', seen: 3, violated: 1 },
  { type: 'track', event: 'Product Viewed', state: 'seen', seen: 1, violated: 0 },
  { type: 'track', event: 'Signed Up', state: 'missing', seen: 0, violated: 0 },
  { type: 'identify', event: null, state: 'missing', seen: 0, violated: 0 },
];
const TOTALS = { planned: 4, seen: 2, violated: 1, missing: 2, unplanned: 1 };
const TEXT = [
  'plan "web": 2 of 4 planned events seen (1 with violations), 2 never seen; 1 unplanned event seen',
  '  violations  track "Order Completed"  3, 1 with violations',
  '  seen        track "Product Viewed"   1',
  '  never seen  track "Signed Up"',
  '  never seen  identify',
  '  unplanned   track "Debug Ping"       2',
  '',
].join('\n');

describe('sluice plan coverage, beside a running relay', () => {
  let core: TestCore;
  let dataDir: string;
  let dir: string;
  let planFile: string;

  beforeAll(async () => {
    dataDir = tempDir('sluice-coverage-');
    dir = tempDir('sluice-coverage-files-');
    planFile = path.join(dir, 'plan.json');
    fs.writeFileSync(planFile, JSON.stringify(PLAN));
    core = await startCore({
      dataDir,
      config: parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_cov' }, { name: 'server', writeKey: 'wk_cov_server' }], trackingPlans: [
          { name: 'web', sources: ['web'], file: planFile },
          // A second plan, of the server's pages: the store then holds violations of two plans.
          { name: 'server pages', sources: ['server'], plan: { events: {}, page: { type: 'object', required: ['path'] } } },
        ],
      })),
    });
    const sent = await post(core, '/v1/batch', {
      batch: [
        track('c1', 'Order Completed', { price: 12 }),
        track('c2', 'Order Completed', { price: 'twelve' }),
        track('c3', 'Order Completed', { price: 7.5 }),
        track('c4', 'Product Viewed'),
        track('c5', 'Debug Ping'),
        track('c6', 'Debug Ping'),
      ],
    }, { writeKey: 'wk_cov' });
    expect(sent.status).toBe(200);
    // A duplicate is not seen again; a refused message is never seen.
    expect((await post(core, '/v1/track', track('c1', 'Order Completed', { price: 'dup' }), { writeKey: 'wk_cov' })).status).toBe(200);
    expect((await post(core, '/v1/track', { type: 'track', userId: 'u1', messageId: 'c7', properties: {} }, { writeKey: 'wk_cov' })).status).toBe(400);
    expect((await post(core, '/v1/page', { userId: 'u1', messageId: 's1', name: 'Home', properties: {} }, { writeKey: 'wk_cov_server' })).status).toBe(200);
  });

  afterAll(async () => {
    await core?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('over the store: each planned event seen, with violations or never, and the unplanned events; the violations the relay recorded', async () => {
    const run = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', planFile]);
    expect(run).toEqual({
      code: 0,
      stdout: TEXT,
      stderr: [
        'note: violations as the relay recorded them for its plan "web"',
        // The relay's plan "web" checks the source "web" alone: said, as the counts here are every source's.
        'note: counted over all 2 sources of the store ("web", "server"); a plan that checks some of them: --source NAME for each',
        '',
      ].join('\n'),
    });
    const web = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', planFile, '--source', 'web']);
    expect(web).toEqual({ code: 0, stdout: TEXT, stderr: 'note: violations as the relay recorded them for its plan "web"\n' });
  });

  it('--json: the same as one object; --fail-on-missing exits 2 while a planned event never fired', async () => {
    const run = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', planFile, '--json', '--fail-on-missing']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as CoverageReport;
    expect(report).toEqual({ plans: [{ plan: 'web', events: EVENTS, unplanned: [{ type: 'track', event: 'Debug Ping', seen: 2 }], totals: TOTALS }], missing: 2 });
  });

  it('--from an export of the store: the same coverage, each message checked against the plan by the command', async () => {
    const file = path.join(dir, 'export.ndjson');
    expect((await sluice(['export', '--data-dir', dataDir, '--out', file])).code).toBe(0);
    const run = await sluice(['plan', 'coverage', '--from', file, '--plan', planFile, '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as CoverageReport;
    expect(report.plans[0]).toEqual({ plan: 'web', events: EVENTS, unplanned: [{ type: 'track', event: 'Debug Ping', seen: 2 }], totals: TOTALS });
    const text = await sluice(['plan', 'coverage', '--from', '-', '--plan', planFile], { stdin: fs.readFileSync(file, 'utf8') });
    // Seven messages read: the server's page too, which this plan does not describe.
    expect(text).toEqual({ code: 0, stdout: TEXT, stderr: 'note: 7 messages in <stdin>, each checked against the plan\n' });
  });

  it('--source counts one source\'s messages; an unknown source is refused; of several plans\' violations, the plan\'s own name or --plan-name says whose count', async () => {
    const server = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', planFile, '--source', 'server', '--json']);
    expect((JSON.parse(server.stdout) as CoverageReport).missing).toBe(4);
    const unknown = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', planFile, '--source', 'mobile']);
    expect(unknown).toMatchObject({ code: 2, stderr: `sluice: there is no source "mobile" in ${dataDir}: its sources are "server", "web"\n` });

    // The store holds violations of "server pages" and "web": a plan file without a name cannot say which are its own.
    const unnamed = path.join(dir, 'unnamed.json');
    fs.writeFileSync(unnamed, JSON.stringify({ ...PLAN, name: undefined }));
    const which = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', unnamed]);
    expect(which).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `sluice: the store in ${dataDir} holds violations of the plans "server pages", "web": say which one is "unnamed.json" with --plan-name NAME (its trackingPlans[].name in the relay's config)\n`,
    });
    const named = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', unnamed, '--plan-name', 'web', '--json']);
    expect((JSON.parse(named.stdout) as CoverageReport).plans[0]).toMatchObject({ plan: 'web', totals: TOTALS });
    // --plan-name of a plan that recorded nothing: no violations, and a note saying so (a typo would look the same).
    const other = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', unnamed, '--plan-name', 'mobile plan', '--json']);
    expect((JSON.parse(other.stdout) as CoverageReport).plans[0]).toMatchObject({ plan: 'mobile plan', totals: { ...TOTALS, violated: 0 } });
    const typo = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', unnamed, '--plan-name', 'wbe', '--source', 'web']);
    expect(typo.stderr.split('\n')[1]).toBe('note: no violations are recorded under "wbe" (the store has violations of "server pages", "web"): check --plan-name if some were expected');

    // --source again and again: each counts (before 2026-12-01 only the last did). Signed Up fired from
    // the server alone: never seen for the web source, seen for both.
    const fromServer = await post(core, '/v1/track', track('s2', 'Signed Up'), { writeKey: 'wk_cov_server' });
    expect(fromServer.status).toBe(200);
    const stateOf = async (...sources: string[]) => {
      const run = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', planFile, '--json', ...sources.flatMap((name) => ['--source', name])]);
      return (JSON.parse(run.stdout) as CoverageReport).plans[0]!.events.find((e) => e.event === 'Signed Up')!.state;
    };
    expect(await stateOf('web')).toBe('missing');
    expect(await stateOf('web', 'server')).toBe('seen');
    expect(await stateOf('server', 'web')).toBe('seen');
  });

  it('once every planned event fired, --fail-on-missing exits 0', async () => {
    expect((await post(core, '/v1/batch', { batch: [track('c8', 'Signed Up'), { type: 'identify', userId: 'u1', messageId: 'c9', traits: { email: 'a@b.c' } }] }, { writeKey: 'wk_cov' })).status).toBe(200);
    const run = await sluice(['plan', 'coverage', '--data-dir', dataDir, '--plan', planFile, '--fail-on-missing']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe('plan "web": 4 of 4 planned events seen (1 with violations), 0 never seen; 1 unplanned event seen');
  });

  it('refuses a command line it cannot use, in a sentence, exit 2; has its help', async () => {
    const noPlan = await sluice(['plan', 'coverage', '--data-dir', dataDir]);
    expect(noPlan.code).toBe(2);
    expect(noPlan.stderr.split('\n')[0]).toBe("sluice: --plan FILE is required: the tracking plan to cover (a running relay's own plans: GET /api/v1/plans/coverage)");
    const both = await sluice(['plan', 'coverage', '--plan', planFile, '--from', 'x.ndjson', '--data-dir', dataDir]);
    expect(both.stderr.split('\n')[0]).toBe('sluice: --from reads a file and checks its messages here: give it without --data-dir, --source and --plan-name');
    const empty = tempDir('sluice-coverage-empty-');
    const noStore = await sluice(['plan', 'coverage', '--plan', planFile, '--data-dir', empty]);
    expect(noStore).toMatchObject({ code: 2, stderr: `sluice: no Sluice store in ${empty} (there is no sluice.db): run sluice serve first, or give --data-dir\n` });
    fs.rmSync(empty, { recursive: true, force: true });
    const help = await sluice(['help', 'plan', 'coverage']);
    expect(help.stdout).toMatch(/^Usage: sluice plan coverage --plan FILE \[options\]\n/);
    expect(help.stdout).toContain('--fail-on-missing  exit 2 when a planned event was never seen');
    expect((await sluice(['plan', '--help'])).stdout).toMatch(/^ {2}coverage +which planned events were seen/m);
  });
});
