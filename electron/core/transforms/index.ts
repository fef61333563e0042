/**
 * The transform runtime (issue 28): `createTransformer(options)` makes the Transformer delivery,
 * replays and the preview use (transformer.ts) — a registry of the destinations' transform files
 * (transform-registry.ts) and a pool of worker threads running them (worker-pool.ts), started only when
 * a first call comes (a Sluice with no transform starts no thread) and ended by close().
 */
import { TRANSFORM_MEMORY_MB, TRANSFORM_TIMEOUT } from '../../../shared/destination-filters.ts';
import type { CallResult, ScriptRef } from './protocol.ts';
import { TransformRegistry } from './transform-registry.ts';
import { versionOf } from './source-check.ts';
import type { LoadedTransform, TransformCall, TransformOutcome, Transformer, TransformerOptions } from './transformer.ts';
import { WorkerPool } from './worker-pool.ts';

export { checkTransformSource, type SourceCheck } from './source-check.ts';
export type * from './transformer.ts';

/** The file name an unsaved source (runSource) has in its stacks and errors. */
export const UNSAVED_SOURCE_NAME = 'unsaved-transform.js';

export class TransformRuntime implements Transformer {
  readonly pool: WorkerPool;
  readonly #registry: TransformRegistry;
  /** Settings objects as JSON text (delivery hands the same object for each call of a destination). */
  readonly #settingsText = new WeakMap<object, string>();
  #closed = false;

  constructor(options: TransformerOptions = {}) {
    this.pool = new WorkerPool({ size: options.workers ?? 1, memoryMb: options.memoryMb ?? TRANSFORM_MEMORY_MB.default });
    this.#registry = new TransformRegistry(options.onChange);
  }

  async run(file: string, calls: readonly TransformCall[], options: { timeoutMs?: number } = {}): Promise<TransformOutcome[]> {
    if (this.#closed) return calls.map(() => closedOutcome());
    const entry = this.#registry.entry(file);
    if (entry.source === null) {
      const message = `the transform ${entry.file} could not be loaded: ${entry.error ?? 'it has no source'}`;
      return calls.map(() => ({ kind: 'failed', code: 'load', message, version: '', ms: 0, logs: [] }));
    }
    return this.#run({ key: `${entry.file}\0${entry.version}`, filename: entry.file, version: entry.version, source: entry.source }, calls, options);
  }

  async runSource(source: string, calls: readonly TransformCall[], options: { timeoutMs?: number } = {}): Promise<TransformOutcome[]> {
    if (this.#closed) return calls.map(() => closedOutcome());
    const version = versionOf(source);
    return this.#run({ key: `${UNSAVED_SOURCE_NAME}\0${version}`, filename: UNSAVED_SOURCE_NAME, version, source }, calls, options);
  }

  loaded(file: string): LoadedTransform {
    return this.#registry.loaded(file);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#registry.close();
    await this.pool.close();
  }

  async #run(script: ScriptRef, calls: readonly TransformCall[], options: { timeoutMs?: number }): Promise<TransformOutcome[]> {
    const timeoutMs = Math.min(TRANSFORM_TIMEOUT.max, Math.max(TRANSFORM_TIMEOUT.min, options.timeoutMs ?? TRANSFORM_TIMEOUT.default));
    const jobs: { event: string; settings: string; timeoutMs: number }[] = [];
    const refused = new Map<number, TransformOutcome>();
    calls.forEach((call, i) => {
      try {
        jobs.push({ event: JSON.stringify(call.event), settings: this.#settings(call.settings), timeoutMs });
      } catch (error) {
        refused.set(i, { kind: 'failed', code: 'error', message: `the event or its settings are not JSON: ${(error as Error).message}`, version: script.version, ms: 0, logs: [] });
      }
    });
    const results = await this.pool.run(script, jobs);
    let next = 0;
    return calls.map((_, i) => refused.get(i) ?? outcomeOf(results[next++]!, script.version));
  }

  #settings(settings: Record<string, unknown> | undefined): string {
    if (settings === undefined || settings === null) return '{}';
    let text = this.#settingsText.get(settings);
    if (text === undefined) {
      text = JSON.stringify(settings);
      this.#settingsText.set(settings, text);
    }
    return text;
  }
}

export function createTransformer(options?: TransformerOptions): Transformer {
  return new TransformRuntime(options);
}

function outcomeOf(result: CallResult, version: string): TransformOutcome {
  (result as TransformOutcome).version = version;
  return result as TransformOutcome;
}

function closedOutcome(): TransformOutcome {
  return { kind: 'failed', code: 'error', message: 'the transform runtime is closed', version: '', ms: 0, logs: [] };
}
