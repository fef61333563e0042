// `sluice plan coverage` from the installed tarball, as a CI job runs it after its end-to-end suite:
// `sluice serve --ephemeral --json` with a tracking plan, messages through real HTTP ingestion, then the
// coverage of the plan over the relay's store (its ready line's dataDir) while it runs — text, --json,
// and --fail-on-missing's exit 2 while a planned event never fired, 0 once every one did.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServing, type RunningCli } from '../helpers/cli.ts';
import { basicAuth } from '../helpers/core.ts';
import { installInto, packSluice, tempDir } from '../helpers/packed-sluice.ts';

const work = tempDir('sluice-packaging-coverage-');
const project = path.join(work, 'consumer');
const bin = path.join(project, 'node_modules', '.bin', 'sluice');
let relay: RunningCli | undefined;

beforeAll(async () => {
  const packed = packSluice(work);
  installInto(project, packed.tarball);
  fs.writeFileSync(
    path.join(project, 'tracking-plan.json'),
    JSON.stringify({ events: { 'Order Completed': { type: 'object', properties: { total: { type: 'number' } } }, 'Signed Up': { type: 'object' } } }),
  );
  fs.writeFileSync(
    path.join(project, 'sluice.config.json'),
    JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_ci' }], trackingPlans: [{ name: 'web', file: 'tracking-plan.json' }] }),
  );
  relay = await startServing(bin, ['serve', '--ephemeral', '--json', '--config', 'sluice.config.json', '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'], { cwd: project });
}, 300_000);

afterAll(async () => {
  await relay?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

const send = async (body: unknown) => {
  const res = await fetch(`${relay!.ready.ingest}/v1/batch`, { method: 'POST', headers: { authorization: basicAuth('wk_ci'), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
};

function coverage(...args: string[]) {
  const run = spawnSync(bin, ['plan', 'coverage', '--data-dir', relay!.ready.dataDir, '--plan', 'tracking-plan.json', ...args], { cwd: project, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('sluice plan coverage from the installed package', () => {
  it('reports the running relay\'s store; --fail-on-missing exits 2 until every planned event fired', async () => {
    await send({ batch: [{ type: 'track', userId: 'u', event: 'Order Completed', properties: { total: 'x' } }, { type: 'track', userId: 'u', event: 'Debug Ping' }] });
    expect(coverage('--fail-on-missing')).toEqual({
      code: 2,
      stdout: [
        'plan "web": 1 of 2 planned events seen (1 with violations), 1 never seen; 1 unplanned event seen',
        '  violations  track "Order Completed"  1, 1 with violations',
        '  never seen  track "Signed Up"',
        '  unplanned   track "Debug Ping"       1',
        '',
      ].join('\n'),
      stderr: 'note: violations as the relay recorded them for its plan "web"\n',
    });
    await send({ batch: [{ type: 'track', userId: 'u', event: 'Signed Up' }] });
    const json = coverage('--fail-on-missing', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ missing: 0, plans: [{ plan: 'web', totals: { planned: 2, seen: 2, violated: 1, missing: 0, unplanned: 1 } }] });
  });
});
