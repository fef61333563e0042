// Saved searches (issue 29, point 3): saved under a unique name, kept across a restart (the store's
// settings table), renamed, deleted, kept by a reset; clear errors for a taken or unknown name and a
// query that does not parse. Real core, real SQLite file, the contract's handlers.
import fs from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import type { SavedFilters } from '../../../shared/contract.ts';
import { callOk } from '../../helpers/contract.ts';
import { startCore, tempDir } from '../../helpers/core.ts';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

const failing: SavedFilters = { search: 'status:failed event:Order*', type: 'track', status: null, sourceId: null, time: { kind: 'last', ms: 3_600_000 }, violations: true };
const pinned: SavedFilters = { search: 'pinned:true', type: null, status: null, sourceId: null, time: { kind: 'all' } };

it('saves under a unique name, keeps them across a restart and a reset, renames and deletes, with clear errors', async () => {
  const dataDir = tempDir('sluice-saved-');
  open.push({ close: async () => fs.rmSync(dataDir, { recursive: true, force: true }) });
  const first = await startCore({ dataDir });
  let h = createHandlers(first);
  expect(await callOk(h, 'searches.list', {})).toEqual({ searches: [] });
  await callOk(h, 'searches.save', { name: 'Pinned ones', filters: pinned });
  expect((await callOk(h, 'searches.save', { name: '  Failing orders ', filters: failing })).searches.map((s) => s.name)).toEqual(['Failing orders', 'Pinned ones']);

  const taken = await invoke(h, 'searches.save', { name: 'failing ORDERS', filters: pinned });
  expect(taken).toMatchObject({ ok: false, error: { code: 'name_taken' } });
  expect(!taken.ok && taken.error.message).toMatch(/already named “failing ORDERS”: choose another name/);
  const bad = await invoke(h, 'searches.save', { name: 'Bad', filters: { ...pinned, search: 'sku:1' } });
  expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  expect(await invoke(h, 'searches.save', { name: '   ', filters: pinned })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  await first.dispose();

  // A restart: both are there, filters and all.
  const second = await startCore({ dataDir });
  open.push({ close: () => second.dispose() });
  h = createHandlers(second);
  expect(await callOk(h, 'searches.list', {})).toEqual({
    searches: [
      { name: 'Failing orders', filters: failing },
      { name: 'Pinned ones', filters: pinned },
    ],
  });
  expect((await callOk(h, 'searches.rename', { name: 'pinned ones', to: 'Kept' })).searches.map((s) => s.name)).toEqual(['Failing orders', 'Kept']);
  expect(await invoke(h, 'searches.rename', { name: 'Kept', to: 'failing orders' })).toMatchObject({ ok: false, error: { code: 'name_taken' } });
  expect(await invoke(h, 'searches.rename', { name: 'Nope', to: 'X' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  await second.reset();
  expect((await callOk(h, 'searches.delete', { name: 'Failing orders' })).searches).toEqual([{ name: 'Kept', filters: pinned }]);
  expect(await invoke(h, 'searches.delete', { name: 'Failing orders' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
});
