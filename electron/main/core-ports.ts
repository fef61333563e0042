// The desktop app's ports: the same defaults as `sluice serve` (8787 ingestion, 8789 built-in
// receiver), so the URL a user pasted into their client keeps working from one start to the next.
// When a default one is taken (by another program, or a Sluice using another data folder: two on one
// folder are refused by its lock), the app still starts, moving that port to a free one, and says so:
// an app that refuses to open is worse than one on another port.
// Ports the user asked for (--ingest-port, --receiver-port) are not moved: taken, they are an error.
import { createCore, type Core, type CoreOptions, type PortInUseError } from '../core/index.ts';

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
  let current = options;
  const reasons: string[] = [];
  // Each try moves the one port found taken (when nobody chose it), then tries again: both defaults
  // may be taken, and a free one is kept.
  for (;;) {
    try {
      return { core: await create(current), movedBecause: reasons.length > 0 ? reasons.join('; ') : null };
    } catch (error) {
      const { code, port } = error as Partial<PortInUseError>;
      if (code !== 'EADDRINUSE' || port === undefined || asked[port]) throw error;
      const key = port === 'ingest' ? 'ingestPort' : 'receiverPort';
      if (current[key] === 0) throw error; // already on a free port: not ours to fix
      current = { ...current, [key]: 0 };
      reasons.push((error as Error).message);
    }
  }
}
