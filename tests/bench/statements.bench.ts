// `npm run bench -- statements`: what a bound value costs where SQLite prepares the statement again at
// every run. On a Sluice store of 20,000 messages (every migration's tables, indexes and triggers), each
// pair of statements reads the same rows, once with the value bound and once with it written into the
// SQL: a status compared with the column that partial indexes' WHERE name, a LIMIT, and the read a test's
// wait for one messageId makes (store/message-ids.ts, as filter-sql.ts composed it before 2026-11-30 and
// as it composes it now). Beside them, what preparing each statement costs. Microseconds per run, the
// median of 3 interleaved rounds of 5,000 runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StatementSync } from 'node:sqlite';
import { filterSql } from '../../electron/core/queries/filter-sql.ts';
import { openDatabase } from '../../electron/core/store/database.ts';
import { partQuery } from '../../electron/core/store/message-search.ts';
import { median } from './median.ts';

const MESSAGES = 20_000;
const RUNS = 5_000;
const ROUNDS = 3;

export async function runStatementsBench() {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-statements-'));
  const db = openDatabase(dir);
  try {
    db.exec("INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (7, 'web', 'wk_bench', 'web', 0)");
    db.exec('BEGIN');
    const insert = db.prepare("INSERT INTO messages (source_id, message_id, type, status, event, received_at, raw) VALUES (7, ?, 'track', ?, 'E', ?, ?)");
    for (let i = 1; i <= MESSAGES; i++) {
      insert.run(`m-${i}`, i % 50 === 0 ? 'rejected' : 'accepted', i, JSON.stringify({ type: 'track', event: 'E', messageId: `m-${i}` }));
    }
    db.exec('COMMIT');
    const id = (i: number) => `m-${((i * 61) % MESSAGES) + 1}`;
    // The wait's read as the code composes it now (the status and the limit written in), and as it did before.
    const now = filterSql({ messageId: 'x', status: 'accepted' });
    const waitNow = partQuery(null, 'm.id', { where: ['m.id > ?', ...now.where], params: [0, ...now.params] }, 'ASC', 2).sql;
    const waitBefore = waitNow.replace("m.status = 'accepted'", 'm.status = ?').replace(/LIMIT 2$/, 'LIMIT ?');
    // The old form must differ in both places, or the pair would measure nothing.
    if (!waitBefore.includes('m.status = ?') || !waitBefore.endsWith('LIMIT ?')) throw new Error(`the wait's read is no longer composed as this benchmark expects: ${waitNow}`);
    const pairs: { name: string; bound: [string, (i: number) => (string | number)[]]; written: [string, (i: number) => (string | number)[]] }[] = [
      {
        name: 'a status compared with a partial index column',
        bound: ['SELECT id FROM messages WHERE source_id = 7 AND message_id = ? AND status = ?', (i) => [id(i), 'accepted']],
        written: ["SELECT id FROM messages WHERE source_id = 7 AND message_id = ? AND status = 'accepted'", (i) => [id(i)]],
      },
      {
        name: 'a LIMIT',
        bound: ['SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?', (i) => [i % MESSAGES, 2]],
        written: ['SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT 2', (i) => [i % MESSAGES]],
      },
      {
        name: "a wait's read of one messageId",
        bound: [waitBefore, (i) => [0, ...now.params.map(() => id(i)), 'accepted', 2]],
        written: [waitNow, (i) => [0, ...now.params.map(() => id(i))]],
      },
    ];
    const perRun = (statement: StatementSync, args: (i: number) => (string | number)[]) => {
      for (let i = 0; i < 500; i++) statement.all(...args(i));
      const started = performance.now();
      for (let i = 0; i < RUNS; i++) statement.all(...args(i));
      return ((performance.now() - started) / RUNS) * 1000;
    };
    const prepareCost = (sql: string) => {
      const started = performance.now();
      for (let i = 0; i < RUNS / 5; i++) db.prepare(sql);
      return ((performance.now() - started) / (RUNS / 5)) * 1000;
    };
    const figures = [];
    for (const { name, bound, written } of pairs) {
      const b = db.prepare(bound[0]);
      const w = db.prepare(written[0]);
      // Both read the same rows.
      for (let i = 0; i < 50; i++) {
        if (JSON.stringify(b.all(...bound[1](i))) !== JSON.stringify(w.all(...written[1](i)))) throw new Error(`${name}: the two statements read different rows`);
      }
      const rounds = Array.from({ length: ROUNDS }, () => ({ bound: perRun(b, bound[1]), written: perRun(w, written[1]), prepare: prepareCost(bound[0]) }));
      const boundUs = median(rounds.map((r) => r.bound));
      const writtenUs = median(rounds.map((r) => r.written));
      const row = {
        name,
        boundMicros: round1(boundUs),
        writtenMicros: round1(writtenUs),
        prepareMicros: round1(median(rounds.map((r) => r.prepare))),
        boundOverWritten: round1(boundUs / writtenUs),
        rounds: rounds.map((r) => ({ bound: round1(r.bound), written: round1(r.written), prepare: round1(r.prepare) })),
      };
      console.log(`statements: ${name}: bound ${row.boundMicros} µs, written in ${row.writtenMicros} µs (${row.boundOverWritten}×); preparing it ${row.prepareMicros} µs`);
      figures.push(row);
    }
    return { messages: MESSAGES, runs: RUNS, rounds: ROUNDS, sqlite: process.versions.sqlite, pairs: figures };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const round1 = (n: number) => Math.round(n * 10) / 10;
