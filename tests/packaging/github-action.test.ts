// The GitHub Action (action.yml, action/report/action.yml) run as a runner runs it: each step's `run:`
// script, read from the action's YAML with its `env:` filled from the inputs, under
// `bash --noprofile --norc -eo pipefail` (a composite step's `shell: bash`), with the runner's files
// (GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) pointed at temporary files — against the packed
// tarball of this checkout as the `version` input. A relay is started, sent events (one breaks the
// tracking plan, one delivery fails), reported on and stopped; then the ways it can go wrong.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';
import { checkoutRoot, packSluice, pathWith, tempDir } from '../helpers/packed-sluice.ts';

// js-yaml: already in the tree (electron-builder's and Jest's), untyped here; only `load` is used.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

interface ActionFile {
  inputs?: Record<string, { default?: string }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: { id?: string; shell?: string; env?: Record<string, string>; run?: string; uses?: string }[] };
}

const work = tempDir('sluice-action-');
const workspace = path.join(work, 'workspace');
let tarball: string;
let receiver: Receiver;

beforeAll(async () => {
  tarball = packSluice(work).tarball;
  fs.mkdirSync(workspace);
  receiver = await startReceiver();
}, 300_000);

afterAll(async () => {
  // A relay a failed test left running (its report step never ran) is stopped here.
  for (const job of jobs) {
    const pid = Number(keyValues(job.read('GITHUB_OUTPUT')).pid);
    if (pid > 0 && running(pid)) process.kill(pid, 'SIGTERM');
  }
  await receiver?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** The jobs the tests ran: the runner's files and folders of each. */
const jobs: { env: Record<string, string>; read(name: 'GITHUB_ENV' | 'GITHUB_OUTPUT' | 'GITHUB_STEP_SUMMARY'): string }[] = [];

/** The runner's files and folders of one job. */
function newJob(name: string) {
  const dir = path.join(work, name);
  fs.mkdirSync(path.join(dir, 'temp'), { recursive: true });
  const files = { GITHUB_ENV: 'env', GITHUB_OUTPUT: 'output', GITHUB_STEP_SUMMARY: 'summary' } as const;
  const env: Record<string, string> = { RUNNER_TEMP: path.join(dir, 'temp') };
  for (const [name, file] of Object.entries(files)) {
    env[name] = path.join(dir, file);
    fs.writeFileSync(env[name], '');
  }
  const job = { env, read: (name: keyof typeof files) => fs.readFileSync(env[name]!, 'utf8') };
  jobs.push(job);
  return job;
}

/**
 * Runs an action's steps as the runner does: `${{ inputs.x }}` in a step's env is the input given, or
 * its default; any other expression there fails the test (this runner knows only inputs).
 */
function runAction(file: string, inputs: Record<string, string>, job: ReturnType<typeof newJob>) {
  const action = yaml.load(fs.readFileSync(file, 'utf8')) as ActionFile;
  expect(action.runs.using).toBe('composite');
  for (const name of Object.keys(inputs)) expect(Object.keys(action.inputs ?? {}), `input ${name}`).toContain(name);
  let stdout = '';
  let stderr = '';
  let status: number | null = 0;
  for (const step of action.runs.steps) {
    expect(step.shell).toBe('bash');
    expect(step.run).toBeDefined();
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(step.env ?? {})) {
      env[name] = value.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_all, expression: string) => {
        const input = /^inputs\.([a-z-]+)$/.exec(expression)?.[1];
        if (input === undefined || !action.inputs?.[input]) throw new Error(`${file}: step ${step.id}: ${expression} is not an input of the action`);
        return inputs[input] ?? action.inputs[input].default ?? '';
      });
    }
    const script = path.join(work, 'step.sh');
    fs.writeFileSync(script, step.run!);
    const { NODE_ENV: _test, NODE_OPTIONS: _options, ...inherited } = process.env;
    const run = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: workspace,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...inherited,
        ...job.env,
        ...env,
        GITHUB_ACTION_PATH: path.dirname(file),
        GITHUB_WORKSPACE: workspace,
        // The tarball has no dependencies: npx installs it without the registry, into this job's cache.
        npm_config_cache: path.join(work, 'npm-cache'),
        npm_config_offline: 'true',
        PATH: pathWith(process.execPath),
      },
    });
    stdout += run.stdout;
    stderr += run.stderr;
    status = run.status;
    if (status !== 0) break;
  }
  return { status, stdout, stderr };
}

const START = path.join(checkoutRoot, 'action.yml');
const REPORT = path.join(checkoutRoot, 'action/report/action.yml');
const FREE_PORTS = '--ingest-port 0 --ui-port 0 --receiver-port 0';

/** A port free now on 127.0.0.1 (listened on and closed). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** `NAME=value` lines (the runner's env and output files, single-line form). */
function keyValues(text: string): Record<string, string> {
  return Object.fromEntries(text.trimEnd().split('\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

/** Whether a process runs (not gone, not a zombie left to a parent that does not reap it). */
function running(pid: number): boolean {
  const ps = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  return ps.status === 0 && !ps.stdout.trim().startsWith('Z');
}

function writeConfig(name: string, config: unknown): string {
  fs.writeFileSync(path.join(workspace, name), JSON.stringify(config));
  return name; // relative to the workspace, as a workflow names it
}

describe('the GitHub Action, from the packed tarball', () => {
  it('starts a relay, exports its URLs, token and write key, then reports NDJSON, HAR and a job summary, and stops it', async () => {
    const config = writeConfig('sluice.json', {
      sources: [{ name: 'web', writeKey: 'wk_ci', kind: 'web' }],
      destinations: [{ name: 'hooks', sources: ['web'], webhooks: [{ url: `${receiver.url}/hook` }] }],
      trackingPlans: [{ name: 'shop', sources: ['web'], plan: { events: { 'Order Completed': { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] } } } }],
    });
    const job = newJob('job-main');
    // A line each, as a workflow's `args: |` gives them: before 2026-12-01 only the first line was used.
    const start = runAction(START, { version: tarball, config, args: FREE_PORTS.replaceAll(' --', '\n--') + '\n' }, job);
    expect({ status: start.status, stderr: start.stderr }).toMatchObject({ status: 0 });
    expect(start.stdout).not.toContain('::warning');

    const env = keyValues(job.read('GITHUB_ENV'));
    expect(Object.keys(env).sort()).toEqual(['SLUICE_API_URL', 'SLUICE_DATA_DIR', 'SLUICE_INGEST_URL', 'SLUICE_RECEIVER_URL', 'SLUICE_TOKEN', 'SLUICE_UI_URL', 'SLUICE_WRITE_KEY']);
    expect(env.SLUICE_WRITE_KEY).toBe('wk_ci');
    expect(env.SLUICE_INGEST_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Each line's port taken (0: any free one), not the defaults 8788 and 8789.
    expect(new URL(env.SLUICE_UI_URL!).port).not.toBe('8788');
    expect(new URL(env.SLUICE_RECEIVER_URL!).port).not.toBe('8789');
    expect(env.SLUICE_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(env.SLUICE_TOKEN).toMatch(/^\S{20,}$/);
    const outputs = keyValues(job.read('GITHUB_OUTPUT'));
    expect(outputs).toMatchObject({
      'ingest-url': env.SLUICE_INGEST_URL,
      'api-url': env.SLUICE_API_URL,
      token: env.SLUICE_TOKEN,
      'write-key': 'wk_ci',
      'data-dir': env.SLUICE_DATA_DIR,
    });
    // Every output the action declares is one the step writes.
    const declared = (yaml.load(fs.readFileSync(START, 'utf8')) as ActionFile).outputs!;
    for (const [name, { value }] of Object.entries(declared)) {
      expect(value).toBe(`\${{ steps.start.outputs.${name} }}`);
      expect(outputs[name], name).toBeTruthy();
    }
    const pid = Number(outputs.pid);
    expect(running(pid)).toBe(true);
    expect(fs.existsSync(env.SLUICE_DATA_DIR!)).toBe(true);

    // The token is masked before anything prints it, and printed nowhere else.
    const log = start.stdout + start.stderr;
    expect(log.indexOf(env.SLUICE_TOKEN!)).toBe(log.indexOf(`::add-mask::${env.SLUICE_TOKEN}`) + '::add-mask::'.length);
    expect(log.split(env.SLUICE_TOKEN!)).toHaveLength(2);

    // The token is the HTTP API's: it is answered, a wrong one is refused.
    const api = (route: string, token = env.SLUICE_TOKEN) => fetch(`${env.SLUICE_API_URL}${route}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await api('/stats', 'wrong')).status).toBe(401);

    // Events as a test job sends them: with curl, to the exported endpoint and write key.
    receiver.script({ status: 400, body: '{"error":"bad payload"}' }); // the first delivery fails for good (a 4xx is final)
    const sent = [
      { type: 'track', userId: 'u1', event: 'Order Completed', properties: { total: 42 } },
      { type: 'track', userId: 'u1', event: 'Order Completed', properties: { total: 10 } },
      { type: 'track', userId: 'u2', event: 'Order Completed', messageId: 'm-bad-total', properties: { total: '42' } },
      { type: 'identify', userId: 'u1', traits: { plan: 'pro' } },
    ];
    for (const message of sent) {
      const curl = spawnSync('curl', ['-sS', '--fail-with-body', '-u', `${env.SLUICE_WRITE_KEY}:`, '-H', 'content-type: application/json', '-d', JSON.stringify(message), `${env.SLUICE_INGEST_URL}/v1/${message.type}`], { encoding: 'utf8' });
      expect({ status: curl.status, stdout: curl.stdout }).toEqual({ status: 0, stdout: '{"success":true}' });
    }
    let stats: { deliveries: Record<string, number> };
    for (const end = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 50))) {
      stats = (await (await api('/stats')).json()) as typeof stats;
      if ((stats.deliveries.failed === 1 && stats.deliveries.delivered === 3) || Date.now() > end) break;
    }
    expect(stats.deliveries).toEqual({ failed: 1, delivered: 3 });
    expect(stats).toMatchObject({ messages: { accepted: 4 }, types: { track: 3, identify: 1 } });

    const report = runAction(REPORT, { path: 'report' }, job);
    expect({ status: report.status, stderr: report.stderr }).toMatchObject({ status: 0 });
    expect(report.stdout + report.stderr).not.toContain(env.SLUICE_TOKEN);

    // The relay is gone, and its data folder with it: stopped first, its store read, then removed.
    expect(running(pid)).toBe(false);
    expect(fs.existsSync(env.SLUICE_DATA_DIR!)).toBe(false);

    const folder = path.join(workspace, 'report');
    expect(fs.readdirSync(folder).sort()).toEqual(['sluice-messages.ndjson', 'sluice-relay.log', 'sluice-webhooks.har']);
    expect(keyValues(job.read('GITHUB_OUTPUT'))).toMatchObject({ path: 'report', ndjson: 'report/sluice-messages.ndjson', har: 'report/sluice-webhooks.har' });
    const lines = fs.readFileSync(path.join(folder, 'sluice-messages.ndjson'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { message: Record<string, unknown>; violations: unknown[] });
    expect(lines.map((l) => [l.message.type, l.message.event ?? null, l.violations.length])).toEqual([
      ['track', 'Order Completed', 0],
      ['track', 'Order Completed', 0],
      ['track', 'Order Completed', 1],
      ['identify', null, 0],
    ]);
    const har = JSON.parse(fs.readFileSync(path.join(folder, 'sluice-webhooks.har'), 'utf8')) as { log: { entries: { request: { url: string }; response: { status: number } }[] } };
    expect(har.log.entries.map((e) => e.response.status).sort()).toEqual([200, 200, 200, 400]);
    expect(new Set(har.log.entries.map((e) => e.request.url))).toEqual(new Set([`${receiver.url}/hook`]));

    const summary = job.read('GITHUB_STEP_SUMMARY');
    expect(summary).toMatch(/^## Sluice\n/);
    expect(summary).toContain('**4 messages** (4 accepted) · **4 deliveries** (1 failed, 3 delivered) · **1 message** broke a tracking plan');
    expect(tableRows(summary, 'Messages by type')).toEqual([['track', '3'], ['identify', '1']]);
    expect(tableRows(summary, 'Track events')).toEqual([['Order Completed', '3']]);
    const violations = tableRows(summary, 'Tracking-plan violations');
    expect(violations[0]).toEqual(['shop', 'Order Completed', '1']);
    expect(violations[1]).toEqual(['m-bad-total', 'Order Completed', 'web', expect.stringMatching(/^Datatype-Mismatch \/properties\/total: .*number/)]);
    const failed = tableRows(summary, 'Failed deliveries');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.slice(0, 5)).toEqual(['hooks', expect.stringMatching(/\S/), expect.stringMatching(/^(Order Completed|identify)$/), 'failed', '1']);
    expect(failed[0]![5]).toContain('400');
  });

  it('says why when the relay cannot start — its stderr shown — and the report then finds nothing to stop', () => {
    const job = newJob('job-bad-config');
    const config = writeConfig('bad.json', { sources: [{ name: 'web', writeKey: 'wk', kind: 'desktop' }] });
    const start = runAction(START, { version: tarball, config, args: FREE_PORTS }, job);
    expect(start.status).toBe(1);
    expect(start.stdout).toMatch(/^::error title=Sluice did not start::sluice serve \(.*sluice-0\.1\.0\.tgz\) exited with code 2 before it was ready; its stderr is above$/m);
    expect(start.stderr).toMatch(/sluice: invalid config .*sources\[0\]\.kind/);
    expect(job.read('GITHUB_ENV')).toBe('');

    const report = runAction(REPORT, {}, job);
    expect(report.status).toBe(0);
    expect(report.stdout).toContain('::warning title=No Sluice to report on::');
    expect(job.read('GITHUB_STEP_SUMMARY')).toContain('No relay was ready in this job');
  });

  it('refuses a config file that is not there, naming it, before anything runs', () => {
    const job = newJob('job-no-config');
    const start = runAction(START, { version: tarball, config: 'missing.json' }, job);
    expect(start.status).toBe(1);
    expect(start.stdout).toContain('::error title=Sluice did not start::the config input names missing.json, which is not a file');
  });

  it('shows what the relay warns of at start as annotations (the ready line\'s warnings)', async () => {
    const port = await freePort();
    const config = writeConfig('loop.json', {
      sources: [{ name: 'web', writeKey: 'wk_loop', kind: 'web' }],
      destinations: [{ name: 'self', sources: ['web'], webhooks: [{ url: `http://127.0.0.1:${port}/v1/track` }] }],
    });
    const job = newJob('job-warnings');
    // --ephemeral (an older workflow's) is left out, saying so: the store is the job's folder.
    const start = runAction(START, { version: tarball, config, args: `--ephemeral --ingest-port ${port} --ui-port 0 --receiver-port 0` }, job);
    expect(start.status).toBe(0);
    expect(start.stdout).toContain('::notice title=Sluice::--ephemeral left out of args');
    expect(start.stdout).toMatch(
      new RegExp(`^::warning title=Sluice config::destination "self", webhook 1 \\(http://127\\.0\\.0\\.1:${port}/v1/track\\) posts to this Sluice's own ingestion endpoint`, 'm'),
    );
    expect(runAction(REPORT, { path: 'warnings' }, job).status).toBe(0);
  });

  it('fails the report when the relay died during the job, with its log kept', async () => {
    const job = newJob('job-died');
    const start = runAction(START, { version: tarball, args: FREE_PORTS }, job);
    expect(start.status).toBe(0);
    const { pid, 'data-dir': dataDir } = keyValues(job.read('GITHUB_OUTPUT'));
    process.kill(Number(pid), 'SIGKILL');
    await until(() => !running(Number(pid)), 10_000, 'the relay to die');
    const report = runAction(REPORT, { path: 'died' }, job);
    expect(report.status).toBe(1);
    expect(report.stdout).toMatch(/^::error title=Sluice stopped early::the relay \(process \d+\) was no longer running when the report began; what it had stored is reported/m);
    // Its store is the job's (not --ephemeral's, which a SIGKILL left behind and the report could not read):
    // read, then removed (before 2026-12-01 only the log was kept).
    expect(fs.readdirSync(path.join(workspace, 'died')).sort()).toEqual(['sluice-messages.ndjson', 'sluice-relay.log', 'sluice-webhooks.har']);
    expect(fs.existsSync(dataDir!)).toBe(false);
    expect(job.read('GITHUB_STEP_SUMMARY')).toContain('The relay had stopped before the report');
  });
});

/** The body rows of the tables under a `### heading` (up to the next heading), cells unescaped. */
function tableRows(markdown: string, heading: string): string[][] {
  const section = markdown.split(`### ${heading}\n`)[1]?.split('\n### ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !isHead(line)) // a |---| line starts with |-
    .map((line) => line.slice(2, -2).split(/ (?<!\\)\| /).map((c) => c.replace(/\\(.)/g, '$1')));
}

/** A table's head row: followed by its |---| line. */
function isHead(line: string): boolean {
  return ['| type | messages |', '| event | received |', '| plan | event | messages |', '| message | event | source | violations |', '| destination | message | event | status | attempts | last error |'].includes(line);
}
