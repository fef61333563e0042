// What a failed store read or write is (core/store/store-failure.ts storeFailureOf), wherever it
// surfaces — the inspector's calls, the HTTP API, sluice export: a damaged store and a full disk say what
// to do, once, whether the writer made the answer already or a reader met SQLite's message.
import path from 'node:path';
import { expect, it } from 'vitest';
import { ingestErrorOf, unknownWriteKey } from '../../electron/core/ingest/ingest-error.ts';
import { StoreFailure, storeFailure, storeFailureOf } from '../../electron/core/store/store-failure.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

function storeFile(): string {
  return path.join(tempDir('sluice-failure-'), 'sluice.db');
}

it('passes the writer’s own answer on as it is: a damaged store’s sentence is not wrapped again', () => {
  const file = storeFile();
  const fromWriter = storeFailure('database disk image is malformed', file);
  expect(fromWriter).toBeInstanceOf(StoreFailure);
  expect(storeFailureOf(fromWriter, file)).toBe(fromWriter);
  expect(fromWriter.message.match(/is damaged/g)).toHaveLength(1);
});

it('answers a full disk met by any write as disk_full (507), naming the folder', () => {
  const file = storeFile();
  const failure = storeFailureOf(new Error('could not store a clear: database or disk is full'), file);
  expect(failure).toMatchObject({ kind: 'full', code: 'disk_full' });
  expect(failure).not.toHaveProperty('status'); // the store's failure carries no HTTP answer: each host makes its own
  expect(ingestErrorOf(failure)).toMatchObject({ status: 507, code: 'disk_full', message: failure!.message });
  expect(failure!.message).toContain(path.dirname(file));
  const fromWriter = storeFailure('database or disk is full', file);
  expect(storeFailureOf(fromWriter, file)).toBe(fromWriter);
});

it('leaves every other failure alone (null): another refusal, another SQLite error, a thrown non-error', () => {
  const file = storeFile();
  expect(storeFailureOf(unknownWriteKey(), file)).toBeNull();
  expect(storeFailureOf(new Error('UNIQUE constraint failed: sources.name'), file)).toBeNull();
  expect(storeFailureOf('database disk image is malformed', file)).toBeNull();
});
