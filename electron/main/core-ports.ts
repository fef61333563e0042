// The desktop app's ports: the same defaults as `sluice serve` (8787 ingestion, 8789 built-in
// receiver), so the URL a user pasted into their client keeps working from one start to the next.
// When a default one is taken (another Sluice, or `sluice serve` already running), the app still
// starts, on free ports, and says so: an app that refuses to open is worse than one on another port.
// Ports the user asked for (--ingest-port, --receiver-port) are not moved: taken, they are an error.
import { createCore, type Core, type CoreOptions } from '../core/index.ts';

export interface DesktopCore {
  core: Core;
  /** Why the default ports were not used, or null when they were. */
  movedBecause: string | null;
}

/** Which ports the user chose (a flag): those are never moved — taken, they are an error. */
export interface PortsAsked {
  ingest: boolean;
  receiver: boolean;
}

export async function createDesktopCore(
  options: CoreOptions,
  asked: PortsAsked = { ingest: false, receiver: false },
  create: (options: CoreOptions) => Promise<Core> = createCore,
): Promise<DesktopCore> {
  try {
    return { core: await create(options), movedBecause: null };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || (asked.ingest && asked.receiver)) throw error;
    // The ports nobody chose move to free ones; a chosen one that is taken fails this try too.
    const core = await create({
      ...options,
      ...(asked.ingest ? {} : { ingestPort: 0 }),
      ...(asked.receiver ? {} : { receiverPort: 0 }),
    });
    return { core, movedBecause: (error as Error).message };
  }
}
