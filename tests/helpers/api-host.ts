// Each test's own core and the UI server that serves its HTTP API, closed after the test: the UI server
// first (it answers for the core), then the core with its data folder.
import { afterEach } from 'vitest';
import type { UiServer } from '../../electron/host/ui-server.ts';
import type { TestCore } from './core.ts';

/** Registers the closing; wrap each core and UI server a test starts: `core = closing.core(await startCore())`. */
export function closedAfterEach(): { core<T extends TestCore>(core: T): T; ui(ui: UiServer): UiServer } {
  const cores: TestCore[] = [];
  const uis: UiServer[] = [];
  afterEach(async () => {
    for (const ui of uis.splice(0)) await ui.close();
    for (const core of cores.splice(0)) await core.dispose();
  });
  return {
    core: (core) => (cores.push(core), core),
    ui: (ui) => (uis.push(ui), ui),
  };
}
