// `sluice transform test` as CI runs it: the built CLI (dist/cli.js, its transform worker bundled beside
// it) in a child process, on a transform and fixture files in a temp folder.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutRoot } from '../../helpers/packed-sluice.ts';
import { tempDir } from '../../helpers/core.ts';

const BUILT_CLI = path.join(checkoutRoot, 'dist/cli.js');

const TRANSFORM = `async function onTrack(event, { settings, log }) {
  log('total for', event.event);
  if (event.event === 'Internal') throw new DropEvent('internal traffic');
  if (event.event === 'Later') throw new RetryError('rate limited');
  if (event.event === 'Broken') return event.properties.items.length;
  return { ...event, properties: { ...event.properties, currency: settings.currency, total: event.properties.price * 2 } };
}
async function onIdentify(event) {
  return [event, { type: 'track', event: 'Signed Up', userId: event.userId }];
}
`;

let dir: string;
let transform: string;

function write(name: string, value: unknown): void {
  fs.writeFileSync(path.join(dir, name), typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
}

function sluice(...args: string[]) {
  const run = spawnSync(process.execPath, [BUILT_CLI, 'transform', 'test', ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A fixture folder of its own holding these files. */
function fixtures(name: string, files: Record<string, unknown>): string {
  const folder = path.join(dir, name);
  fs.mkdirSync(folder);
  for (const [file, value] of Object.entries(files)) fs.writeFileSync(path.join(folder, file), typeof value === 'string' ? value : JSON.stringify(value));
  return name;
}

const order = { type: 'track', event: 'Order Completed', userId: 'u1', properties: { price: 5 } };

beforeAll(() => {
  if (!fs.existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: run npm run build (or npm run build:package) first`);
  dir = tempDir('sluice-transform-cli-');
  transform = path.join(dir, 'amp.js');
  write('amp.js', TRANSFORM);
  write('settings.json', { currency: 'EUR' });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('sluice transform test', () => {
  it('exits 0 when every fixture holds: an event, a fan-out, a drop, a retry, a failure', () => {
    const folder = fixtures('passing', {
      'order.input.json': order,
      'order.expected.json': { ...order, properties: { price: 5, currency: 'EUR', total: 10 } },
      'signup.input.json': { type: 'identify', userId: 'u2' },
      'signup.expected.json': [{ type: 'identify', userId: 'u2' }, { type: 'track', event: 'Signed Up', userId: 'u2' }],
      'internal.input.json': { type: 'track', event: 'Internal' },
      'internal.expected.json': null,
      'internal-said.input.json': { type: 'track', event: 'Internal' },
      'internal-said.expected.json': { $dropped: 'internal traffic' },
      'later.input.json': { type: 'track', event: 'Later' },
      'later.expected.json': { $retry: 'rate limited' },
      'broken.input.json': { type: 'track', event: 'Broken', properties: {} },
      'broken.expected.json': { $error: "Cannot read properties of undefined (reading 'length')" },
    });
    expect(sluice('amp.js', '--fixtures', folder, '--settings', 'settings.json')).toEqual({
      code: 0,
      stdout: ['pass  broken', 'pass  internal', 'pass  internal-said', 'pass  later', 'pass  order', 'pass  signup', '6 fixtures of amp.js: 6 passed, 0 failed', ''].join('\n'),
      stderr: '',
    });
  });

  it('exits 1 with a diff by field path, the stack and the log lines under each failing fixture', () => {
    const folder = fixtures('failing', {
      'order.input.json': order,
      'order.expected.json': { ...order, properties: { price: 5, currency: 'USD', total: 10, tax: 1 } },
      'signup.input.json': { type: 'identify', userId: 'u2' },
      'signup.expected.json': [{ type: 'identify', userId: 'u2' }],
      'broken.input.json': { type: 'track', event: 'Broken', properties: {} },
      'broken.expected.json': { type: 'track', event: 'Broken' },
      'fine.input.json': { type: 'page', name: 'Home' },
      'fine.expected.json': { type: 'page', name: 'Home' },
    });
    const run = sluice('amp.js', '--fixtures', folder, '--settings', '{"currency": "EUR"}');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n')).toEqual([
      'FAIL  broken',
      "        wanted an event, got a failure (error: TypeError: Cannot read properties of undefined (reading 'length'))",
      `          at onTrack (${transform}:5:${TRANSFORM.split('\n')[4]!.indexOf('length') + 1})`,
      '        log (log): total for Broken',
      'pass  fine',
      'FAIL  order',
      '        properties.currency: wanted "USD", got "EUR"',
      '        properties.tax: wanted 1, got nothing',
      '        log (log): total for Order Completed',
      'FAIL  signup',
      '        [1]: wanted nothing, got {"type":"track","event":"Signed Up","userId":"u2"}',
      '4 fixtures of amp.js: 1 passed, 3 failed',
      '',
    ]);
  });

  it('--update writes each expectation from what the transform does now; the next run passes', () => {
    const folder = fixtures('update', {
      'order.input.json': order,
      'later.input.json': { type: 'track', event: 'Later' },
      'later.expected.json': { $retry: 'rate limited' },
    });
    const run = sluice('amp.js', '--fixtures', folder, '--settings', '{"currency": "EUR"}', '--update');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(['pass     later', 'updated  order: order.expected.json now holds an event (changed)', '2 fixtures of amp.js: expectations written where the outcome differed', ''].join('\n'));
    expect(JSON.parse(fs.readFileSync(path.join(dir, folder, 'order.expected.json'), 'utf8'))).toEqual({ ...order, properties: { price: 5, currency: 'EUR', total: 10 } });
    expect(sluice('amp.js', '--fixtures', folder, '--settings', '{"currency": "EUR"}').code).toBe(0);
  });

  it('exits 2 with a sentence naming what cannot be used', () => {
    const empty = fixtures('empty', { 'notes.txt': 'nothing here' });
    const badJson = fixtures('bad-json', { 'a.input.json': '{"type": "track",', 'a.expected.json': 'null' });
    const notEvent = fixtures('not-event', { 'a.input.json': [1, 2] });
    write('broken.js', 'function onTrack(event) {\n  return event +;\n}\n');
    const cases = [
      [['amp.js'], 'sluice: --fixtures DIR is required: the folder of NAME.input.json and NAME.expected.json pairs'],
      [['amp.js', '--fixtures', 'missing'], 'sluice: --fixtures missing: there is no such folder'],
      [['amp.js', '--fixtures', empty], `sluice: ${empty} holds no fixtures: name each event NAME.input.json, beside the outcome it should have, NAME.expected.json`],
      [['amp.js', '--fixtures', badJson], `sluice: ${path.join(badJson, 'a.input.json')} is not JSON: ${jsonError('{"type": "track",')}`],
      [['amp.js', '--fixtures', notEvent], `sluice: ${path.join(notEvent, 'a.input.json')} must hold one event (a JSON object), not an array`],
      [['nope.js', '--fixtures', empty], 'sluice: cannot read nope.js: there is no such file'],
      [['broken.js', '--fixtures', badJson], `sluice: ${path.join(badJson, 'a.input.json')} is not JSON: ${jsonError('{"type": "track",')}`],
      [['amp.js', '--fixtures', empty, '--settings', '{"currency":'], `sluice: --settings is not JSON: ${jsonError('{"currency":')}`],
      [['amp.js', '--fixtures', empty, '--settings', 'nope.json'], 'sluice: --settings: cannot read nope.json: there is no such file (give a JSON object, or a file holding one)'],
    ] as const;
    for (const [args, message] of cases) {
      const run = sluice(...args);
      expect({ args, code: run.code, stdout: run.stdout, first: run.stderr.split('\n')[0] }).toEqual({ args, code: 2, stdout: '', first: message });
    }
    const order1 = fixtures('for-broken', { 'a.input.json': order, 'a.expected.json': order });
    const broken = sluice('broken.js', '--fixtures', order1);
    expect(broken).toEqual({
      code: 2,
      stdout: '',
      stderr: `sluice: the transform broken.js cannot be used: SyntaxError: Unexpected token ';' (${path.join(dir, 'broken.js')}, line 2, column 17); fix it: no version of this transform has loaded yet\n`,
    });
    // A top level that throws when run: every fixture fails to load. Exit 2 with the reason, and --update
    // writes nothing (before 2026-12-01 it wrote the error into each expectation and exited 0).
    write('throws.js', 'const config = undefined.region;\nfunction onTrack(event) { return event; }\n');
    const loadFails = fixtures('for-throws', { 'a.input.json': order, 'a.expected.json': order });
    for (const extra of [[], ['--update']]) {
      const run = sluice('throws.js', '--fixtures', loadFails, ...extra);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
      expect(run.stderr).toMatch(/^sluice: the transform throws\.js cannot be used: .*top level.*undefined/s);
    }
    expect(JSON.parse(fs.readFileSync(path.join(dir, loadFails, 'a.expected.json'), 'utf8'))).toEqual(order);
    // A top level that loops: stopped by the watchdog, every call fails the same way — unusable too.
    write('loops.js', 'while (true) {}\nfunction onTrack(event) { return event; }\n');
    const loopFails = fixtures('for-loops', { 'a.input.json': order, 'a.expected.json': order });
    const looped = sluice('loops.js', '--fixtures', loopFails, '--update');
    expect({ code: looped.code, stdout: looped.stdout }).toEqual({ code: 2, stdout: '' });
    expect(looped.stderr).toMatch(/^sluice: the transform loops\.js cannot be used: the transform's top level ran past/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, loopFails, 'a.expected.json'), 'utf8'))).toEqual(order);
  });
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('valid JSON');
}
