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

/** `portsAsked`: the user chose a port (a flag), so a taken one is an error rather than moved. */
export async function createDesktopCore(
  options: CoreOptions,
  portsAsked = false,
  create: (options: CoreOptions) => Promise<Core> = createCore,
): Promise<DesktopCore> {
  try {
    return { core: await create(options), movedBecause: null };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || portsAsked) throw error;
    const core = await create({ ...options, ingestPort: 0, receiverPort: 0 });
    return { core, movedBecause: (error as Error).message };
  }
}
