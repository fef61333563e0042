import type * as NodeSqlite from 'node:sqlite';

/**
 * node:sqlite, loaded without its start-up warning. Node 22 calls node:sqlite experimental and says so
 * in every thread that loads it — three "ExperimentalWarning" lines at each start of the relay — where
 * Node 24 says nothing. Sluice relies on it on purpose, so that one warning is dropped while the
 * module loads (the rest pass through). Every thread of the core takes node:sqlite from here.
 */
function loadQuietly(): typeof NodeSqlite {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    if (typeof warning === 'string' && warning.startsWith('SQLite is an experimental feature')) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
}

export const { DatabaseSync } = loadQuietly();
export type DatabaseSync = NodeSqlite.DatabaseSync;
