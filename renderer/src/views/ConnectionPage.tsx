/** A full-page explanation when the inspector cannot reach the core at all (no token, wrong token). */
export function ConnectionPage({ title, reason }: { title: string; reason: string }) {
  return (
    <main className="connection-page">
      <div className="connection-card" role="alert" aria-labelledby="connection-title">
        <h1 id="connection-title">{title}</h1>
        <p>{reason}</p>
        <pre className="code-block">
          <code>{'$ npx sluice serve\n  …\n  Inspector  http://127.0.0.1:8788/?token=…'}</code>
        </pre>
      </div>
    </main>
  );
}
