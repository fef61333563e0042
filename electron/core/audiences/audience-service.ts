// Audiences on the main thread: validation, the sync scheduler (demo and realistic timing on the
// injected clock), previews, and announcing what changed. Every write — and every evaluation, which
// folds new messages into the profiles first — runs in the store's writer (audience-writer.ts), so
// this thread never blocks on SQLite for more than a read. Syncs, saves and deletes run one at a time.
import type { DatabaseSync } from 'node:sqlite';
import { propertyName } from '../../../shared/audience-property.ts';
import {
  audienceInputSchema,
  audiencePreviewSchema,
  type AudienceConfig,
  type AudienceInput,
  type AudiencePreviewView,
  type AudienceView,
} from '../../../shared/audiences.ts';
import { describeIssues } from '../../../shared/settings.ts';
import type { EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import { issuesOf, OperationError } from '../operation-error.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';
import type { DestinationsRepo } from '../store/destinations-repo.ts';
import type { AudienceOp, AudienceOutcome, SyncOutcome } from '../writer/audience-ops.ts';
import { FOLD_CHUNK } from './audience-writer.ts';
import { AudiencesRepo, type Audience } from '../store/audiences-repo.ts';
import { firstSyncAt, rescheduled, syncAfter } from './sync-timing.ts';

export interface AudienceServiceOptions {
  db: DatabaseSync;
  writer: StoreWriter;
  sources: SourcesRepo;
  /** Where syncs go: the destinations an audience chose, or those connected to its source. */
  destinations: DestinationsRepo;
  bus: EventBus;
  clock: Clock;
  random?: () => number;
  /** New deliveries were stored (the delivery engine should look). */
  onDeliveries: () => void;
}

/** Longest real-time sleep between looks at the schedule; with an injected clock, tests call tick(). */
const MAX_SLEEP_MS = 30_000;
/** After new messages, profiles are folded this much later (one fold for a burst). */
const FOLD_DEBOUNCE_MS = 1_000;
/** A sync that failed is tried again after this long (real time). */
const RETRY_FAILED_MS = 30_000;

export class AudienceService {
  readonly repo: AudiencesRepo;
  readonly #o: AudienceServiceOptions;
  readonly #random: () => number;
  /** Syncs, saves and deletes, one at a time. */
  #queue: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #foldTimer: NodeJS.Timeout | undefined;
  #folding: Promise<void> | undefined;
  readonly #lastError = new Map<number, string>();
  readonly #failedUntil = new Map<number, number>();
  #closed = false;
  #audiences = false;
  #audiencesAskedAt = -Infinity;
  readonly #off: () => void;

  constructor(options: AudienceServiceOptions) {
    this.#o = options;
    this.#random = options.random ?? Math.random;
    this.repo = new AudiencesRepo(options.db);
    // Keep the profiles folded as messages arrive, so a sync or preview only folds the last few.
    this.#off = options.bus.on('messages.stored', () => {
      if (this.#foldTimer === undefined && !this.#closed && this.#anyAudience()) {
        this.#foldTimer = setTimeout(() => {
          this.#foldTimer = undefined;
          this.#catchUp().catch(() => {}); // a sync or preview folds anyway
        }, FOLD_DEBOUNCE_MS).unref();
      }
    });
  }

  /**
   * Whether any audience exists, asked of the store at most once per FOLD_DEBOUNCE_MS: messages.stored
   * comes with every group commit, on the thread that answers ingestion, and most stores have none. An
   * answer up to that old only delays the first background fold of a new audience (a sync or a
   * preview folds anyway, and saving one sets the answer at once), or starts one with nothing to fold.
   */
  #anyAudience(): boolean {
    const now = performance.now();
    if (now - this.#audiencesAskedAt >= FOLD_DEBOUNCE_MS) {
      this.#audiences = this.repo.count() > 0;
      this.#audiencesAskedAt = now;
    }
    return this.#audiences;
  }

  /** Starts the scheduler (call once the writer is up). */
  start(): void {
    this.#arm();
  }

  list(): AudienceView[] {
    return this.repo.list().map((a) => this.#view(a));
  }

  view(id: number): AudienceView {
    const audience = this.repo.get(id);
    if (!audience) throw new OperationError('not_found', `there is no audience ${id}; it may have been deleted`);
    return this.#view(audience);
  }

  /** Creates or edits an audience or computed trait (validated; `id` edits). */
  save(input: unknown): Promise<AudienceView> {
    const parsed = audienceInputSchema.safeParse(input);
    if (!parsed.success) return Promise.reject(new OperationError('invalid_audience', describeIssues(parsed.error).join('; '), issuesOf(parsed.error)));
    return this.#enqueue(() => this.#save(parsed.data));
  }

  /** Audiences declared in the --config file: created, or updated by name. */
  async applyConfig(audiences: AudienceConfig[]): Promise<void> {
    for (const [i, config] of audiences.entries()) {
      const source = this.#o.sources.byName(config.source);
      if (!source) throw new OperationError('invalid_audience', `audiences[${i}].source: unknown source "${config.source}"`);
      const existing = this.repo.list().find((a) => a.name === config.name);
      const { source: _, destinations: names, ...definition } = config;
      const destinationIds = names?.map((name, j) => {
        const destination = this.#o.destinations.byName(name);
        if (!destination) throw new OperationError('invalid_audience', `audiences[${i}].destinations[${j}]: unknown destination "${name}"`);
        return destination.id;
      });
      try {
        await this.save({ ...definition, sourceId: source.id, destinationIds: destinationIds ?? null, ...(existing ? { id: existing.id } : {}) });
      } catch (error) {
        if (error instanceof OperationError) throw new OperationError(error.code, `audiences[${i}].${error.message}`);
        throw error;
      }
    }
  }

  delete(id: number): Promise<void> {
    return this.#enqueue(async () => {
      if (!this.repo.get(id)) throw new OperationError('not_found', `there is no audience ${id}; it may have been deleted already`);
      await this.#write({ op: 'audience.delete', audienceId: id });
      this.#lastError.delete(id);
      this.#o.bus.emit('audiences.changed', { audienceId: id, reason: 'deleted' });
      this.#arm();
    });
  }

  /** Members count and a sample for a definition, before it is saved. */
  preview(input: unknown): Promise<AudiencePreviewView> {
    const parsed = audiencePreviewSchema.safeParse(input);
    if (!parsed.success) return Promise.reject(new OperationError('invalid_audience', describeIssues(parsed.error).join('; ')));
    const request = parsed.data;
    if (!this.#sourceExists(request.sourceId)) {
      return Promise.reject(new OperationError('invalid_audience', `sourceId: there is no source ${request.sourceId}`));
    }
    return this.#enqueue(async () => {
      await this.#catchUp();
      const outcome = await this.#write({
        op: 'audience.preview',
        kind: request.kind,
        sourceId: request.sourceId,
        definition: (request.kind === 'audience' ? request.rule : request.computation)!,
        audienceId: request.audienceId ?? null,
        destinationIds: this.#syncTargets(request.audienceId),
        sampleSize: request.sampleSize,
        now: this.#o.clock.now(),
      });
      if (outcome.op !== 'audience.preview') throw unexpected(outcome);
      return outcome.preview;
    });
  }

  /** Syncs now, whatever the schedule says; resolves with the sync (its joined and left users sent). */
  syncNow(id: number): Promise<SyncOutcome> {
    if (!this.repo.get(id)) return Promise.reject(new OperationError('not_found', `there is no audience ${id}; it may have been deleted`));
    return this.#enqueue(async () => {
      const sync = await this.#sync(id, 'manual');
      if (!sync) throw new OperationError('not_found', `audience ${id} was deleted before it could sync`);
      return sync;
    });
  }

  /**
   * Runs every sync that is due by the clock. The scheduler calls it; so do tests after moving an
   * injected clock. Resolves with the syncs that ran.
   */
  tick(): Promise<SyncOutcome[]> {
    return this.#enqueue(async () => {
      const ran: SyncOutcome[] = [];
      const now = this.#o.clock.now();
      for (const id of this.repo.dueIds(now)) {
        if ((this.#failedUntil.get(id) ?? 0) > Date.now()) continue;
        const sync = await this.#sync(id, 'scheduled').catch(() => null);
        if (sync) ran.push(sync);
      }
      return ran;
    }).finally(() => this.#arm());
  }

  /** Resolves when everything queued so far has run. */
  async idle(): Promise<void> {
    while (true) {
      const queue = this.#queue;
      await queue.catch(() => {});
      if (queue === this.#queue) return;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#off();
    clearTimeout(this.#timer);
    clearTimeout(this.#foldTimer);
    await this.idle();
    await this.#folding?.catch(() => {});
  }

  async #save(input: AudienceInput): Promise<AudienceView> {
    if (!this.#sourceExists(input.sourceId)) throw new OperationError('invalid_audience', `sourceId: there is no source ${input.sourceId}`);
    const existing = input.id === undefined ? undefined : this.repo.get(input.id);
    if (input.id !== undefined && !existing) throw new OperationError('not_found', `there is no audience ${input.id}; it may have been deleted`);
    const property = propertyName(input.name);
    const others = this.repo.list().filter((a) => a.id !== input.id);
    const sameName = others.find((a) => a.name === input.name);
    if (sameName) throw new OperationError('invalid_audience', `name: an audience named "${input.name}" exists already; choose another name`);
    const sameProperty = others.find((a) => a.sourceId === input.sourceId && a.property === property);
    if (sameProperty) {
      throw new OperationError(
        'invalid_audience',
        `name: "${sameProperty.name}" already sends the trait ${property} for this source; choose a name that gives another trait`,
      );
    }
    const missing = (input.destinationIds ?? []).flatMap((id, i) => (this.#o.destinations.byId(id) ? [] : [{ id, i }]));
    if (missing.length > 0) {
      const issues = missing.map(({ id, i }) => ({
        path: ['destinationIds', i],
        message: `there is no destination ${id}; it may have been deleted — choose from the destinations listed`,
      }));
      throw new OperationError('invalid_audience', issues.map((issue) => `destinationIds[${issue.path[1]}]: ${issue.message}`).join('; '), issues);
    }
    const now = this.#o.clock.now();
    const timing = { mode: input.mode, intervalSeconds: input.intervalSeconds };
    // Another property, source or kind makes it a new audience for the destinations: start afresh.
    const fresh = !existing || existing.property !== property || existing.sourceId !== input.sourceId || existing.kind !== input.kind;
    const nextSyncAt = fresh ? firstSyncAt(timing, now, this.#random) : rescheduled(existing, timing, now, this.#random);
    const outcome = await this.#write({
      op: 'audience.save',
      audience: {
        ...(input.id !== undefined ? { id: input.id } : {}),
        name: input.name,
        kind: input.kind,
        sourceId: input.sourceId,
        property,
        definition: (input.kind === 'audience' ? input.rule : input.computation)!,
        mode: input.mode,
        intervalSeconds: input.intervalSeconds,
        destinationIds: input.destinationIds,
      },
      nextSyncAt,
      // A destination it did not send to before learns every member at the next sync (AudienceWriter#sync).
      resetMembers: existing !== undefined && fresh,
      now,
    });
    if (outcome.op !== 'audience.save') throw unexpected(outcome);
    this.#audiences = true; // the next messages fold for it, whenever the store was last asked
    this.#o.bus.emit('audiences.changed', { audienceId: outcome.audienceId, reason: 'saved' });
    this.#arm();
    return this.view(outcome.audienceId);
  }

  async #sync(id: number, reason: 'scheduled' | 'manual'): Promise<SyncOutcome | null> {
    const audience = this.repo.get(id);
    if (!audience) return null;
    try {
      await this.#catchUp();
      const now = this.#o.clock.now();
      const outcome = await this.#write({
        op: 'audience.sync',
        audienceId: id,
        reason,
        now,
        nextSyncAt: syncAfter(audience, now, this.#random),
        destinationIds: this.#syncTargets(id),
      });
      if (outcome.op !== 'audience.sync') throw unexpected(outcome);
      const sync = outcome.sync;
      this.#lastError.delete(id);
      this.#failedUntil.delete(id);
      if (sync && sync.messageIds.length > 0) {
        this.#o.bus.emit('messages.stored', [
          {
            requestId: 0,
            sourceId: sync.sourceId,
            receivedAt: now,
            ids: Float64Array.from(sync.messageIds),
            statuses: new Uint8Array(sync.messageIds.length),
            rejected: [],
            deliveries: sync.deliveries,
          },
        ]);
      }
      if (sync && sync.deliveries > 0) this.#o.onDeliveries();
      this.#o.bus.emit('audiences.changed', { audienceId: id, reason: 'synced' });
      return sync;
    } catch (error) {
      const message = (error as Error).message;
      this.#lastError.set(id, `The last sync failed: ${message}. Sluice tries again in ${RETRY_FAILED_MS / 1000} s.`);
      this.#failedUntil.set(id, Date.now() + RETRY_FAILED_MS);
      this.#o.bus.emit('audiences.changed', { audienceId: id, reason: 'failed' });
      throw error;
    }
  }

  /** Folds every stored message into the profiles, a chunk per write, so ingestion commits in between. */
  #catchUp(): Promise<void> {
    this.#folding ??= (async () => {
      try {
        while (!this.#closed) {
          const outcome = await this.#write({ op: 'audience.fold', limit: FOLD_CHUNK });
          if (outcome.op !== 'audience.fold') throw unexpected(outcome);
          if (outcome.through >= outcome.latest) return;
        }
      } finally {
        this.#folding = undefined;
      }
    })();
    return this.#folding;
  }

  async #write(op: AudienceOp): Promise<Exclude<AudienceOutcome, { op: 'error' }>> {
    const outcome = (await this.#o.writer.write(op)).audience;
    if (!outcome) throw new Error('the store writer did not answer the audience operation');
    if (outcome.op === 'error') throw new OperationError('audience_failed', outcome.message);
    return outcome;
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new OperationError('shutting_down', 'Sluice is shutting down'));
    const run = this.#queue.catch(() => {}).then(task);
    this.#queue = run;
    return run;
  }

  /** Sleeps until the next sync is due (at most MAX_SLEEP_MS, so a moved clock is noticed). */
  #arm(): void {
    clearTimeout(this.#timer);
    if (this.#closed) return;
    const now = this.#o.clock.now();
    const due = this.repo.dueIds(now);
    // Due audiences whose last sync failed wait for their retry; the others run at once.
    const waits = due.map((id) => (this.#failedUntil.get(id) ?? 0) - Date.now());
    let delay = MAX_SLEEP_MS;
    if (waits.some((wait) => wait <= 0)) delay = 0;
    else {
      const next = this.repo.nextDueAfter(now);
      if (next !== null) delay = Math.min(delay, next - now);
      for (const wait of waits) delay = Math.min(delay, wait);
    }
    if (due.length === 0 && this.repo.nextDueAfter(now) === null) return;
    this.#timer = setTimeout(() => void this.tick(), Math.max(0, delay)).unref();
  }

  /**
   * Where a sync of audience `id` sends now, as its op gives it: the enabled destinations it chose, or null
   * when it chose none (its source's: the writer's routes, the enabled destinations connected to it).
   */
  #syncTargets(id: number | undefined): number[] | null {
    const audience = id === undefined ? undefined : this.repo.get(id);
    if (!audience || audience.destinationIds === null) return null;
    return audience.destinationIds.filter((destinationId) => this.#o.destinations.byId(destinationId)?.enabled === true);
  }

  #sourceExists(sourceId: number): boolean {
    return this.#o.sources.list().some((s) => s.id === sourceId);
  }

  #view(a: Audience): AudienceView {
    return {
      id: a.id,
      name: a.name,
      kind: a.kind,
      sourceId: a.sourceId,
      property: a.property,
      rule: a.kind === 'audience' ? (a.definition as AudienceView['rule']) : null,
      computation: a.kind === 'computed_trait' ? (a.definition as AudienceView['computation']) : null,
      mode: a.mode,
      intervalSeconds: a.intervalSeconds,
      // A chosen destination deleted since is left out: it receives nothing, and the editor cannot show it.
      destinationIds: a.destinationIds === null ? null : a.destinationIds.filter((id) => this.#o.destinations.byId(id) !== undefined),
      createdAt: a.createdAt,
      updatedAt: a.updatedAt,
      lastSyncAt: a.lastSyncAt,
      nextSyncAt: a.nextSyncAt,
      members: a.members,
      lastError: this.#lastError.get(a.id) ?? null,
    };
  }
}

function unexpected(outcome: AudienceOutcome): Error {
  return new Error(`the store writer answered "${outcome.op}" to an audience operation`);
}
