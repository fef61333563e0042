import { useEffect, useState } from 'react';
import type { FaultsView } from '../../../../shared/contract.ts';
import { clockTime, formatCount, plural } from '../../lib/format.ts';
import { useInspector } from '../../store/react.ts';
import { useLive } from '../../store/use-live.ts';
import { faultWords, outcomeWords } from './fault-words.ts';
import './faults.css';

/** Of the faulted requests, the notice lists the latest this many (GET /api/v1/faults has 100). */
const SHOWN = 10;

/**
 * Under the top bar on every view while a test injects faults into ingestion (sluice.faults,
 * /api/v1/faults), and after, while the faulted requests are on record: what each active fault does,
 * and the requests faulted (none of them stored). "Clear faults" ends them and forgets the record.
 */
export function FaultsBanner() {
  const inspector = useInspector();
  const [error, setError] = useState<string | null>(null);
  const [timed, setTimed] = useState(false);
  const { data, reload } = useLive<FaultsView>({
    load: () => inspector.call('faults.list', {}),
    concerns: (events) => events.some((e) => e.type === 'faults.changed' || e.type === 'store.reset'),
    what: 'the injected faults',
    everyMs: 100,
    // A fault that ends by time announces nothing: look again while one is timed.
    pollMs: timed ? 1_000 : null,
  });
  const nowTimed = data?.faults.some((f) => f.remainingMs !== null) ?? false;
  useEffect(() => setTimed(nowTimed), [nowTimed]);
  if (!data || (data.faults.length === 0 && data.faulted.length === 0)) return null;
  const active = data.faults.length > 0;
  const clear = async () => {
    const answer = await inspector.call('faults.clear', { forget: true });
    setError(answer.ok ? null : answer.error.message);
    reload();
  };
  return (
    <div className={`faults-banner${active ? ' faults-on' : ''}`} role="status" aria-label="Fault injection">
      <span className="faults-icon" aria-hidden="true">
        ⚡
      </span>
      <div className="faults-text">
        <strong>{active ? `Fault injection on (${formatCount(data.faults.length)})` : 'Fault injection ended'}</strong>
        {active ? (
          <ul className="faults-list">
            {data.faults.map((fault) => (
              <li key={fault.id}>Ingestion {faultWords(fault)}.</li>
            ))}
          </ul>
        ) : null}
        {data.faulted.length > 0 ? (
          <details className="faults-faulted">
            <summary>{plural(data.faulted.length, 'request')} faulted, none stored</summary>
            <ul>
              {data.faulted.slice(-SHOWN).reverse().map((request, i) => (
                <li key={`${request.at}-${i}`}>
                  {clockTime(Date.parse(request.at))} <code>{request.path}</code> {request.source ?? 'no source'} — {outcomeWords(request)}
                  {request.bytes !== null ? `, ${plural(request.bytes, 'byte')}` : ''}
                  {request.retryCount !== null ? `, retry ${request.retryCount}` : ''}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
        {error ? <span className="error-text">{error}</span> : null}
      </div>
      <button type="button" className="btn btn-small" onClick={() => void clear()}>
        Clear faults
      </button>
    </div>
  );
}
