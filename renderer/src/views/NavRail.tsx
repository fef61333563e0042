import { VIEWS } from './nav/registry.tsx';
import { navigate, useView, type ViewKey } from '../lib/route.ts';

/** The navigation rail: one button per view; a view not in the registry yet is shown disabled. */
const ITEMS: { key: ViewKey; label: string; icon: string }[] = [
  { key: 'stream', label: 'Stream', icon: '≋' },
  { key: 'deliveries', label: 'Deliveries', icon: '▽' },
  { key: 'issues', label: 'Issues', icon: '⊘' },
  { key: 'destinations', label: 'Destinations', icon: '⇥' },
  { key: 'sources', label: 'Sources', icon: '⇤' },
  { key: 'composer', label: 'Composer', icon: '✎' },
  { key: 'audiences', label: 'Audiences', icon: '◎' },
  { key: 'plans', label: 'Tracking plans', icon: '☑' },
  { key: 'deletions', label: 'Deletions', icon: '⌫' },
  { key: 'receiver', label: 'Receiver', icon: '⇲' },
  { key: 'settings', label: 'Settings', icon: '⚙' },
];

export function NavRail({ transport }: { transport: string }) {
  const view = useView();
  return (
    <nav className="nav-rail" aria-label="Views">
      <div className="brand" title={`Sluice (${transport})`}>
        <span aria-hidden="true">◤</span>
        <span className="brand-name">Sluice</span>
      </div>
      <ul>
        {ITEMS.map((item) => {
          const ready = item.key === 'stream' || VIEWS[item.key] !== undefined;
          return (
          <li key={item.key}>
            <button
              type="button"
              className={`nav-item${item.key === view ? ' active' : ''}`}
              aria-current={item.key === view ? 'page' : undefined}
              disabled={!ready}
              title={ready ? item.label : `${item.label} — not in this build yet`}
              onClick={() => navigate(item.key)}
            >
              <span className="nav-icon" aria-hidden="true">
                {item.icon}
              </span>
              <span className="nav-label">{item.label}</span>
            </button>
          </li>
          );
        })}
      </ul>
    </nav>
  );
}
