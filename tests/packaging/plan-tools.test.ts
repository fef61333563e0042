// `sluice plan codegen` and `sluice plan diff` from the installed tarball: the bundled CLI loads their
// code (chunks of dist/), the generated module compiles against the shipped sluice/client types, and
// diff exits as CI expects.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutRoot, installInto, packSluice, tempDir } from '../helpers/packed-sluice.ts';

const work = tempDir('sluice-packaging-plan-tools-');
const project = path.join(work, 'consumer');
const bin = path.join(project, 'node_modules', '.bin', 'sluice');

const PLAN = {
  name: 'shop',
  events: {
    'Order Completed': {
      type: 'object',
      properties: { price: { type: 'number' }, currency: { enum: ['EUR', 'USD'] } },
      required: ['price'],
    },
  },
};

beforeAll(() => {
  const packed = packSluice(work);
  installInto(project, packed.tarball);
  fs.writeFileSync(path.join(project, 'plan.json'), JSON.stringify(PLAN));
}, 300_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function sluice(args: string[]) {
  const run = spawnSync(bin, args, { cwd: project, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('sluice plan codegen from the installed package', () => {
  it('writes a module that compiles against the shipped sluice/client types, and refuses a wrong call', () => {
    expect(sluice(['plan', 'codegen', '--plan', 'plan.json', '--out', 'analytics', '--client', 'sluice'])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'wrote analytics/index.ts: 1 track function for sluice\n',
    });
    fs.writeFileSync(
      path.join(project, 'use.ts'),
      "import { Client } from 'sluice/client';\nimport { setClient, trackOrderCompleted } from './analytics/index.ts';\nsetClient(new Client('wk'));\ntrackOrderCompleted({ price: 1, currency: 'EUR' }, { userId: 'u_1' });\n// @ts-expect-error currency is EUR or USD\ntrackOrderCompleted({ price: 1, currency: 'GBP' }, { userId: 'u_1' });\n",
    );
    const tsc = path.join(checkoutRoot, 'node_modules/typescript/bin/tsc');
    const flags = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--allowImportingTsExtensions', '--types', 'node', '--typeRoots', path.join(checkoutRoot, 'node_modules/@types')];
    const run = spawnSync(process.execPath, [tsc, ...flags, 'use.ts'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
    expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 0, stdout: '' });
  });
});

describe('sluice plan diff from the installed package', () => {
  it('classifies a breaking change and exits 1; --allow-breaking exits 0', () => {
    const next = { ...PLAN, events: { 'Order Completed': { ...PLAN.events['Order Completed'], required: ['price', 'currency'] }, 'Cart Viewed': {} } };
    fs.writeFileSync(path.join(project, 'next.json'), JSON.stringify(next));
    const expected = [
      'event "Cart Viewed"',
      '  compatible  event added',
      'event "Order Completed"',
      '  breaking    properties.currency: property made required',
      '1 breaking change, 1 compatible change from plan.json to next.json',
      '',
    ].join('\n');
    expect(sluice(['plan', 'diff', 'plan.json', 'next.json'])).toEqual({ code: 1, stdout: expected, stderr: '' });
    expect(sluice(['plan', 'diff', 'plan.json', 'next.json', '--allow-breaking']).code).toBe(0);
    expect(sluice(['plan', 'diff', 'plan.json'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^sluice: name the old plan and the new plan/) });
  });
});

