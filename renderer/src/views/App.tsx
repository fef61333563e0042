import { useState } from 'react';
import { countdown } from '../store/outcome.ts';
import { useInspectorState } from '../store/react.ts';
import { useSecondClock } from '../lib/clock.ts';
import { ConnectionPage } from './ConnectionPage.tsx';
import { NavRail } from './NavRail.tsx';
import { TopBar } from './TopBar.tsx';
import { VIEWS } from './nav/registry.tsx';
import { HoldBanner } from './settings/HoldBanner.tsx';
import { StoreDamageBanner } from './settings/StoreDamageBanner.tsx';
import { FaultsBanner } from './faults/FaultsBanner.tsx';
import { useView } from '../lib/route.ts';
import { StreamView } from './stream/StreamView.tsx';

/**
 * The app's shell: the navigation rail, the top bar, the banners (hold, store damage, injected faults, connection, problem), and
 * the view the hash names — the stream (views/stream/) or one from the registry (views/<key>/).
 */
export function App({ transport }: { transport: string }) {
  const connection = useInspectorState((s) => s.connection);
  const problem = useInspectorState((s) => s.problem);
  const [sourceId, setSourceId] = useState<number | null>(null);
  const view = useView();
  const View = view === 'stream' ? undefined : VIEWS[view];

  if (connection.kind === 'unauthorized') return <ConnectionPage title="This inspector link is not valid" reason={connection.reason} />;

  return (
    <div className="app">
      <NavRail transport={transport} />
      <div className="main">
        <TopBar sourceId={sourceId} onSourceChange={setSourceId} />
        <div className="status-slot">
          <HoldBanner />
          <StoreDamageBanner />
          <FaultsBanner />
        </div>
        <ConnectionBanner />
        {problem ? (
          <p className="banner banner-bad" role="alert">
            {problem}
          </p>
        ) : null}
        {View ? (
          <div className="view-pane">
            <View />
          </div>
        ) : (
          <StreamView sourceId={sourceId} />
        )}
      </div>
    </div>
  );
}

function ConnectionBanner() {
  const connection = useInspectorState((s) => s.connection);
  const now = useSecondClock();
  if (connection.kind === 'reconnecting') {
    return (
      <p className="banner banner-warn" role="status">
        Connection to Sluice lost ({connection.reason}). Reconnecting {countdown(connection.retryAt - now)}… Sluice keeps relaying meanwhile; the
        list reloads when the connection is back.
      </p>
    );
  }
  if (connection.kind === 'connecting') {
    return (
      <p className="banner banner-info" role="status">
        Connecting to Sluice…
      </p>
    );
  }
  return null;
}
