// `sluice plan diff OLD NEW` as CI runs it: the real CLI in a child process on plan files, each change
// classified (breaking or compatible), the exit codes (1 on a breaking change unless --allow-breaking,
// 0 otherwise, 2 when it cannot compare), --json, and plans in Segment's, RudderStack's and Sluice's
// formats, compared across formats.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { tempDir } from '../../helpers/temp-dirs.ts';

const PLANS = path.resolve(import.meta.dirname, '../../fixtures/plans');
const work = tempDir('sluice-plan-diff-');

function planFile(name: string, plan: unknown): string {
  const file = path.join(work, name);
  fs.writeFileSync(file, JSON.stringify(plan, null, 2));
  return file;
}

const OLD = {
  events: {
    'Order Completed': {
      type: 'object',
      description: 'A customer paid.',
      properties: {
        price: { type: 'number' },
        currency: { enum: ['EUR', 'USD', 'GBP'] },
        coupon: { type: 'string' },
        quantity: { type: 'integer' },
        note: { type: 'string', maxLength: 100 },
        total: { type: 'number', minimum: 1 },
        email: { type: 'string' },
        items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
        gift: { type: 'boolean' },
      },
      required: ['price', 'gift'],
    },
    'Signed Up': { type: 'object' },
    'Cart Viewed': { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false },
  },
  identify: { type: 'object', properties: { email: { type: 'string' } } },
};

const NEW = {
  events: {
    'Order Completed': {
      type: 'object',
      description: 'A customer paid for an order.',
      properties: {
        price: { type: 'integer' },
        currency: { enum: ['EUR', 'USD', 'JPY'] },
        quantity: { type: ['integer', 'string'] },
        note: { type: 'string', maxLength: 50 },
        total: { type: 'number', minimum: 0 },
        email: { type: 'string', format: 'email' },
        items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
        gift: { type: 'boolean' },
        channel: { type: 'string' },
        store: { type: 'string' },
      },
      required: ['price', 'currency', 'store'],
      additionalProperties: false,
    },
    'Cart Viewed': { type: 'object', properties: { id: { type: 'string' } } },
    'Checkout Started': { type: 'object' },
  },
  identify: { type: 'object', properties: { email: { type: 'string' } } },
  page: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

const oldFile = planFile('old.json', OLD);
const newFile = planFile('new.json', NEW);
const lines = (text: string) => text.trimEnd().split('\n');

describe('sluice plan diff', () => {
  it('classifies each change, grouped by event, and exits 1 on a breaking one', async () => {
    const run = await runCli(['plan', 'diff', oldFile, newFile]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(lines(run.stdout)).toEqual([
      'event "Cart Viewed"',
      '  compatible  properties: additionalProperties no longer false: other properties are accepted',
      'event "Checkout Started"',
      '  compatible  event added',
      'event "Order Completed"',
      '  compatible  properties: description changed',
      '  compatible  properties.channel: optional property added',
      '  breaking    properties.coupon: property removed',
      '  breaking    properties.currency: property made required',
      '  breaking    properties.currency: enum value "GBP" removed',
      '  compatible  properties.currency: enum value "JPY" added',
      '  breaking    properties.email: format "email" added',
      '  compatible  properties.gift: property made optional',
      '  breaking    properties.items[].sku: property made required',
      '  breaking    properties.note: maxLength tightened from 100 to 50',
      '  breaking    properties.price: type narrowed from number to integer',
      '  compatible  properties.quantity: type widened from integer to integer or string',
      '  breaking    properties.store: required property added',
      '  compatible  properties.total: minimum loosened from 1 to 0',
      '  breaking    properties: additionalProperties made false: other properties are refused',
      'event "Signed Up"',
      '  breaking    event removed',
      'page',
      '  breaking    now checked by the plan',
      `11 breaking changes, 8 compatible changes from ${oldFile} to ${newFile}`,
    ]);
  });

  it('--allow-breaking exits 0 and still prints every change; the reverse diff classifies the other way', async () => {
    const allowed = await runCli(['plan', 'diff', oldFile, newFile, '--allow-breaking']);
    expect(allowed.code).toBe(0);
    expect(lines(allowed.stdout).at(-1)).toBe(`11 breaking changes, 8 compatible changes from ${oldFile} to ${newFile} (breaking allowed)`);
    const back = await runCli(['plan', 'diff', newFile, oldFile]);
    expect(back.code).toBe(1);
    const out = lines(back.stdout);
    expect(out).toContain('  breaking    event removed'); // Checkout Started
    expect(out).toContain('  compatible  event added'); // Signed Up
    expect(out).toContain('  compatible  properties.price: type widened from integer to number');
    expect(out).toContain('  compatible  properties.currency: enum value "GBP" added');
    expect(out).toContain('  breaking    properties.channel: property removed');
    expect(out).toContain('  breaking    properties.store: property removed');
    expect(out).toContain('  compatible  no longer checked by the plan'); // page
  });

  it('exits 0 when every change is compatible, and when nothing changed', async () => {
    const widened = planFile('widened.json', {
      ...OLD,
      events: { ...OLD.events, 'Signed Up': { type: 'object', description: 'An account was made.', properties: { plan: { description: 'Free or paid.' } } }, 'Order Refunded': {} },
    });
    const run = await runCli(['plan', 'diff', oldFile, widened]);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'event "Order Refunded"',
        '  compatible  event added',
        'event "Signed Up"',
        '  compatible  properties: description added',
        '  compatible  properties.plan: optional property added',
        `0 breaking changes, 3 compatible changes from ${oldFile} to ${widened}`,
        '',
      ].join('\n'),
    });
    expect(await runCli(['plan', 'diff', oldFile, oldFile])).toEqual({ code: 0, stderr: '', stdout: `no changes from ${oldFile} to ${oldFile}\n` });
  });

  it('--json: the counts and each change with its event, field, code and words', async () => {
    const run = await runCli(['plan', 'diff', '--json', oldFile, newFile]);
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout) as { breaking: number; compatible: number; old: unknown; changes: Record<string, unknown>[] };
    expect(lines(run.stdout)).toHaveLength(1);
    expect(out).toMatchObject({ old: { file: oldFile, format: 'sluice' }, new: { file: newFile, format: 'sluice' }, breaking: 11, compatible: 8 });
    expect(out.changes).toHaveLength(19);
    expect(out.changes).toContainEqual({ kind: 'breaking', part: 'event', event: 'Order Completed', path: 'properties.currency', change: 'enum-value-removed', text: 'enum value "GBP" removed' });
    expect(out.changes).toContainEqual({ kind: 'breaking', part: 'event', event: 'Signed Up', path: 'properties', change: 'event-removed', text: 'event removed' });
    expect(out.changes).toContainEqual({ kind: 'compatible', part: 'event', event: 'Checkout Started', path: 'properties', change: 'event-added', text: 'event added' });
    expect(out.changes).toContainEqual({ kind: 'breaking', part: 'page', event: null, path: 'properties', change: 'part-added', text: 'now checked by the plan' });
    const allowed = await runCli(['plan', 'diff', '--json', '--allow-breaking', oldFile, newFile]);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual(out);
  });

  it('follows $refs within an event\'s schema: a change behind one is a change', async () => {
    const item = (sku: unknown) => ({ events: { 'Order Completed': { type: 'object', properties: { item: { $ref: '#/definitions/item' } }, definitions: { item: { type: 'object', properties: { sku } } } } } });
    const before = planFile('ref-old.json', item({ type: 'string' }));
    const after = planFile('ref-new.json', item({ type: 'string', pattern: '^[A-Z]+$' }));
    const run = await runCli(['plan', 'diff', before, after]);
    expect(run.code).toBe(1);
    expect(lines(run.stdout)).toEqual(['event "Order Completed"', '  breaking    properties.item.sku: pattern "^[A-Z]+$" added', `1 breaking change, 0 compatible changes from ${before} to ${after}`]);
  });

  it('sees keywords beside a $ref, which the relay applies with the target: a bound added there is breaking', async () => {
    const price = (extra: object) => ({ events: { 'Order Completed': { type: 'object', properties: { price: { $ref: '#/definitions/price', ...extra } }, definitions: { price: { type: 'number' } } } } });
    const before = planFile('ref-sibling-old.json', price({}));
    const after = planFile('ref-sibling-new.json', price({ maximum: 100 }));
    const run = await runCli(['plan', 'diff', before, after]);
    expect(run.code).toBe(1);
    expect(lines(run.stdout)).toEqual(['event "Order Completed"', '  breaking    properties.price: maximum 100 added', `1 breaking change, 0 compatible changes from ${before} to ${after}`]);
  });
});

describe('sluice plan diff across formats', () => {
  it('finds no change between a Segment or RudderStack export and its import to Sluice\'s format', async () => {
    for (const name of ['segment-config-api', 'segment-public-api', 'rudderstack']) {
      const vendor = path.join(PLANS, `${name}.json`);
      const imported = path.join(work, `${name}.imported.json`);
      const importing = await runCli(['plan', 'import', vendor, '--out', imported]);
      expect(importing.code).toBe(0);
      const run = await runCli(['plan', 'diff', vendor, imported]);
      const format = name === 'rudderstack' ? 'a RudderStack export' : 'a Segment Protocols export';
      // What the import left out is said again: those rules are not compared (before 2026-12-01, silently).
      const leftOut = importing.stderr.split('\n').filter((line) => line.startsWith('  note: ')).map((line) => `note: ${vendor}: ${line.slice('  note: '.length)}\n`);
      expect(run).toEqual({ code: 0, stderr: leftOut.join(''), stdout: `no changes from ${vendor} to ${imported} (${format} and Sluice's format)\n` });
    }
  });

  it('compares a Segment Protocols plan with a RudderStack one, naming both formats', async () => {
    const run = await runCli(['plan', 'diff', path.join(PLANS, 'segment-config-api.json'), path.join(PLANS, 'rudderstack.json'), '--json']);
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout) as { old: { format: string }; new: { format: string }; changes: { kind: string; event: string | null; change: string }[] };
    expect([out.old.format, out.new.format]).toEqual(['segment', 'rudderstack']);
    expect(run.stderr.split('\n').filter(Boolean).every((line) => line.startsWith('note: '))).toBe(true);
    // The Segment plan's "Signed Up" is not in the RudderStack one; RudderStack's "Cart Shared" is new.
    expect(out.changes).toContainEqual(expect.objectContaining({ kind: 'breaking', event: 'Signed Up', change: 'event-removed' }));
    expect(out.changes).toContainEqual(expect.objectContaining({ kind: 'compatible', event: 'Cart Shared', change: 'event-added' }));
  });
});

describe('sluice plan diff refuses, with exit 2', () => {
  it('one plan, three plans, an unknown option: the sentence and the help', async () => {
    const one = await runCli(['plan', 'diff', oldFile]);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/^sluice: name the old plan and the new plan \(got one\)\n\nUsage: sluice plan diff OLD NEW/);
    const three = await runCli(['plan', 'diff', oldFile, newFile, oldFile]);
    expect(three).toMatchObject({ code: 2, stderr: expect.stringMatching(/^sluice: plan diff compares two plans \(got 3 files\)\n/) });
    const flag = await runCli(['plan', 'diff', oldFile, newFile, '--allow-braking']);
    expect(flag).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^sluice: Unknown option '--allow-braking'/) });
  });

  it('a missing plan and a plan that cannot be used, even with --allow-breaking', async () => {
    const missing = path.join(work, 'missing.json');
    expect(await runCli(['plan', 'diff', oldFile, missing, '--allow-breaking'])).toEqual({ code: 2, stdout: '', stderr: `sluice: cannot read the plan ${missing}: there is no such file\n` });
    const bad = planFile('bad.json', { events: { 'Order Completed': { type: 'money' } } });
    const run = await runCli(['plan', 'diff', bad, newFile]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`sluice: the plan ${bad} cannot be used:\n  events["Order Completed"].type: must be`);
  });
});
