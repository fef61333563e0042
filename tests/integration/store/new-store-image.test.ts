// A new store starts as a copy of the first new store this process migrated (store/database.ts; issue
// 26: a test's relay per test must start in a few ms, and running every migration took 10–25 ms): the
// copy is that image byte for byte, holds none of what the first store wrote after, gets its own
// instance id, and has exactly the schema, version and settings of a store migrated from nothing.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseFile, openDatabase } from '../../../electron/core/store/database.ts';
import { instanceId } from '../../../electron/core/store/instance-id.ts';
import { wasCheckedWhole } from '../../../electron/core/store/integrity.ts';
import { startSluice } from '../../../electron/testing/index.ts';
import { migrate, MIGRATIONS } from '../../../electron/core/store/migrations.ts';
import { connect } from '../../../electron/core/store/connection.ts';
import { tempDir } from '../../helpers/core.ts';

const dirs: string[] = [];
const dir = () => (dirs.push(tempDir()), dirs.at(-1)!);
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const schema = (db: DatabaseSync) => db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name").all();
const pragma = (db: DatabaseSync, name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get() as object)[0];

describe('a new store from the migrated image', () => {
  it('is the first new store as migrated, with nothing written since, its own id, and the schema of a store migrated from nothing', () => {
    const first = dir();
    const a = openDatabase(first, { durable: false });
    const image = fs.readFileSync(databaseFile(first));
    const idA = instanceId(a);
    a.prepare("INSERT INTO settings (key, value) VALUES ('written-after', 'x')").run();

    const second = dir();
    const b = openDatabase(second, { durable: false });
    try {
      // Byte for byte the image, which is a whole migrated store in its file alone (migrations run on a new
      // file write to its WAL, not to the file).
      expect(fs.readFileSync(databaseFile(second)).equals(image)).toBe(true);
      const alone = path.join(dir(), 'alone.db');
      fs.writeFileSync(alone, image);
      const copy = new DatabaseSync(alone, { readOnly: true });
      expect(pragma(copy, 'user_version')).toBe(MIGRATIONS.at(-1)!.version);
      copy.close();
      expect(fs.readdirSync(second).filter((name) => name.includes('.new'))).toEqual([]);
      expect(fs.statSync(databaseFile(second)).mode & 0o777).toBe(0o600);
      expect(b.prepare("SELECT count(*) AS n FROM settings WHERE key = 'written-after'").get()).toEqual({ n: 0 });
      expect(instanceId(b)).not.toBe(idA);
      // What a store migrated from nothing has (connection.ts and migrations.ts alone, no image).
      const plain = connect(path.join(dir(), 'plain.db'), 'main', { durable: false });
      plain.exec('PRAGMA auto_vacuum = INCREMENTAL');
      migrate(plain);
      expect(schema(b)).toEqual(schema(plain));
      for (const name of ['user_version', 'auto_vacuum', 'journal_mode', 'page_size']) expect(pragma(b, name), name).toEqual(pragma(plain, name));
      expect(pragma(b, 'user_version')).toBe(MIGRATIONS.at(-1)!.version);
      expect(pragma(b, 'integrity_check')).toBe('ok');
      // The image was checked when taken: the copy counts as checked whole (the background check leaves it).
      expect(wasCheckedWhole(b)).toBe(true);
      plain.close();
    } finally {
      a.close();
      b.close();
    }
  });

  it('relays started at once each get a store of their own from it, sound and apart', async () => {
    const relays = await Promise.all(Array.from({ length: 6 }, () => startSluice()));
    try {
      expect(new Set(relays.map((r) => r.dataDir)).size).toBe(6);
      await Promise.all(relays.map(async (relay, i) => {
        const res = await fetch(`${relay.ingestUrl}/v1/track`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${relay.writeKey}:`).toString('base64')}`, 'content-type': 'application/json' },
          body: JSON.stringify({ userId: 'u', event: `Relay ${i}`, messageId: `relay-${i}` }),
        });
        expect(res.status).toBe(200);
      }));
      for (const [i, relay] of relays.entries()) {
        expect((await relay.waitForMessages({ messageId: `relay-${i}` })).map((m) => m.event)).toEqual([`Relay ${i}`]);
        expect((await relay.messages()).map((m) => m.messageId)).toEqual([`relay-${i}`]);
      }
    } finally {
      await Promise.all(relays.map((r) => r.close()));
    }
    for (const relay of relays) expect(fs.existsSync(relay.dataDir)).toBe(false);
  });
});
