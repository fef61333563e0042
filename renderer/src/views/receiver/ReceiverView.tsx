import { useMemo, useState } from 'react';
import type { DestinationView } from '../../../../shared/contract.ts';
import type { InboxEntry } from '../../../../shared/receiver.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { HeaderValue } from '../../components/HeaderValue.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import { absoluteTime, clockTime, formatCount, relativeTime } from '../../lib/format.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { useInspectorState } from '../../store/react.ts';
import { bodySummary } from './body-summary.ts';
import { HookBehaviour } from './HookBehaviour.tsx';
import { hookOf, RECEIVER_URL_PREFIX } from '../../../../shared/receiver-hooks.ts';
import { INBOX_SHOWN, useInbox } from './use-inbox.ts';
import { explainVerdict, signsRequests } from './verdict.ts';
import { ErrorText } from '../../components/ErrorText.tsx';
import { Field } from '../../components/Field.tsx';

/**
 * The built-in receiver: every request it got (newest first) with its signature verdict, headers and
 * body, and a behaviour switch per hook to demo failures, retries and timeouts.
 */
export function ReceiverView() {
  const info = useInspectorState((s) => s.info);
  const destinations = useInspectorState((s) => s.destinations);
  const { entries, behaviours, error, setBehaviour } = useInbox();
  const [extraHooks, setExtraHooks] = useState<string[]>([]);
  const [newHook, setNewHook] = useState('');
  const [hookFilter, setHookFilter] = useState('');
  const receiverUrl = info?.receiverUrl ?? '';

  const postingTo = useMemo(() => {
    const map = new Map<string, DestinationView[]>();
    for (const d of destinations) {
      for (const w of d.webhooks) {
        const hook = hookOf(w.url, receiverUrl);
        if (hook !== null && !map.get(hook)?.includes(d)) map.set(hook, [...(map.get(hook) ?? []), d]);
      }
    }
    return map;
  }, [destinations, receiverUrl]);

  const hooks = useMemo(() => {
    const names = new Set<string>([...postingTo.keys(), ...Object.keys(behaviours), ...extraHooks]);
    for (const e of entries ?? []) names.add(e.hook);
    return [...names].sort();
  }, [postingTo, behaviours, extraHooks, entries]);

  const counts = useMemo(() => {
    const map = new Map<string, number>();
    for (const e of entries ?? []) map.set(e.hook, (map.get(e.hook) ?? 0) + 1);
    return map;
  }, [entries]);

  const shown = (entries ?? []).filter((e) => hookFilter === '' || e.hook === hookFilter);
  const hookUrl = (hook: string) => `${receiverUrl}/hooks/${encodeURIComponent(hook)}`;

  return (
    <section className="tool-view receiver" aria-labelledby="receiver-title">
      <header className="tool-view-head">
        <h2 id="receiver-title">Built-in receiver</h2>
        <p className="hint">
          A webhook receiver that runs with Sluice. Point a destination at <code>{RECEIVER_URL_PREFIX}&lt;name&gt;</code>, which reaches it
          wherever it listens (another program posts to <code>{receiverUrl || '…'}/hooks/&lt;name&gt;</code>); every request shows here with
          its signature verdict, and each hook can be told to fail, so retries and timeouts can be watched.
        </p>
        <div className="receiver-base">
          <span className="top-label" id="receiver-url-label">
            Receiver URL
          </span>
          <code className="top-value" aria-labelledby="receiver-url-label">
            {receiverUrl || '…'}
          </code>
          <CopyButton text={receiverUrl} label="Copy receiver URL" />
        </div>
      </header>

      <h3 className="section-title">Hooks</h3>
      {hooks.length === 0 ? <p className="muted">No hook has been used yet. Add one to set how it answers before anything arrives.</p> : null}
      <ul className="hooks" aria-label="Hooks">
        {hooks.map((hook) => {
          const behaviour = behaviours[hook] ?? { mode: 'ok' as const };
          return (
            <HookBehaviour
              key={`${hook} ${JSON.stringify(behaviour)}`}
              hook={hook}
              url={hookUrl(hook)}
              destinations={(postingTo.get(hook) ?? []).map((d) => d.name)}
              received={counts.get(hook) ?? 0}
              behaviour={behaviour}
              onApply={(b) => setBehaviour(hook, b)}
            />
          );
        })}
      </ul>
      <form
        className="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          const name = newHook.trim();
          if (name && !hooks.includes(name)) setExtraHooks((list) => [...list, name]);
          setNewHook('');
        }}
      >
        <input type="text" aria-label="New hook name" placeholder="hook name, e.g. orders" value={newHook} maxLength={200} onChange={(e) => setNewHook(e.target.value)} />
        <button type="submit" className="btn btn-small" disabled={newHook.trim() === ''}>
          Add hook
        </button>
      </form>

      <h3 className="section-title">
        Inbox <span className="muted">newest first{entries && entries.length >= INBOX_SHOWN ? ` · the latest ${INBOX_SHOWN}` : ''}</span>
      </h3>
      <ErrorText error={error} />
      <div className="toolbar">
        <Field label="Hook">
          {(control) => (
            <select {...control} value={hookFilter} onChange={(e) => setHookFilter(e.target.value)}>
              <option value="">All hooks</option>
              {hooks.map((hook) => (
                <option key={hook} value={hook}>
                  {hook}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {entries === null ? (
        <div className="inbox-loading" aria-busy="true" aria-label="Loading the inbox" />
      ) : shown.length === 0 ? (
        <p className="muted">Nothing has arrived{hookFilter ? ` at hook ${hookFilter}` : ''} yet.</p>
      ) : (
        <ul className="inbox" aria-label="Inbox">
          {shown.map((entry) => (
            <InboxItem key={entry.id} entry={entry} signers={(postingTo.get(entry.hook) ?? []).filter(signsRequests).map((d) => d.name)} />
          ))}
        </ul>
      )}
    </section>
  );
}

function InboxItem({ entry, signers }: { entry: InboxEntry; signers: string[] }) {
  const [open, setOpen] = useState(false);
  const now = useSecondClock();
  const verdict = explainVerdict(entry.signature, signers, entry.headers);
  const summary = useMemo(() => bodySummary(entry.body), [entry.body]);
  const answered = entry.answeredStatus === null ? 'hung (no answer)' : `answered ${entry.answeredStatus}`;
  const answeredTone = entry.answeredStatus === null ? 'warn' : entry.answeredStatus < 300 ? 'ok' : 'bad';
  return (
    <li className={`inbox-entry${open ? ' inbox-open' : ''}`}>
      <button type="button" className="inbox-summary" aria-expanded={open} onClick={() => setOpen(!open)}>
        <time className="inbox-time" dateTime={new Date(entry.receivedAt).toISOString()} title={absoluteTime(entry.receivedAt)}>
          {clockTime(entry.receivedAt)}
        </time>
        <span className="inbox-hook mono">{entry.hook}</span>
        <span className="inbox-request mono">POST /hooks/{encodeURIComponent(entry.hook)}</span>
        <span className="inbox-body">{summary}</span>
        <span className={`inbox-verdict tone-${verdict.tone}`} title={verdict.why}>
          signature {verdict.label}
          {verdict.scheme ? <span className="muted"> · {verdict.scheme}</span> : null}
        </span>
        <span className={`inbox-answer tone-${answeredTone}`}>{answered}</span>
        <span className="inbox-ago muted">{relativeTime(entry.receivedAt, now)}</span>
      </button>
      {open ? <InboxDetail entry={entry} why={verdict.why} tone={verdict.tone} /> : null}
    </li>
  );
}

function InboxDetail({ entry, why, tone }: { entry: InboxEntry; why: string; tone: string }) {
  const [raw, setRaw] = useState(false);
  const parsed = useMemo(() => {
    try {
      return { ok: true as const, value: JSON.parse(entry.body) as unknown };
    } catch {
      return { ok: false as const };
    }
  }, [entry.body]);
  return (
    <div className="inbox-detail">
      <p className={`inbox-why tone-${tone}`} aria-label="Signature verdict">
        {why}
      </p>
      <table className="headers-table" aria-label="Headers">
        <tbody>
          {Object.entries(entry.headers).map(([name, value]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>
                <HeaderValue name={name} value={Array.isArray(value) ? value.join(', ') : (value ?? '')} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="toolbar">
        <span className="section-title">Body</span>
        {entry.bodyBytes !== undefined ? (
          <span className="muted" aria-label="Body kept">
            — its first 64 KB of {formatCount(entry.bodyBytes)} bytes
          </span>
        ) : null}
        {parsed.ok ? (
          <button type="button" className="btn btn-small" aria-pressed={raw} onClick={() => setRaw(!raw)}>
            Raw
          </button>
        ) : null}
        <CopyButton text={entry.body} label="Copy body" />
      </div>
      {parsed.ok && !raw ? (
        <JsonTree value={parsed.value} label="Body" />
      ) : (
        <pre className="code-block" aria-label="Raw body">
          {entry.body || '(empty)'}
        </pre>
      )}
    </div>
  );
}
