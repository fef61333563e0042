import { useState } from 'react';
import { CopyButton } from '../../components/CopyButton.tsx';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { HoldSwitch } from './HoldSwitch.tsx';
import { StorageSection } from './StorageSection.tsx';
import { chooseTheme, pageThemeHost, readTheme, THEMES, type ThemeChoice } from './theme.ts';
import './settings.css';

const THEME_NAMES: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };
const TRANSPORT_NAMES = { ipc: 'Electron IPC (the desktop window)', websocket: 'WebSocket to the headless host (sluice serve)' } as const;

/** What a user of a local relay wants to see and change: where things are, the theme, holding deliveries, and the store (figures, retention, clear). */
export function SettingsView() {
  const inspector = useInspector();
  const info = useInspectorState((s) => s.info);
  const [theme, setTheme] = useState<ThemeChoice>(() => readTheme(pageThemeHost()));

  const pick = (choice: ThemeChoice) => {
    chooseTheme(pageThemeHost(), choice);
    setTheme(choice);
  };

  return (
    <section className="tool-view settings-view" aria-labelledby="settings-title">
      <header className="tool-view-head">
        <h2 id="settings-title">Settings</h2>
        <p className="hint">This Sluice and this window. Sources and webhook destinations have their own views.</p>
      </header>

      <section className="settings-card" aria-labelledby="settings-delivery">
        <h3 id="settings-delivery">Delivery</h3>
        <HoldSwitch />
      </section>

      <StorageSection />

      <section className="settings-card" aria-labelledby="settings-appearance">
        <h3 id="settings-appearance">Appearance</h3>
        <div className="settings-row">
          <span className="settings-label" id="theme-label">
            Theme
          </span>
          <div className="segmented" role="radiogroup" aria-labelledby="theme-label">
            {THEMES.map((choice) => (
              <button
                key={choice}
                type="button"
                role="radio"
                aria-checked={theme === choice}
                className={`btn btn-small${theme === choice ? ' on' : ''}`}
                onClick={() => pick(choice)}
              >
                {THEME_NAMES[choice]}
              </button>
            ))}
          </div>
          <span className="hint">{theme === 'system' ? 'Follows your system’s light or dark setting.' : 'Kept for this inspector in this browser or window.'}</span>
        </div>
      </section>

      <section className="settings-card" aria-labelledby="settings-about">
        <h3 id="settings-about">This Sluice</h3>
        <dl className="settings-facts">
          <Fact label="Version" value={info ? info.version : null} />
          <Fact label="Ingest URL" value={info?.ingestUrl ?? null} copy="Copy ingest URL" hint="Point analytics clients here, with a source's write key." />
          <Fact label="Built-in receiver" value={info?.receiverUrl ?? null} copy="Copy receiver URL" hint="Webhooks at /hooks/<name> land in the Receiver view." />
          <Fact label="Data directory" value={info?.dataDir ?? null} copy="Copy data directory" hint="The SQLite store; start Sluice with --data-dir to use another." />
          <Fact label="UI transport" value={TRANSPORT_NAMES[inspector.transport]} />
        </dl>
      </section>
    </section>
  );
}

function Fact({ label, value, copy, hint }: { label: string; value: string | null; copy?: string; hint?: string }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd>
        <code aria-label={label}>{value ?? '…'}</code>
        {copy && value ? <CopyButton text={value} label={copy} /> : null}
        {hint ? <span className="hint">{hint}</span> : null}
      </dd>
    </div>
  );
}
