import { Client, ClientError, type ClientState } from '../../client/index.ts';
import type { EventBus } from '../bus/event-bus.ts';
import { OperationError } from '../operation-error.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';

export const COMPOSER_TYPES = ['identify', 'track', 'page', 'screen', 'group', 'alias'] as const;
export type ComposerType = (typeof COMPOSER_TYPES)[number];

/**
 * The inspector's composer: messages built in the UI go through Sluice's own client library into
 * Sluice's own endpoint, like any app's would, so batching is real and visible. One client per
 * source, made on first use; its queue state is announced on the bus as it changes.
 */
export class Composer {
  readonly #clients = new Map<number, Client>();
  readonly #endpoint: string;
  readonly #sources: SourcesRepo;
  readonly #bus: EventBus;
  readonly #options: { flushAt?: number; flushAfter?: number };

  constructor(endpoint: string, sources: SourcesRepo, bus: EventBus, options: { flushAt?: number; flushAfter?: number } = {}) {
    this.#endpoint = endpoint;
    this.#sources = sources;
    this.#bus = bus;
    this.#options = options;
  }

  /** Queues one message; throws OperationError with the client's code when it is invalid. */
  send(sourceId: number, type: ComposerType, fields: Record<string, unknown>): { queued: boolean; state: ClientState } {
    const client = this.#client(sourceId);
    try {
      // The client validates the fields (userId or anonymousId, event, ...) and throws when they are wrong.
      const queued = (client[type] as unknown as (params: Record<string, unknown>) => boolean).call(client, fields);
      return { queued, state: client.state };
    } catch (error) {
      if (error instanceof ClientError) throw new OperationError(error.code, error.message);
      throw error;
    }
  }

  async flush(sourceId: number): Promise<ClientState> {
    const client = this.#client(sourceId);
    await client.flush();
    return client.state;
  }

  state(sourceId: number): ClientState {
    return this.#client(sourceId).state;
  }

  /** Sends what is queued, then stops. */
  /** Sends what every source's client has queued (before a reset, which then forgets it too). */
  async flushAll(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((client) => client.flush()));
  }

  async close(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((client) => client.close({ timeoutMs: 5_000 })));
  }

  /**
   * Sends what the source's client queued and drops the client (its write key is about to change); the
   * next send makes a new one. A send while the old one closes makes a client with the old key again:
   * that one is closed too (a few times at most), so the caller's change follows with none left.
   */
  async retire(sourceId: number): Promise<void> {
    for (let round = 0; round < 3; round++) {
      const client = this.#clients.get(sourceId);
      if (!client) return;
      this.#clients.delete(sourceId);
      await client.close({ timeoutMs: 5_000 });
    }
  }

  #client(sourceId: number): Client {
    let client = this.#clients.get(sourceId);
    if (client) return client;
    const source = this.#sources.byId(sourceId);
    if (!source) throw new OperationError('not_found', `there is no source ${sourceId}`);
    client = new Client(source.writeKey, {
      endpoint: this.#endpoint,
      ...this.#options,
      // Outcomes show in the queue state (lastResult) and in the stream; nothing to log here.
      onError: () => {},
    });
    client.subscribe((state) => this.#bus.emit('client.state', { sourceId, state }));
    this.#clients.set(sourceId, client);
    return client;
  }
}
