// `sluice summary`: a store's messages, events, violations and failed or retrying deliveries as
// Markdown tables for a CI job's summary (the GitHub Action's report step appends it), read from a
// store a relay is serving (read-only): each table bounded by --limit and saying how many more there
// are, each cell one line with what Markdown would read escaped, and a sentence for what it cannot use.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { runCli } from '../../helpers/cli.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

let core: TestCore;

beforeAll(async () => {
  core = await startCore({
    config: parseConfig(JSON.stringify({
      sources: [{ name: 'web', writeKey: 'wk_sum', kind: 'web' }],
      // Port 9 (discard) refuses: every delivery is retrying after its first attempt.
      destinations: [{ name: 'down', sources: ['web'], webhooks: [{ url: 'http://127.0.0.1:9/hook' }] }],
      trackingPlans: [{ name: 'shop', sources: ['web'], plan: { events: { Checkout: { type: 'object', properties: { total: { type: 'number' } } } } } }],
    })),
  });
  core.writeKey = 'wk_sum';
  const track = (event: string, properties: Record<string, unknown> = {}) => ({ type: 'track', userId: 'u', event, properties });
  const batch = [
    ...Array.from({ length: 3 }, () => track('Checkout', { total: 1 })),
    track('Checkout', { total: 'one' }),
    track('Searched'),
    track('Searched'),
    track('Odd | name\nwith <b>html</b>'),
  ];
  expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if ((await core.queries.stats()).deliveries.retrying === batch.length) break;
  }
});

afterAll(() => core?.dispose());

describe('sluice summary', () => {
  it('lists at most --limit rows per table, the most first, and says how many more there are', async () => {
    const run = await runCli(['summary', '--data-dir', core.dataDir, '--limit', '2']);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain('**7 messages** (7 accepted) · **7 deliveries** (7 retrying) · **4 messages** broke a tracking plan');
    const events = section(run.stdout, 'Track events');
    expect(events).toContain('| Checkout | 4 |\n| Searched | 2 |\n\n…and 1 more event (`--limit` lists up to 100).');
    // Unplanned events break the plan too: Searched twice, the odd one once; Checkout once.
    const violations = section(run.stdout, 'Tracking-plan violations');
    expect(violations).toContain('| shop | Searched | 2 |\n| shop | Checkout | 1 |\n\n…and 1 more event');
    expect(violations).toContain('…and 2 more messages');
    const deliveries = section(run.stdout, 'Failed deliveries');
    expect(deliveries.match(/^\| down \| .* \| retrying \| 1 \| .*refused the connection.* \|$/gm)).toHaveLength(2);
    expect(deliveries).toContain('…and 5 more deliveries');
  });

  it('keeps each cell on one line, with |, < and the like escaped', async () => {
    const run = await runCli(['summary', '--data-dir', core.dataDir, '--limit', '100']);
    expect(run.code).toBe(0);
    expect(section(run.stdout, 'Track events')).toContain('| Odd \\| name with \\<b\\>html\\</b\\> | 1 |');
    // Every row of every table has as many cells as its head.
    for (const table of run.stdout.split('\n\n').filter((block) => block.startsWith('| '))) {
      const [head, ...rows] = table.split('\n');
      const cells = (line: string) => line.split(/(?<!\\)\|/).length;
      for (const row of rows) expect(cells(row), row).toBe(cells(head!));
    }
    expect(run.stdout).not.toContain('and 1 more');
  });

  it('gives the same as JSON with --json', async () => {
    const run = await runCli(['summary', '--data-dir', core.dataDir, '--json']);
    const summary = JSON.parse(run.stdout) as { stats: { types: Record<string, number> }; violations: { total: number }; deliveries: { total: number; rows: { status: string }[] } };
    expect(summary.stats.types).toEqual({ track: 7 });
    expect(summary.violations.total).toBe(4);
    expect(summary.deliveries.total).toBe(7);
    expect(summary.deliveries.rows.map((d) => d.status)).toEqual(Array(7).fill('retrying'));
  });

  it('says what is wrong with a bad --limit, a file given, or a folder without a store', async () => {
    const limits = ['0', '101', '2.5', 'ten'];
    const runs = await Promise.all(limits.map((limit) => runCli(['summary', '--data-dir', core.dataDir, '--limit', limit])));
    expect(runs.map((run) => ({ code: run.code, first: run.stderr.split('\n')[0] }))).toEqual(
      limits.map((limit) => ({ code: 2, first: `sluice: --limit must be a whole number from 1 to 100, not "${limit}"` })),
    );
    const file = await runCli(['summary', 'report.md']);
    expect(file.stderr.split('\n')[0]).toBe('sluice: summary reads the store and takes no file (got "report.md")');
    const empty = tempDir();
    try {
      const run = await runCli(['summary', '--data-dir', empty]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 2, stderr: `sluice: no Sluice store in ${empty} (there is no sluice.db): run sluice serve first, or give --data-dir\n` });
    } finally {
      fs.rmSync(empty, { recursive: true });
    }
  });
});

/** The text under a `### heading`, up to the next heading. */
function section(markdown: string, heading: string): string {
  return markdown.split(`### ${heading}\n`)[1]?.split('\n### ')[0] ?? '';
}
