import path from 'node:path';
import { DEFAULT_HOST, DEFAULT_INGEST_PORT } from '../../shared/limits.ts';
import type { ConfigFile } from '../../shared/settings.ts';
import { EventBus } from './bus/event-bus.ts';
import { systemClock, type Clock } from './clock.ts';
import { IngestPipeline } from './ingest/ingest-pipeline.ts';
import { IngestServer } from './ingest/ingest-server.ts';
import { Checkpointer } from './store/checkpointer.ts';
import { DATABASE_FILE, openDatabase } from './store/database.ts';
import { DestinationsRepo } from './store/destinations-repo.ts';
import { MessagesRepo } from './store/messages-repo.ts';
import { SourcesRepo } from './store/sources-repo.ts';

export interface CoreOptions {
  dataDir: string;
  /** Sources and destinations to create or update on start. */
  config?: ConfigFile;
  host?: string;
  /** 0 picks a free port. */
  ingestPort?: number;
  clock?: Clock;
}

export interface Core {
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly sources: SourcesRepo;
  readonly destinations: DestinationsRepo;
  readonly messages: MessagesRepo;
  readonly ingestUrl: string;
  readonly dataDir: string;
  /** Stops listening, lets accepted requests finish, commits, checkpoints, closes the store. */
  close(): Promise<void>;
}

/** Builds the whole relay: store, ingestion endpoint, event bus. Hosts (CLI, Electron) wrap this. */
export async function createCore(options: CoreOptions): Promise<Core> {
  const clock = options.clock ?? systemClock;
  const db = openDatabase(options.dataDir);
  const bus = new EventBus();
  const sources = new SourcesRepo(db);
  const destinations = new DestinationsRepo(db, sources);
  const messages = new MessagesRepo(db);

  const now = clock.now();
  if (options.config) {
    for (const source of options.config.sources) sources.upsert(source, now);
    for (const destination of options.config.destinations) destinations.upsert(destination, now);
  }
  sources.ensureDefault(now);

  const checkpointer = new Checkpointer(path.join(options.dataDir, DATABASE_FILE));
  const pipeline = new IngestPipeline(path.join(options.dataDir, DATABASE_FILE), (committed) =>
    bus.emit('messages.stored', committed),
  );
  pipeline.setWriteKeys(sources.list().map((s) => [s.writeKey, s.id]));
  const ingest = new IngestServer({
    sources,
    pipeline,
    clock,
    host: options.host ?? DEFAULT_HOST,
    port: options.ingestPort ?? DEFAULT_INGEST_PORT,
  });
  try {
    await ingest.listen();
  } catch (error) {
    await pipeline.close();
    await checkpointer.close();
    db.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new Error(
        `port ${options.ingestPort ?? DEFAULT_INGEST_PORT} is in use; is another Sluice running? Pick another with --ingest-port (0 = any free port)`,
      );
    }
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    bus,
    clock,
    sources,
    destinations,
    messages,
    dataDir: options.dataDir,
    ingestUrl: ingest.url,
    close() {
      closing ??= (async () => {
        await ingest.close();
        await pipeline.close();
        await checkpointer.close();
        db.close();
      })();
      return closing;
    },
  };
}
