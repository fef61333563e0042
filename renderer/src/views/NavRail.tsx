/** The navigation rail. This build has the stream; the other views arrive with the next slices. */
const ITEMS: { key: string; label: string; icon: string; ready: boolean }[] = [
  { key: 'stream', label: 'Stream', icon: '≋', ready: true },
  { key: 'destinations', label: 'Destinations', icon: '⇥', ready: false },
  { key: 'sources', label: 'Sources', icon: '⇤', ready: false },
  { key: 'composer', label: 'Composer', icon: '✎', ready: false },
  { key: 'audiences', label: 'Audiences', icon: '◎', ready: false },
  { key: 'deletions', label: 'Deletions', icon: '⌫', ready: false },
  { key: 'receiver', label: 'Receiver', icon: '⇲', ready: false },
  { key: 'settings', label: 'Settings', icon: '⚙', ready: false },
];

export function NavRail({ transport }: { transport: string }) {
  return (
    <nav className="nav-rail" aria-label="Views">
      <div className="brand" title={`Sluice (${transport})`}>
        <span aria-hidden="true">◤</span>
        <span className="brand-name">Sluice</span>
      </div>
      <ul>
        {ITEMS.map((item) => (
          <li key={item.key}>
            <button
              type="button"
              className={`nav-item${item.key === 'stream' ? ' active' : ''}`}
              aria-current={item.key === 'stream' ? 'page' : undefined}
              disabled={!item.ready}
              title={item.ready ? item.label : `${item.label} — not in this build yet`}
            >
              <span className="nav-icon" aria-hidden="true">
                {item.icon}
              </span>
              <span className="nav-label">{item.label}</span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
