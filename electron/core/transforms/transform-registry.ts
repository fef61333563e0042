/**
 * The transform files in use: each loaded by absolute path on first ask (read, compiled to find a syntax
 * error, versioned), its folder watched (an editor's save often replaces the file, which a watch on the
 * file itself would lose — as the tracking plans are watched, plans/plan-registry.ts), and reloaded on
 * change. A change that does not compile keeps the version in use and says why (`error`); a file that
 * never loaded has no version, and its calls fail `load`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkTransformSource, versionOf } from './source-check.ts';
import type { LoadedTransform } from './transformer.ts';

/** Waits this long after a change to a transform file before reading it (editors write in several steps). */
const SETTLE_MS = 100;

interface Entry {
  file: string;
  /** The source in use (null: none has loaded). */
  source: string | null;
  version: string;
  handlers: string[];
  error: string | null;
}

export class TransformRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #watchers = new Map<string, fs.FSWatcher | null>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #onChange: (loaded: LoadedTransform) => void;
  #closed = false;

  constructor(onChange: (loaded: LoadedTransform) => void = () => {}) {
    this.#onChange = onChange;
  }

  /** The file's entry (loading it, and watching its folder, on first ask). `file` must be absolute. */
  entry(file: string): Readonly<Entry> {
    const absolute = path.resolve(file);
    let entry = this.#entries.get(absolute);
    if (!entry) {
      entry = { file: absolute, source: null, version: '', handlers: [], error: null };
      this.#entries.set(absolute, entry);
      this.#load(entry);
      this.#watch(path.dirname(absolute));
    }
    return entry;
  }

  loaded(file: string): LoadedTransform {
    return viewOf(this.entry(file));
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers.values()) watcher?.close();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#watchers.clear();
    this.#timers.clear();
  }

  /** Reads and checks the file; on failure keeps the version in use and records why. */
  #load(entry: Entry): void {
    let source: string;
    try {
      source = fs.readFileSync(entry.file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      entry.error =
        code === 'ENOENT' ? `${entry.file} does not exist; create it, or fix the transform's path`
        : code === 'EISDIR' ? `${entry.file} is a folder, not a JavaScript file`
        : `${entry.file} cannot be read: ${(error as Error).message}`;
      return;
    }
    if (source === entry.source) {
      entry.error = null;
      return;
    }
    const check = checkTransformSource(source, entry.file);
    if (!check.ok) {
      entry.error = `${check.message}; ${entry.source === null ? 'fix it: no version of this transform has loaded yet' : `the version loaded before (${entry.version}) stays in use until it is fixed`}`;
      return;
    }
    Object.assign(entry, { source, version: versionOf(source), handlers: check.handlers, error: null });
  }

  #watch(folder: string): void {
    if (this.#watchers.has(folder)) return;
    try {
      const watcher = fs.watch(folder, { persistent: false }, (_event, changed) => {
        for (const entry of this.#entries.values()) {
          if (path.dirname(entry.file) === folder && (!changed || changed === path.basename(entry.file))) this.#changed(entry);
        }
      });
      watcher.on('error', (error) => console.error(`sluice: stopped watching ${folder} for transform changes: ${error.message}`));
      this.#watchers.set(folder, watcher);
    } catch (error) {
      this.#watchers.set(folder, null);
      console.error(`sluice: cannot watch ${folder} for transform changes (${(error as Error).message}); restart Sluice after editing a transform there`);
    }
  }

  #changed(entry: Entry): void {
    clearTimeout(this.#timers.get(entry.file));
    const timer = setTimeout(() => {
      this.#timers.delete(entry.file);
      if (this.#closed) return;
      const before = { version: entry.version, error: entry.error };
      this.#load(entry);
      if (entry.version === before.version && entry.error === before.error) return;
      this.#onChange(viewOf(entry));
    }, SETTLE_MS);
    timer.unref();
    this.#timers.set(entry.file, timer);
  }
}

function viewOf(entry: Entry): LoadedTransform {
  return { file: entry.file, version: entry.version, handlers: [...entry.handlers], error: entry.error };
}
