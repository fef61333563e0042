import { useDeferredValue, useState } from 'react';
import type { AudienceKind } from '../../../../shared/audiences.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { absoluteTime, formatCount, relativeTime, plural } from '../../lib/format.ts';
import { formatValue } from './audience-form.ts';
import { useMembers } from './use-audiences.ts';

/** Who the destinations were told is in the audience (as of the last sync), searchable by userId. */
export function MembersList({ audienceId, kind }: { audienceId: number; kind: AudienceKind }) {
  const [search, setSearch] = useState('');
  const deferred = useDeferredValue(search.trim());
  const { members, total, error } = useMembers(audienceId, deferred);
  const now = useSecondClock();
  return (
    <div className="aud-members">
      <div className="toolbar">
        <input type="search" aria-label="Search members" placeholder="Search userId" value={search} maxLength={200} onChange={(e) => setSearch(e.target.value)} />
        <span className="muted" role="status">
          {members === null ? '' : deferred ? `${formatCount(total)} matching` : `${kind === 'audience' ? plural(total, 'member') : plural(total, 'user with a value', 'users with a value')} as of the last sync`}
        </span>
      </div>
      {error ? (
        <p className="aud-error" role="alert">
          {error}
        </p>
      ) : members === null ? (
        <div className="aud-loading" aria-busy="true" aria-label="Loading members" />
      ) : members.length === 0 ? (
        <p className="muted aud-empty">{deferred ? 'No member matches.' : 'No members yet: they appear after a sync.'}</p>
      ) : (
        <>
          <ul className={`aud-member-list${kind === 'computed_trait' ? ' with-value' : ''}`} aria-label="Members">
            {members.map((m) => (
              <li key={m.userId}>
                <span className="mono">{m.userId}</span>
                {kind === 'computed_trait' ? <span className="mono">{formatValue(m.value)}</span> : null}
                <time className="muted" dateTime={new Date(m.since).toISOString()} title={absoluteTime(m.since)}>
                  since {relativeTime(m.since, now)}
                </time>
              </li>
            ))}
          </ul>
          {total > members.length ? <p className="muted">Showing {formatCount(members.length)} of {formatCount(total)}; search to find others.</p> : null}
        </>
      )}
    </div>
  );
}
