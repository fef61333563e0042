import { DEFAULT_UI_PORT } from '../../../shared/limits.ts';

/**
 * A full-page explanation when the inspector cannot reach the core at all (no token, wrong token),
 * with what sluice serve prints for this page's own address (`origin`, the real port).
 */
export function ConnectionPage({ title, reason, origin = window.location.origin }: { title: string; reason: string; origin?: string }) {
  return (
    <main className="connection-page">
      <div className="connection-card" role="alert" aria-labelledby="connection-title">
        <h1 id="connection-title">{title}</h1>
        <p>{reason}</p>
        <pre className="code-block">
          <code>{servePrintout(origin)}</code>
        </pre>
      </div>
    </main>
  );
}

/** "$ npx sluice serve --ui-port N\n  …\n  Inspector  http://127.0.0.1:N/?token=…", the port left out when it is the default. */
export function servePrintout(origin: string): string {
  // A page opened from a file (origin "null") was not served by sluice serve: its default address.
  const served = /^https?:\/\//.test(origin) ? new URL(origin) : new URL(`http://127.0.0.1:${DEFAULT_UI_PORT}`);
  const flag = served.port !== '' && served.port !== String(DEFAULT_UI_PORT) ? ` --ui-port ${served.port}` : '';
  return `$ npx sluice serve${flag}\n  …\n  Inspector  ${served.origin}/?token=…`;
}
