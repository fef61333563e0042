// The pruner's log line, as `sluice serve` writes it to stderr: how many messages went, why, with how
// many deliveries and attempts, and how many it kept because their delivery is still open. A store of
// 1,300 messages is filled without limits (web's deliveries delivered, ios's still open), then served
// with maxMessages 1,000 from the config file: its first pass (a few seconds after start) prunes.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { DatabaseSync } from '../../../electron/core/store/sqlite.ts';
import { startCli, type RunningCli } from '../../helpers/cli.ts';
import { post, startCore, tempDir } from '../../helpers/core.ts';
import { startReceiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

it('sluice serve logs what a prune removed and what it kept', async () => {
  const dir = tempDir('sluice-retention-log-');
  open.push({ close: async () => fs.rmSync(dir, { recursive: true, force: true }) });
  const ok = await startReceiver();
  const failing = await startReceiver();
  open.push(ok, failing);
  failing.fallback = { status: 503 };
  const config = (retention: object) => ({
    sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }],
    destinations: [
      { name: 'web hooks', sources: ['web'], webhooks: [{ url: ok.url }] },
      { name: 'ios hooks', sources: ['ios'], webhooks: [{ url: failing.url }] },
    ],
    retention,
  });
  const track = (prefix: string, from: number) => ({ batch: Array.from({ length: 100 }, (_, i) => ({ type: 'track', event: 'Kept?', userId: `${prefix}${from + i}` })) });

  // The oldest 100 are ios's, whose deliveries stay open (503: retrying, or pending behind them); then 1,200 of web's, delivered.
  const data = path.join(dir, 'data');
  const filling = await startCore({ dataDir: data, config: parseConfig(JSON.stringify(config({ maxAgeDays: null, maxMessages: null, maxBytes: null }))) });
  expect((await post({ ingestUrl: filling.ingestUrl, writeKey: 'wk_ios' }, '/v1/batch', track('i', 0))).status).toBe(200);
  for (let b = 0; b < 12; b++) expect((await post({ ingestUrl: filling.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', track('w', b * 100))).status).toBe(200);
  const settled = () => {
    const by = filling.deliveries.countByStatus();
    return by.delivered === 1200 && (by.pending ?? 0) + (by.retrying ?? 0) === 100 && (by.retrying ?? 0) > 0;
  };
  await until(settled, 30_000, "web's deliveries delivered and ios's open");
  await filling.close();

  const file = path.join(dir, 'sluice.config.json');
  fs.writeFileSync(file, JSON.stringify(config({ maxAgeDays: null, maxMessages: 1000, maxBytes: null })));
  const cli: RunningCli = await startCli(['--data-dir', data, '--config', file]);
  open.push({ close: () => cli.stop() });
  await until(() => /sluice: removed/.test(cli.stderr()), 30_000, 'the prune after start');
  const line = cli.stderr().split('\n').find((l) => l.startsWith('sluice: removed'));
  expect(line).toMatch(
    /^sluice: removed 300 messages \(over the message limit\) with 300 deliveries and 300 attempts in \d+\.\d s; kept 100 whose delivery is still pending or retrying$/,
  );
  expect(await cli.stop()).toBe(0);

  // What the line says is what went: the 300 oldest of web's, none of ios's.
  const db = new DatabaseSync(path.join(data, DATABASE_FILE), { readOnly: true });
  open.push({ close: async () => db.close() });
  const left = db
    .prepare('SELECT s.name AS source, count(*) AS n, (SELECT user_id FROM messages WHERE source_id = s.id ORDER BY id LIMIT 1) AS first FROM messages m JOIN sources s ON s.id = m.source_id GROUP BY s.id ORDER BY s.name')
    .all();
  expect(left).toEqual([
    { source: 'ios', n: 100, first: 'i0' },
    { source: 'web', n: 900, first: 'w300' },
  ]);
});
