// `sluice transform test` from the installed tarball: the transform worker thread shipped beside the
// bundled CLI (dist/transform-worker.js) starts and runs the user's file from a project that installed
// Sluice — a fixture passing, one failing with its diff — on this Node.js and, when CI provides it
// (SLUICE_NODE_MIN), on the relay's oldest.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_NODE } from '../../electron/host/node-check.js';
import { installInto, nodeVersion, packSluice, pathWith, tempDir } from '../helpers/packed-sluice.ts';

const work = tempDir('sluice-packaging-transform-');
const project = path.join(work, 'consumer');
const bin = path.join(project, 'node_modules', '.bin', 'sluice');
const nodeMin = process.env.SLUICE_NODE_MIN;
if (!nodeMin) console.warn('[packaging] transform test on the relay’s oldest Node.js is skipped: SLUICE_NODE_MIN names no Node binary (.ci/run provides one)');

beforeAll(() => {
  const packed = packSluice(work);
  installInto(project, packed.tarball);
  fs.mkdirSync(path.join(project, 'transforms/fixtures'), { recursive: true });
  fs.writeFileSync(
    path.join(project, 'transforms/amp.js'),
    'async function onTrack(event, { settings }) {\n  return { ...event, properties: { ...event.properties, source: settings.source } };\n}\n',
  );
  const fixture = (name: string, input: unknown, expected: unknown) => {
    fs.writeFileSync(path.join(project, `transforms/fixtures/${name}.input.json`), JSON.stringify(input));
    fs.writeFileSync(path.join(project, `transforms/fixtures/${name}.expected.json`), JSON.stringify(expected));
  };
  fixture('order', { type: 'track', event: 'Order', properties: { total: 3 } }, { type: 'track', event: 'Order', properties: { total: 3, source: 'web' } });
  fixture('wrong', { type: 'track', event: 'Refund', properties: {} }, { type: 'track', event: 'Refund', properties: { source: 'app' } });
}, 300_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** `sluice transform test` from the consumer project, with `node` first on PATH when given. */
function transformTest(node?: string) {
  const env = node ? { ...process.env, PATH: pathWith(node) } : process.env;
  const run = spawnSync(bin, ['transform', 'test', 'transforms/amp.js', '--fixtures', 'transforms/fixtures', '--settings', '{"source": "web"}'], { cwd: project, env, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const EXPECTED = {
  code: 1,
  stdout: ['pass  order', 'FAIL  wrong', '        properties.source: wanted "app", got "web"', '2 fixtures of transforms/amp.js: 1 passed, 1 failed', ''].join('\n'),
  stderr: '',
};

describe('sluice transform test from the installed package', () => {
  it('runs the transform in its worker thread: a pass, a failure with its diff, exit 1', () => {
    expect(fs.existsSync(path.join(project, 'node_modules/sluice/dist/transform-worker.js'))).toBe(true);
    expect(transformTest()).toEqual(EXPECTED);
  });

  it.skipIf(!nodeMin)('does the same on the relay’s oldest Node.js (SLUICE_NODE_MIN)', () => {
    expect(nodeVersion(nodeMin!)).toBe(RELAY_NODE);
    expect(transformTest(nodeMin!)).toEqual(EXPECTED);
  });
});
