import './lib/zod-jitless.ts'; // before any module that builds a zod schema
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createInspector } from './store/inspector.ts';
import { InspectorContext } from './store/react.ts';
import { pickTransport } from './transport/pick.ts';
import { App } from './views/App.tsx';
import { ConnectionPage } from './views/ConnectionPage.tsx';
import './styles.css';
import { startTheme } from './views/settings/theme.ts';

startTheme(); // before the first render: no flash of the other theme

const root = createRoot(document.getElementById('root')!);
const choice = pickTransport(window as unknown as Parameters<typeof pickTransport>[0]);

if (!choice.ok) {
  root.render(<ConnectionPage title="This inspector link has no access token" reason={choice.reason} />);
} else {
  const inspector = createInspector(choice.api);
  inspector.start();
  setInterval(() => inspector.tick(), 1000);
  // For end-to-end tests and debugging: which transport, and the store (read-only use).
  (window as unknown as { __sluice?: unknown }).__sluice = { transport: choice.api.kind, store: inspector.store };
  root.render(
    <StrictMode>
      <InspectorContext.Provider value={inspector}>
        <App transport={choice.api.kind} />
      </InspectorContext.Provider>
    </StrictMode>,
  );
}
