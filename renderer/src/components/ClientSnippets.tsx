import { useState } from 'react';
import { clientSnippets } from '../lib/snippets.ts';
import { CopyButton } from './CopyButton.tsx';

/**
 * Ready-to-paste code for each client (analytics-node, analytics.js, the Sluice client, curl),
 * pointed at this Sluice with this write key: one tab per client, with a copy button. `context`
 * ends the controls' accessible names when a page shows several (" for web").
 */
export function ClientSnippets({ ingestUrl, writeKey, context = '' }: { ingestUrl: string; writeKey: string; context?: string }) {
  const [tab, setTab] = useState('analytics-node');
  const snippets = clientSnippets(ingestUrl, writeKey);
  const current = snippets.find((s) => s.id === tab) ?? snippets[0]!;
  return (
    <div className="client-snippets">
      <div className="snippet-tabs" role="group" aria-label={`Client snippets${context}`}>
        {snippets.map((s) => (
          <button key={s.id} type="button" className={`btn btn-small${s.id === current.id ? ' on' : ''}`} aria-pressed={s.id === current.id} onClick={() => setTab(s.id)}>
            {s.title}
          </button>
        ))}
      </div>
      <div className="snippet">
        <div className="snippet-head">
          <span>{current.title}</span>
          <CopyButton text={current.code} label={`Copy ${current.title} snippet${context}`} />
        </div>
        <pre aria-label={`${current.title} snippet${context}`}>
          <code>{current.code}</code>
        </pre>
      </div>
    </div>
  );
}
