import type { SourceView } from '../../../../shared/contract.ts';
import { ClientSnippets } from '../../components/ClientSnippets.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { navigate } from '../../lib/route.ts';
import { useInspectorState } from '../../store/react.ts';
import './sources.css';

const KIND_LABELS: Record<SourceView['kind'], string> = { web: 'web', mobile: 'mobile', server: 'server' };

/**
 * Where clients send to: each source with its write key, the ingestion endpoint, which destinations
 * its messages go to, and ready-to-paste code for every client.
 */
export function SourcesView() {
  const info = useInspectorState((s) => s.info);
  const destinations = useInspectorState((s) => s.destinations);
  if (!info) return <div className="src-view" aria-busy="true" />;
  const several = info.sources.length > 1;
  return (
    <div className="src-view">
      <header className="src-head">
        <h2>Sources</h2>
        <p className="hint">
          A client sends to the ingestion endpoint with a source’s write key (as the Basic auth user name, or <code>writeKey</code> in the body).
          Sources come from <code>sluice serve --config</code>; Sluice creates one called “default” when there is none.
        </p>
        <dl className="src-endpoint">
          <dt id="src-endpoint-label">Ingestion endpoint</dt>
          <dd>
            <code aria-labelledby="src-endpoint-label">{info.ingestUrl}</code>
            <CopyButton text={info.ingestUrl} label="Copy ingestion endpoint URL" />
            <span className="muted">
              POST <code>/v1/track</code>, <code>/v1/identify</code>, <code>/v1/batch</code>, …
            </span>
          </dd>
        </dl>
      </header>
      {info.sources.map((source) => {
        const to = destinations.filter((d) => d.sourceIds.includes(source.id));
        const context = several ? ` for ${source.name}` : '';
        return (
          <section key={source.id} className="src-card" aria-labelledby={`src-${source.id}-title`}>
            <div className="src-card-head">
              <h3 id={`src-${source.id}-title`}>{source.name}</h3>
              <span className="src-kind">{KIND_LABELS[source.kind]}</span>
            </div>
            <dl className="src-facts">
              <dt id={`src-${source.id}-key`}>Write key</dt>
              <dd>
                <code aria-labelledby={`src-${source.id}-key`}>{source.writeKey}</code>
                <CopyButton text={source.writeKey} label={`Copy write key of ${source.name}`} />
              </dd>
              <dt id={`src-${source.id}-origins`}>Browser origins</dt>
              <dd aria-labelledby={`src-${source.id}-origins`}>
                {!source.allowedOrigins || source.allowedOrigins.includes('*') ? (
                  <span className="muted">Any page may send with this key (set allowedOrigins in the config to limit it)</span>
                ) : source.allowedOrigins.length === 0 ? (
                  <span className="muted">None: browser requests are refused; servers may send</span>
                ) : (
                  source.allowedOrigins.map((origin) => <code key={origin}>{origin}</code>)
                )}
              </dd>
              <dt>Delivers to</dt>
              <dd>
                {to.length > 0 ? (
                  to.map((d) => (
                    <span key={d.id} className={`src-dest${d.enabled ? '' : ' muted'}`}>
                      {d.name}
                      {d.enabled ? '' : ' (disabled)'}
                    </span>
                  ))
                ) : (
                  <span className="muted">
                    No destination: messages are stored and shown, not forwarded.{' '}
                    <button type="button" className="btn btn-small" onClick={() => navigate('destinations')}>
                      Connect a destination
                    </button>
                  </span>
                )}
              </dd>
            </dl>
            <ClientSnippets ingestUrl={info.ingestUrl} writeKey={source.writeKey} context={context} />
          </section>
        );
      })}
    </div>
  );
}
