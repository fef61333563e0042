// The store's schema as its history: one append-only list of migrations, read in order (each entry
// says why it exists), so the file is over 450 lines and grows by one entry per schema change. Never
// edit an entry that has shipped: append a new one.
import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './connection.ts';

/**
 * Migration 24's triggers on `deliveries` that keep the Issues groups' counts (see there), kept apart
 * because migration 25 rebuilds `issues` and makes them again (a table rebuilt under a trigger that
 * names it cannot be renamed into place). Migration 24's text is the same as when it landed.
 */
const ISSUE_TRIGGERS = `      CREATE TRIGGER IF NOT EXISTS issue_deliveries_moved AFTER UPDATE OF status ON deliveries
        WHEN old.status IN ('retrying', 'failed') AND old.status IS NOT new.status BEGIN
        UPDATE issues SET failed = failed - (old.status = 'failed') + (new.status = 'failed'),
            retrying = retrying - (old.status = 'retrying') + (new.status = 'retrying'),
            closed_at = CASE WHEN new.status NOT IN ('retrying', 'failed') AND failed + retrying = 1 THEN new.updated_at ELSE closed_at END
          WHERE id = (SELECT issue_id FROM issue_deliveries WHERE delivery_id = old.id);
        DELETE FROM issue_deliveries WHERE delivery_id = old.id AND new.status NOT IN ('retrying', 'failed');
      END;
      CREATE TRIGGER IF NOT EXISTS issue_deliveries_gone AFTER DELETE ON deliveries WHEN old.status IN ('retrying', 'failed') BEGIN
        UPDATE issues SET failed = failed - (old.status = 'failed'), retrying = retrying - (old.status = 'retrying'),
            closed_at = CASE WHEN failed + retrying = 1 THEN CAST(unixepoch('subsec') * 1000 AS INTEGER) ELSE closed_at END
          WHERE id = (SELECT issue_id FROM issue_deliveries WHERE delivery_id = old.id);
        DELETE FROM issue_deliveries WHERE delivery_id = old.id;
      END;
`;

/**
 * Versioned schema. Each entry runs once, in order, inside a transaction; `PRAGMA user_version`
 * records the last one applied.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'sources, destinations, requests, messages, deliveries, attempts',
    sql: `
      CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        write_key TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('web', 'mobile', 'server')),
        created_at INTEGER NOT NULL
      );

      CREATE TABLE destinations (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL DEFAULT 'webhooks',
        enabled INTEGER NOT NULL,
        settings TEXT NOT NULL,            -- JSON: webhooks, sharedSecret, options
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE destination_sources (
        destination_id INTEGER NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        PRIMARY KEY (destination_id, source_id)
      ) WITHOUT ROWID;

      -- One row per ingestion request: what its messages share (time, sender, batch-level fields).
      CREATE TABLE requests (
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL,
        endpoint TEXT NOT NULL,                   -- batch, track, t, ...
        received_at INTEGER NOT NULL,             -- ms since epoch
        sent_at INTEGER,                          -- batch-level sentAt, ms
        ip TEXT,
        envelope TEXT                             -- JSON: batch-level context, integrations, sentAt
      );

      -- id is the arrival order, so it sorts by time. raw is the message exactly as the client sent
      -- it; the normalized message is raw + its request + the columns (see normalize.ts), so the
      -- ingest path never re-serializes a message. The columns are what lists filter on.
      CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        request_id INTEGER,
        source_id INTEGER NOT NULL,
        message_id TEXT,                          -- the client's, or one Sluice generated
        type TEXT,
        status TEXT NOT NULL,                     -- accepted | rejected | duplicate
        reject_code TEXT,
        reject_reason TEXT,
        origin TEXT NOT NULL DEFAULT 'ingest',    -- ingest | client | audience
        user_id TEXT,
        anonymous_id TEXT,
        event TEXT,                               -- track event, page/screen name
        received_at INTEGER NOT NULL,             -- ms since epoch
        timestamp INTEGER,                        -- corrected for clock skew, ms
        raw TEXT NOT NULL
      );
      -- The only index on the ingest path: it is the dedupe check. Partial, so duplicates and
      -- rejected rows (which may repeat or lack an id) cost nothing here.
      CREATE UNIQUE INDEX messages_dedupe ON messages (source_id, message_id) WHERE status = 'accepted';

      CREATE TABLE deliveries (
        id INTEGER PRIMARY KEY,
        message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
        destination_id INTEGER NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
        trigger TEXT NOT NULL CHECK (trigger IN ('automatic', 'replay', 'audience', 'deletion', 'test')),
        replay_of INTEGER REFERENCES deliveries(id) ON DELETE SET NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'in_flight', 'retrying', 'delivered', 'failed', 'skipped', 'cancelled')),
        target_url TEXT,                          -- a replay's own URL; NULL = the destination's webhooks
        body TEXT,                                -- exact bytes sent (as UTF-8 text)
        signature TEXT,
        attempt_count INTEGER NOT NULL DEFAULT 0,
        first_attempt_at INTEGER,
        next_attempt_at INTEGER,
        deadline_at INTEGER,
        last_error TEXT,
        skip_reason TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
      CREATE INDEX deliveries_message ON deliveries (message_id);

      CREATE TABLE attempts (
        id INTEGER PRIMARY KEY,
        delivery_id INTEGER NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        duration_ms REAL,
        request_headers TEXT NOT NULL,            -- JSON
        response_status INTEGER,
        response_headers TEXT,                    -- JSON
        response_body TEXT,                       -- truncated at 64 KB
        error_code TEXT CHECK (error_code IN ('timeout', 'tls', 'connect', 'reset', 'http')),
        error_message TEXT,
        outcome TEXT NOT NULL CHECK (outcome IN ('success', 'retry', 'final')),
        retry_at INTEGER
      );
      CREATE INDEX attempts_delivery ON attempts (delivery_id);

      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: 'replays with their own body, deletion requests',
    sql: `
      -- A body fixed at creation (an edited replay, a deletion notification) instead of one mapped
      -- from the message at each round; it is signed with the destination's secret when sent.
      ALTER TABLE deliveries ADD COLUMN body_override TEXT;
      ALTER TABLE deliveries ADD COLUMN deletion_request_id INTEGER REFERENCES deletion_requests(id) ON DELETE SET NULL;
      CREATE INDEX deliveries_deletion ON deliveries (deletion_request_id) WHERE deletion_request_id IS NOT NULL;

      CREATE TABLE deletion_requests (
        id INTEGER PRIMARY KEY,
        user_id TEXT NOT NULL,
        requested_at INTEGER NOT NULL,
        purge INTEGER NOT NULL,
        source_ids TEXT NOT NULL,                 -- JSON: the affected sources
        purged_messages INTEGER NOT NULL DEFAULT 0
      );
    `,
  },
  {
    version: 3,
    name: 'messages by time received',
    sql: `
      -- The stream's time-range filter and time-bounded replays. received_at grows with arrival, so
      -- each insert appends to the right edge of this index: a small cost on the ingest path.
      CREATE INDEX messages_received ON messages (received_at);
    `,
  },
  {
    version: 4,
    name: 'audiences and computed traits, user profiles folded from messages',
    sql: `
      CREATE TABLE audiences (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('audience', 'computed_trait')),
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        property TEXT NOT NULL,                   -- snake_case of the name: the trait the identifies carry
        definition TEXT NOT NULL,                 -- JSON: the rule (audience) or the computation
        mode TEXT NOT NULL CHECK (mode IN ('demo', 'realistic')),
        interval_seconds INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        next_sync_at INTEGER,
        last_sync_at INTEGER
      );

      -- Who the destinations were last told about, with the value sent: what the next sync diffs against.
      CREATE TABLE audience_members (
        audience_id INTEGER NOT NULL REFERENCES audiences(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        value TEXT NOT NULL,                      -- JSON
        since INTEGER NOT NULL,
        PRIMARY KEY (audience_id, user_id)
      ) WITHOUT ROWID;

      CREATE TABLE audience_syncs (
        id INTEGER PRIMARY KEY,
        audience_id INTEGER NOT NULL REFERENCES audiences(id) ON DELETE CASCADE,
        at INTEGER NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('scheduled', 'manual')),
        initial INTEGER NOT NULL,                 -- 1: nothing was synced before (every member sent)
        property TEXT NOT NULL,
        members INTEGER NOT NULL,
        joined INTEGER NOT NULL,                  -- computed traits: users whose value is new or changed
        left_count INTEGER NOT NULL,              -- computed traits: users who no longer have a value
        deliveries INTEGER NOT NULL,
        duration_ms REAL NOT NULL
      );
      CREATE INDEX audience_syncs_audience ON audience_syncs (audience_id, id);

      -- The identify messages (origin 'audience') each sync stored, and what they said.
      CREATE TABLE audience_sync_messages (
        sync_id INTEGER NOT NULL REFERENCES audience_syncs(id) ON DELETE CASCADE,
        message_id INTEGER NOT NULL,              -- messages.id; no foreign key: a purge may delete it
        user_id TEXT NOT NULL,
        value TEXT NOT NULL,                      -- JSON
        change TEXT NOT NULL CHECK (change IN ('joined', 'left', 'changed')),
        PRIMARY KEY (sync_id, message_id)
      ) WITHOUT ROWID;
      CREATE INDEX audience_sync_messages_message ON audience_sync_messages (message_id);

      -- Each source's users as the stored messages describe them, folded in incrementally (by message
      -- id, see audiences/profile-fold.ts) so that evaluating a rule never scans the messages.
      CREATE TABLE profile_users (
        source_id INTEGER NOT NULL,
        user_id TEXT NOT NULL,
        PRIMARY KEY (source_id, user_id)
      ) WITHOUT ROWID;
      -- Latest value of each trait, merged over the user's identify calls.
      CREATE TABLE profile_traits (
        source_id INTEGER NOT NULL,
        key TEXT NOT NULL,
        user_id TEXT NOT NULL,
        type TEXT NOT NULL,                       -- json_each's: null, true, false, integer, real, text, array, object
        value ANY,                                -- the SQL value (JSON text for arrays and objects)
        message_id INTEGER NOT NULL,
        PRIMARY KEY (source_id, key, user_id)
      ) WITHOUT ROWID;
      -- One row per track event, ordered for "performed E (within T)": by event, then time, so new
      -- events append at the end of their event's range instead of landing all over the table.
      CREATE TABLE profile_events (
        source_id INTEGER NOT NULL,
        event TEXT NOT NULL,
        at INTEGER NOT NULL,                      -- the event's timestamp (corrected), else when it arrived
        message_id INTEGER NOT NULL,
        user_id TEXT NOT NULL,
        PRIMARY KEY (source_id, event, at, message_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 5,
    name: 'deleted destinations keep their history',
    sql: `
      -- A deleted destination stays as a row (its deliveries and attempts reference it, with ON DELETE
      -- CASCADE) but is no longer listed, routed or sent to. Its name is changed to free the UNIQUE name.
      ALTER TABLE destinations ADD COLUMN deleted_at INTEGER;
    `,
  },
  {
    version: 6,
    name: 'per-destination due deliveries; failed deliveries',
    sql: `
      -- The delivery engine reads each destination's due deliveries on its own (a slow destination's
      -- backlog must not stand before another's), earliest first: a seek per destination.
      CREATE INDEX deliveries_destination_due ON deliveries (destination_id, next_attempt_at)
        WHERE status IN ('pending', 'retrying');
      -- "Replay all failed" reads the failed deliveries oldest first, not every delivery.
      CREATE INDEX deliveries_failed ON deliveries (id) WHERE status = 'failed';
    `,
  },
  {
    version: 7,
    name: 'one index of open deliveries',
    sql: `
      -- deliveries_destination_due (migration 6) serves every read of open deliveries now; the
      -- older one only cost an index write per delivery created and another per delivery settled.
      DROP INDEX deliveries_due;
    `,
  },
  {
    version: 8,
    name: 'trait values keep their type; the latest trait is the latest in time',
    sql: `
      -- "value ANY" had NUMERIC affinity: the text "02134" was stored as the number 2134 (and two
      -- 20-digit ids as the same REAL), so text traits that look like numbers compared wrongly. BLOB
      -- affinity stores each value as json_each gives it. And of two identifies, the later by the
      -- message's time wins (an offline client's or a backfill's older identify arriving last no
      -- longer overwrites a newer value); the message id only breaks ties.
      DROP TABLE profile_traits;
      CREATE TABLE profile_traits (
        source_id INTEGER NOT NULL,
        key TEXT NOT NULL,
        user_id TEXT NOT NULL,
        type TEXT NOT NULL,                       -- json_each's: null, true, false, integer, real, text, array, object
        value BLOB,                               -- the SQL value as json_each gives it (JSON text for arrays and objects)
        at INTEGER NOT NULL,                      -- the identify's timestamp (corrected), else when it arrived
        message_id INTEGER NOT NULL,
        PRIMARY KEY (source_id, key, user_id)
      ) WITHOUT ROWID;
      -- Fold again from the first message: traits are rebuilt; users and events are kept (folding
      -- them again adds nothing).
      DELETE FROM settings WHERE key = 'profiles.folded_through';
    `,
  },
  {
    version: 9,
    name: 'the browser origins a source accepts',
    sql: `
      -- JSON array of origins ("https://app.example.com", or "*"); NULL: any origin, as before.
      ALTER TABLE sources ADD COLUMN allowed_origins TEXT;
    `,
  },
  {
    version: 10,
    name: 'tracking plan violations',
    sql: `
      -- JSON array of the message's violations of its source's tracking plans (shared/tracking-plan.ts
      -- Violation); NULL: none, or no plan checked it. Most messages conform: the partial index (the
      -- stream's "violations" filter) costs an insert only for those that do not.
      ALTER TABLE messages ADD COLUMN violations TEXT;
      -- Why a plan blocked the message (its deliveries were skipped with this reason); NULL: not blocked.
      ALTER TABLE messages ADD COLUMN blocked TEXT;
      CREATE INDEX messages_violations ON messages (id) WHERE violations IS NOT NULL;
      -- Removing a delivery (retention, clearing) sets its replays' replay_of to NULL: without this,
      -- SQLite's foreign key check scans every delivery for each one removed.
      CREATE INDEX deliveries_replay ON deliveries (replay_of) WHERE replay_of IS NOT NULL;

      -- What the tracking plan view counts, kept as messages come and go so that reading it never
      -- scans the messages: per source, type and track event ('' for other types), with plan '' the
      -- accepted messages (of ingestion: the ones plans check) and with a plan's name those that break
      -- it. Ingestion adds (store/request-writes.ts, once per request); these triggers follow a purge
      -- and a re-check, which are rare and touch few rows at a time.
      CREATE TABLE event_counts (
        source_id INTEGER NOT NULL,
        type TEXT NOT NULL,
        event TEXT NOT NULL,
        plan TEXT NOT NULL,
        n INTEGER NOT NULL,
        last_at INTEGER NOT NULL,                 -- the newest counted message's received_at
        PRIMARY KEY (source_id, type, event, plan)
      ) WITHOUT ROWID;
      INSERT INTO event_counts
        SELECT source_id, type, CASE WHEN type = 'track' THEN coalesce(event, '') ELSE '' END, '', count(*), max(received_at)
        FROM messages WHERE status = 'accepted' AND origin = 'ingest' AND type IS NOT NULL GROUP BY 1, 2, 3;
      CREATE TRIGGER event_counts_deleted AFTER DELETE ON messages
        WHEN old.status = 'accepted' AND old.origin = 'ingest' AND old.type IS NOT NULL
      BEGIN
        UPDATE event_counts SET n = n - 1
          WHERE source_id = old.source_id AND type = old.type AND event = CASE WHEN old.type = 'track' THEN coalesce(old.event, '') ELSE '' END
            AND (plan = '' OR plan IN (SELECT json_extract(value, '$.plan') FROM json_each(coalesce(old.violations, '[]'))));
        DELETE FROM event_counts WHERE n <= 0 AND source_id = old.source_id AND type = old.type
          AND event = CASE WHEN old.type = 'track' THEN coalesce(old.event, '') ELSE '' END;
      END;
      CREATE TRIGGER event_counts_rechecked AFTER UPDATE OF violations ON messages
        WHEN new.status = 'accepted' AND new.origin = 'ingest' AND new.type IS NOT NULL
      BEGIN
        UPDATE event_counts SET n = n - 1
          WHERE source_id = old.source_id AND type = old.type AND event = CASE WHEN old.type = 'track' THEN coalesce(old.event, '') ELSE '' END
            AND plan IN (SELECT json_extract(value, '$.plan') FROM json_each(coalesce(old.violations, '[]')));
        INSERT INTO event_counts (source_id, type, event, plan, n, last_at)
          SELECT DISTINCT new.source_id, new.type, CASE WHEN new.type = 'track' THEN coalesce(new.event, '') ELSE '' END,
            json_extract(value, '$.plan'), 1, new.received_at
          FROM json_each(coalesce(new.violations, '[]')) WHERE json_extract(value, '$.plan') IS NOT NULL
          ON CONFLICT DO UPDATE SET n = n + 1, last_at = max(last_at, excluded.last_at);
        DELETE FROM event_counts WHERE n <= 0 AND source_id = old.source_id AND type = old.type
          AND event = CASE WHEN old.type = 'track' THEN coalesce(old.event, '') ELSE '' END;
      END;
    `,
  },
  {
    version: 11,
    name: 'the stream search index',
    sql: `
      -- The stream's search (userId, anonymousId, messageId or event contains the text) without reading
      -- every message: trigram full-text, whose phrase queries are substring matches. Values are stored
      -- ASCII-lowercased (lower() without ICU) and the index is case-sensitive, so a match is exactly
      -- LIKE's (case-insensitive for ASCII only). Contentless: the index holds no copy of the values,
      -- and a message leaves it through FTS5's 'delete' command given the values it was indexed with
      -- (they never change). contentless_delete=1 would not need them, but deleted 20 times slower
      -- (6,000 messages/s against 116,000, measured) and refuses columnsize=0.
      CREATE VIRTUAL TABLE messages_search USING fts5(
        user_id, anonymous_id, message_id, event,
        content = '', columnsize = 0, tokenize = 'trigram case_sensitive 1'
      );
      -- The messages with ids in [lo, hi] are indexed, by the writer thread off ingestion's path
      -- (store/search-index.ts): new ones upwards from hi, older ones downwards from lo, newest first.
      -- A store that had messages before this migration is indexed from its newest message down.
      CREATE TABLE search_index (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        lo INTEGER NOT NULL,
        hi INTEGER NOT NULL
      );
      INSERT INTO search_index (id, lo, hi) SELECT 1, coalesce(max(id), 0) + 1, coalesce(max(id), 0) FROM messages;
      -- A removed message leaves the index (only an indexed one: 'delete' for a row the index does not
      -- hold would damage it). Removing the newest ones lets SQLite give their ids again: the indexed
      -- range then ends at the newest message left, so a new message is never taken for an indexed one.
      -- One trigger: the entry must go before the range shrinks past it.
      CREATE TRIGGER messages_search_deleted AFTER DELETE ON messages
      BEGIN
        INSERT INTO messages_search (messages_search, rowid, user_id, anonymous_id, message_id, event)
          SELECT 'delete', old.id, lower(old.user_id), lower(old.anonymous_id), lower(old.message_id), lower(old.event)
          FROM search_index WHERE old.id BETWEEN lo AND hi;
        UPDATE search_index SET
            hi = min(hi, coalesce((SELECT max(id) FROM messages), 0)),
            lo = min(lo, coalesce((SELECT max(id) FROM messages), 0) + 1)
          WHERE old.id > coalesce((SELECT max(id) FROM messages), 0);
      END;
    `,
  },
  {
    version: 12,
    name: 'the word index of whole messages',
    sql: `
      -- The query language's words (shared/message-query.ts): FTS5 over each message's raw JSON with
      -- the ascii tokenizer — ASCII letters and digits, and any non-ASCII character, make words; A-Z
      -- fold to a-z (LIKE's case rule). A phrase query, its last word a prefix, is exactly what the
      -- language means by words, so the index answers them without reading the messages. Contentless
      -- (the raw text is stored once, in messages), without column sizes (nothing ranks).
      CREATE VIRTUAL TABLE messages_text USING fts5(raw, content = '', columnsize = 0, tokenize = 'ascii');
      -- Both indexes cover the same range [lo, hi], filled in the same slices: the trigram one starts
      -- over with this one (newest first; a search reads what is not indexed yet from the messages).
      INSERT INTO messages_search (messages_search) VALUES ('delete-all');
      UPDATE search_index SET lo = (SELECT coalesce(max(id), 0) + 1 FROM messages), hi = (SELECT coalesce(max(id), 0) FROM messages);
      DROP TRIGGER messages_search_deleted;
      CREATE TRIGGER messages_search_deleted AFTER DELETE ON messages
      BEGIN
        INSERT INTO messages_search (messages_search, rowid, user_id, anonymous_id, message_id, event)
          SELECT 'delete', old.id, lower(old.user_id), lower(old.anonymous_id), lower(old.message_id), lower(old.event)
          FROM search_index WHERE old.id BETWEEN lo AND hi;
        INSERT INTO messages_text (messages_text, rowid, raw)
          SELECT 'delete', old.id, old.raw FROM search_index WHERE old.id BETWEEN lo AND hi;
        UPDATE search_index SET
            hi = min(hi, coalesce((SELECT max(id) FROM messages), 0)),
            lo = min(lo, coalesce((SELECT max(id) FROM messages), 0) + 1)
          WHERE old.id > coalesce((SELECT max(id) FROM messages), 0);
      END;
    `,
  },
  {
    version: 13,
    name: 'the destinations an audience chooses',
    sql: `
      -- JSON array of destination ids an audience's syncs go to (the enabled ones among them), whether
      -- or not they are connected to its source. NULL, as every audience from before has it: the
      -- enabled destinations connected to its source, as they are at each sync (what Sluice always did).
      ALTER TABLE audiences ADD COLUMN destination_ids TEXT;
    `,
  },
  {
    version: 14,
    name: 'the word index reads string escapes',
    sql: `
      -- The word index holds each message's JSON with its string escapes read (sluice_word_text, a
      -- function every connection registers: store/sql-functions.ts): "caf" and an escaped é make the
      -- word café, and the n of an escaped newline is no longer glued to the next word. A message leaves
      -- a contentless index with the text it entered with, so both indexes start over (newest first, as
      -- at migration 12) and the trigger gives the new text.
      INSERT INTO messages_text (messages_text) VALUES ('delete-all');
      INSERT INTO messages_search (messages_search) VALUES ('delete-all');
      UPDATE search_index SET lo = (SELECT coalesce(max(id), 0) + 1 FROM messages), hi = (SELECT coalesce(max(id), 0) FROM messages);
      DROP TRIGGER messages_search_deleted;
      CREATE TRIGGER messages_search_deleted AFTER DELETE ON messages
      BEGIN
        INSERT INTO messages_search (messages_search, rowid, user_id, anonymous_id, message_id, event)
          SELECT 'delete', old.id, lower(old.user_id), lower(old.anonymous_id), lower(old.message_id), lower(old.event)
          FROM search_index WHERE old.id BETWEEN lo AND hi;
        INSERT INTO messages_text (messages_text, rowid, raw)
          SELECT 'delete', old.id, sluice_word_text(old.raw) FROM search_index WHERE old.id BETWEEN lo AND hi;
        UPDATE search_index SET
            hi = min(hi, coalesce((SELECT max(id) FROM messages), 0)),
            lo = min(lo, coalesce((SELECT max(id) FROM messages), 0) + 1)
          WHERE old.id > coalesce((SELECT max(id) FROM messages), 0);
      END;
    `,
  },
  {
    version: 15,
    name: 'the Sluices a user came through',
    sql: `
      -- JSON array of the Sluice ids (shared/loop-guard.ts) the user's folded messages came through
      -- (their requests' Sluice-Loop chains), merged; NULL when none did. An audience's identify for
      -- the user carries them, so it is never sent back to a Sluice its data came from. Users folded
      -- before this have none.
      ALTER TABLE profile_users ADD COLUMN via TEXT;
    `,
  },
  {
    version: 16,
    name: 'what Segment would refuse',
    sql: `
      -- Why Segment's Tracking API would refuse a message ingestion accepted (over 32 KB, or in a batch
      -- over 500 KB: shared/limits.ts segmentWarning); NULL for the rest, as for every message before.
      ALTER TABLE messages ADD COLUMN warning TEXT;
    `,
  },
  {
    version: 17,
    name: 'one attempt record per forwarded request',
    sql: `
      -- A request to a Tracking API carries up to a hundred messages (a batch): its request and answer
      -- are recorded once, in forward_requests, and each message's delivery refers to it from
      -- forward_attempts with what that request meant for it — the outcome and next retry (a batch's
      -- messages may differ there: each has its own retry window), and its own error only when the API
      -- refused that message alone (NULL, NULL: the request's). Writing a reference per message instead
      -- of a copy of the request and its answer is what lets forwarding keep up with a batched loop. The
      -- attempts table keeps one row per attempt of the other kinds (webhooks) and the forwarded attempts
      -- recorded before this migration, read beside these (deliveries-repo.ts: attempts()).
      CREATE TABLE forward_requests (
        id INTEGER PRIMARY KEY,
        url TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        duration_ms REAL,
        request_headers TEXT NOT NULL,            -- JSON
        response_status INTEGER,
        response_headers TEXT,                    -- JSON
        response_body TEXT,                       -- truncated at 64 KB
        error_code TEXT CHECK (error_code IN ('timeout', 'tls', 'connect', 'reset', 'http')),
        error_message TEXT
      );
      CREATE TABLE forward_attempts (
        delivery_id INTEGER NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
        request_id INTEGER NOT NULL REFERENCES forward_requests(id),
        outcome TEXT NOT NULL CHECK (outcome IN ('success', 'retry', 'final')),
        retry_at INTEGER,
        error_code TEXT CHECK (error_code IN ('timeout', 'tls', 'connect', 'reset', 'http')),
        error_message TEXT,
        PRIMARY KEY (delivery_id, request_id)
      ) WITHOUT ROWID;
      -- Request ids only grow: each insert appends at the index's right edge.
      CREATE INDEX forward_attempts_request ON forward_attempts (request_id);
      -- A request's record goes with the last message it carried, and not before: whatever removes a
      -- delivery (retention, a clear, a reset) removes its forward_attempts rows (the cascade), and the
      -- last one of a request takes the request with it.
      CREATE TRIGGER forward_requests_released AFTER DELETE ON forward_attempts
        WHEN NOT EXISTS (SELECT 1 FROM forward_attempts WHERE request_id = old.request_id)
      BEGIN
        DELETE FROM forward_requests WHERE id = old.request_id;
      END;
    `,
  },
  {
    version: 18,
    name: 'leaner webhook attempts: request headers by reference',
    sql: `
      -- The headers a webhook's requests carry, each set stored once and shared by every attempt that sent
      -- it (the same webhook, loop chain and signing): the values that change per delivery or per attempt
      -- are left blank (JSON null) — X-Signature is its delivery's signature, Standard Webhooks' headers
      -- are the attempt's own (store/attempt-headers.ts rebuilds the headers as sent). Never deleted: a set
      -- is a few hundred bytes, and few are made (one per webhook, loop chain and signing as edited).
      CREATE TABLE header_sets (
        id INTEGER PRIMARY KEY,
        headers TEXT NOT NULL UNIQUE              -- JSON: name → value, or null for a blank
      );
      -- An attempt's header set; NULL: request_headers holds its headers as sent (attempts from before,
      -- a forward's). With a set, request_headers holds only the attempt's own values of its blanks.
      ALTER TABLE attempts ADD COLUMN header_set INTEGER;
      -- A round that signs another body than the delivery's earlier rounds did (its destination's shape or
      -- secret edited between them) changes the delivery's signature: the earlier attempts that took
      -- their X-Signature from it keep the one they sent.
      CREATE TRIGGER attempts_keep_signature AFTER UPDATE OF signature ON deliveries
        WHEN old.signature IS NOT NULL AND new.signature IS NOT old.signature
      BEGIN
        UPDATE attempts SET request_headers = json_set(request_headers, '$."X-Signature"', old.signature)
          WHERE delivery_id = old.id AND header_set IS NOT NULL
            AND json_extract(request_headers, '$."X-Signature"') IS NULL
            AND (SELECT json_type(headers, '$."X-Signature"') FROM header_sets WHERE id = attempts.header_set) = 'null';
      END;
    `,
  },
  {
    version: 19,
    name: 'what /stats counts, without reading every row',
    sql: `
      -- /stats (store/store-stats.ts) counts messages by status and type, and deliveries by status. The
      -- accepted messages of clients are counted in event_counts already; these partial indexes hold the
      -- rest — refused and duplicate messages, the ones Sluice made (audience syncs, Violation Generated
      -- events), skipped and cancelled deliveries — and cost an index write only for those rows, none for
      -- an accepted message of a client or a delivery sent. Open and failed deliveries have their indexes
      -- (migration 6); what is left of either table is delivered or accepted. IF NOT EXISTS: for a few
      -- minutes this was a second migration 18, which a store migrated then ran with the first.
      CREATE INDEX IF NOT EXISTS messages_unaccepted ON messages (status, type) WHERE status <> 'accepted';
      CREATE INDEX IF NOT EXISTS messages_made ON messages (status, type) WHERE origin <> 'ingest';
      CREATE INDEX IF NOT EXISTS deliveries_not_sent ON deliveries (status) WHERE status IN ('skipped', 'cancelled');
    `,
  },
  {
    version: 20,
    name: 'a message by its messageId through a B-tree, whatever its status',
    sql: `
      -- A wait, GET /api/v1/messages/{id} and messageById find a message by its messageId (store/message-ids.ts):
      -- an accepted one through messages_dedupe, one source after another; a refused or duplicate one
      -- through this index, which holds only those rows (an index write for them, none for an accepted message).
      -- IF NOT EXISTS: a store whose version was set back (as tests make an older store) has it already.
      CREATE INDEX IF NOT EXISTS messages_unaccepted_id ON messages (message_id) WHERE status <> 'accepted';
    `,
  },
  {
    version: 21,
    name: "what a destination's filters and transform made of a delivery",
    sql: `
      -- Issue 28 (delivery/shaping.ts). What a delivery says of its destination's filters and transform, in
      -- a few words: "transformed (version 0123456789ab)", "fields filtered by filter 1 (…)", "dropped by
      -- filter 2 (if: …)", "dropped by transform: …"; NULL when its destination has neither.
      ALTER TABLE deliveries ADD COLUMN shaping TEXT;
      -- The transform's run (JSON: version, ms, logs, outcome, output when changed, message and stack) of a
      -- round that sent nothing because of it (dropped, retry, failed); NULL after a round that sent (its
      -- attempts hold their run) and for destinations without a transform.
      ALTER TABLE deliveries ADD COLUMN transform_run TEXT;
      -- An edited replay sent through its destination's transform (deliveries.replay skipTransform: false):
      -- 1; NULL: its body is sent as it is (the default).
      ALTER TABLE deliveries ADD COLUMN transform_body INTEGER;
      -- The run whose output an attempt sent (the same JSON); NULL for destinations without a transform,
      -- so an attempt of theirs writes nothing more. A forwarded attempt's is its share's.
      ALTER TABLE attempts ADD COLUMN transform_run TEXT;
      ALTER TABLE forward_attempts ADD COLUMN transform_run TEXT;
    `,
  },
  {
    version: 22,
    name: "the delivery overview's counts, by hour and by index ranges",
    sql: `
      -- Issue 29 (store/delivery-funnel.ts). The delivery overview counts each destination's automatic deliveries
      -- by state and skip reason over a window. delivery_hours holds those counts per hour of creation, kept by
      -- the triggers below (one upsert when a delivery is made, two when its state changes, one when it goes):
      -- the whole hours of a window are summed from it, and the window's partial hours at either end counted
      -- from deliveries_funnel, a covering index (trigger, destination, status, created_at, skip_reason), which
      -- the query language's delivery:"name:step" reads too (store/message-query-sql.ts). Trigger first: every
      -- reader of it names the trigger, and a query on a destination's open deliveries without one (the engine's)
      -- keeps its partial index deliveries_destination_due rather than taking this one. IF NOT EXISTS and the
      -- counts made again: a store whose version was set back (as tests make an older store) has them already.
      CREATE INDEX IF NOT EXISTS deliveries_funnel ON deliveries (trigger, destination_id, status, created_at, skip_reason);
      CREATE TABLE IF NOT EXISTS delivery_hours (
        destination_id INTEGER NOT NULL,
        hour INTEGER NOT NULL,                   -- created_at / 3,600,000
        status TEXT NOT NULL,
        skip_reason TEXT NOT NULL,               -- '' when none
        n INTEGER NOT NULL,
        PRIMARY KEY (destination_id, hour, status, skip_reason)
      ) WITHOUT ROWID;
      DELETE FROM delivery_hours;
      INSERT INTO delivery_hours (destination_id, hour, status, skip_reason, n)
        SELECT destination_id, created_at / 3600000, status, coalesce(skip_reason, ''), count(*) FROM deliveries
        WHERE trigger = 'automatic' GROUP BY 1, 2, 3, 4;
      CREATE TRIGGER IF NOT EXISTS delivery_hours_made AFTER INSERT ON deliveries WHEN new.trigger = 'automatic' BEGIN
        INSERT INTO delivery_hours (destination_id, hour, status, skip_reason, n)
          VALUES (new.destination_id, new.created_at / 3600000, new.status, coalesce(new.skip_reason, ''), 1)
          ON CONFLICT (destination_id, hour, status, skip_reason) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER IF NOT EXISTS delivery_hours_moved AFTER UPDATE OF status, skip_reason ON deliveries
        WHEN new.trigger = 'automatic' AND (old.status IS NOT new.status OR old.skip_reason IS NOT new.skip_reason) BEGIN
        UPDATE delivery_hours SET n = n - 1 WHERE destination_id = old.destination_id AND hour = old.created_at / 3600000
          AND status = old.status AND skip_reason = coalesce(old.skip_reason, '');
        INSERT INTO delivery_hours (destination_id, hour, status, skip_reason, n)
          VALUES (new.destination_id, new.created_at / 3600000, new.status, coalesce(new.skip_reason, ''), 1)
          ON CONFLICT (destination_id, hour, status, skip_reason) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER IF NOT EXISTS delivery_hours_gone AFTER DELETE ON deliveries WHEN old.trigger = 'automatic' BEGIN
        UPDATE delivery_hours SET n = n - 1 WHERE destination_id = old.destination_id AND hour = old.created_at / 3600000
          AND status = old.status AND skip_reason = coalesce(old.skip_reason, '');
      END;
    `,
  },
  {
    version: 23,
    name: 'pinned messages',
    sql: `
      -- Issue 29. A message the user pinned: 1; NULL (no byte stored, no rewrite of the table): not pinned.
      -- Retention and clears pass over pinned messages (retention/prune-writes.ts, retention/clear.ts).
      ALTER TABLE messages ADD COLUMN pinned INTEGER;
      -- pinned:true reads only the pinned rows, newest first, through this index (a few entries, none for
      -- an unpinned message: ingestion writes nothing more).
      CREATE INDEX messages_pinned ON messages (id) WHERE pinned = 1;
    `,
  },
  {
    version: 24,
    name: 'issues: failed and retrying deliveries grouped, their counts kept',
    sql: `
      -- Issue 29 (shared/channels/issues.ts). A group of the deliveries that failed or retry the same way:
      -- destination, URL, HTTP status (0: none) and error kind (store/issue-kind.ts), with its counts kept as
      -- deliveries come and go, so that the list reads these rows and never the deliveries. A delivery is in
      -- issue_deliveries while it is failed or retrying (not a test's): the writer puts it there as it records
      -- the round that failed (store/issue-writes.ts); the triggers below move its count between failed and
      -- retrying and take it out when it leaves both (delivered, cancelled, deleted), and close the group
      -- (closed_at) when its last one leaves. A delivery sent at the first try (the common path) writes
      -- nothing here: both triggers stop at their WHEN on its old status. IF NOT EXISTS and the groups made
      -- again: a store whose version was set back (as tests make an older store) has them already.
      CREATE TABLE IF NOT EXISTS issues (
        id INTEGER PRIMARY KEY,
        destination_id INTEGER NOT NULL,
        url TEXT NOT NULL,                       -- '' when the round sent nothing (a transform failed)
        http_status INTEGER NOT NULL,            -- 0: no answer
        error_kind TEXT NOT NULL,
        error TEXT NOT NULL,                     -- the latest failure's sentence
        failed INTEGER NOT NULL DEFAULT 0,
        retrying INTEGER NOT NULL DEFAULT 0,
        seen INTEGER NOT NULL DEFAULT 0,         -- deliveries that joined
        first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        closed_at INTEGER,                       -- NULL while failed + retrying > 0
        UNIQUE (destination_id, url, http_status, error_kind)
      );
      CREATE TABLE IF NOT EXISTS issue_deliveries (
        delivery_id INTEGER PRIMARY KEY,
        issue_id INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS issue_deliveries_issue ON issue_deliveries (issue_id, delivery_id);
${ISSUE_TRIGGERS}      -- The failed and retrying deliveries stored before: each grouped by the last attempt of the round that
      -- left it so (its outcome says: retry, final), else by its own error (the round sent nothing).
      DELETE FROM issue_deliveries;
      DELETE FROM issues;
      CREATE TEMP TABLE issue_backfill AS
        WITH open AS (
          SELECT d.id, d.destination_id, d.status, d.last_error, d.transform_run, coalesce(d.first_attempt_at, d.updated_at) AS first_at, d.updated_at,
            CASE d.status WHEN 'retrying' THEN 'retry' ELSE 'final' END AS outcome,
            (SELECT max(a.id) FROM attempts a WHERE a.delivery_id = d.id) AS attempt_id,
            (SELECT max(f.request_id) FROM forward_attempts f WHERE f.delivery_id = d.id) AS request_id
          FROM deliveries d WHERE d.status IN ('retrying', 'failed') AND d.trigger <> 'test'
        ), last AS (
          SELECT o.*, CASE WHEN r.id IS NOT NULL THEN r.url ELSE a.url END AS url,
            CASE WHEN r.id IS NOT NULL THEN coalesce(f.error_code, r.error_code) ELSE a.error_code END AS code,
            CASE WHEN r.id IS NOT NULL THEN r.response_status ELSE a.response_status END AS answered,
            CASE WHEN r.id IS NOT NULL THEN coalesce(f.error_message, r.error_message) ELSE a.error_message END AS message,
            CASE WHEN r.id IS NOT NULL THEN r.started_at ELSE a.started_at END AS tried_at
          FROM open o
          LEFT JOIN forward_attempts f ON f.delivery_id = o.id AND f.request_id = o.request_id AND f.outcome = o.outcome
          LEFT JOIN forward_requests r ON r.id = f.request_id
          LEFT JOIN attempts a ON f.delivery_id IS NULL AND a.id = o.attempt_id AND a.outcome = o.outcome
        )
        SELECT id, destination_id, status, first_at, coalesce(tried_at, updated_at) AS at,
          coalesce(url, '') AS url,
          CASE WHEN url IS NOT NULL AND code = 'http' THEN coalesce(answered, 0) ELSE 0 END AS http_status,
          CASE WHEN url IS NULL THEN sluice_issue_kind(NULL, NULL, last_error, transform_run) ELSE sluice_issue_kind(code, answered, message, NULL) END AS kind,
          coalesce(CASE WHEN url IS NULL THEN last_error ELSE message END, last_error, 'failed without an error recorded') AS error
        FROM last;
      INSERT INTO issues (destination_id, url, http_status, error_kind, error, failed, retrying, seen, first_seen, last_seen)
        SELECT destination_id, url, http_status, kind, '', sum(status = 'failed'), sum(status = 'retrying'), count(*), min(first_at), max(at)
        FROM issue_backfill GROUP BY destination_id, url, http_status, kind;
      INSERT INTO issue_deliveries (delivery_id, issue_id)
        SELECT b.id, i.id FROM issue_backfill b
        JOIN issues i ON i.destination_id = b.destination_id AND i.url = b.url AND i.http_status = b.http_status AND i.error_kind = b.kind;
      UPDATE issues SET error = (SELECT b.error FROM issue_deliveries m JOIN issue_backfill b ON b.id = m.delivery_id
        WHERE m.issue_id = issues.id ORDER BY b.at DESC, b.id DESC LIMIT 1);
      DROP TABLE issue_backfill;
    `,
  },
  {
    version: 25,
    name: "issues: ids never given twice; a deleted destination's groups closed",
    sql: `
      -- Issue 29. A group's id is what a bulk retry walks and what an inspector's issue:<id> search names:
      -- given again after a reset emptied the table (max(id) + 1 is 1 again), a retry or a search of the old
      -- group 3 would act on a new, unrelated group 3. AUTOINCREMENT never gives an id twice (sqlite_sequence
      -- keeps the highest, and a reset does not clear it), so the table is rebuilt with it, its rows and ids
      -- copied (a few hundred rows). The triggers naming it are made again around the rebuild. Run again on a
      -- store whose version was set back (as tests make an older store), it rebuilds the same table again.
      DROP TRIGGER IF EXISTS issue_deliveries_moved;
      DROP TRIGGER IF EXISTS issue_deliveries_gone;
      CREATE TABLE issues_rebuilt (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        destination_id INTEGER NOT NULL,
        url TEXT NOT NULL,                       -- '' when the round sent nothing (a transform failed)
        http_status INTEGER NOT NULL,            -- 0: no answer
        error_kind TEXT NOT NULL,
        error TEXT NOT NULL,                     -- the latest failure's sentence
        failed INTEGER NOT NULL DEFAULT 0,
        retrying INTEGER NOT NULL DEFAULT 0,
        seen INTEGER NOT NULL DEFAULT 0,         -- deliveries that joined
        first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        closed_at INTEGER,                       -- NULL while failed + retrying > 0
        UNIQUE (destination_id, url, http_status, error_kind)
      );
      INSERT INTO issues_rebuilt (id, destination_id, url, http_status, error_kind, error, failed, retrying, seen, first_seen, last_seen, closed_at)
        SELECT id, destination_id, url, http_status, error_kind, error, failed, retrying, seen, first_seen, last_seen, closed_at FROM issues;
      DROP TABLE issues;
      ALTER TABLE issues_rebuilt RENAME TO issues;
${ISSUE_TRIGGERS}
      -- A deleted destination's failed deliveries are nothing the user can act on any more (a retry skips
      -- them: store/delivery-writes.ts), so its groups close when it is deleted (store/issue-writes.ts,
      -- closeIssuesOf); those migration 24 grouped, or the writer kept open, close here, when it was deleted.
      DELETE FROM issue_deliveries WHERE issue_id IN
        (SELECT i.id FROM issues i JOIN destinations d ON d.id = i.destination_id WHERE d.deleted_at IS NOT NULL);
      UPDATE issues SET failed = 0, retrying = 0,
          closed_at = max(last_seen, (SELECT deleted_at FROM destinations d WHERE d.id = issues.destination_id))
        WHERE closed_at IS NULL AND destination_id IN (SELECT id FROM destinations WHERE deleted_at IS NOT NULL);
    `,
  },
  {
    version: 26,
    name: "the delivery overview's counts of deliveries made written once per group; no index entry moved on the common path",
    sql: `
      -- Issue 26 (npm run bench -- write-cost). The store's writer counts the automatic deliveries it makes in
      -- memory and writes each hour's count once per group of commits (store/delivery-hours.ts), where
      -- delivery_hours_made wrote an upsert per delivery. Moves and removals are still counted here, now with
      -- upserts of -1 and +1, which commute with the writer's upserts in the same transaction (an UPDATE of a
      -- row the writer has not written yet would be lost). IF EXISTS: a store whose version was set back (as
      -- tests make an older store) makes migration 22's triggers again before this runs.
      DROP TRIGGER IF EXISTS delivery_hours_made;
      DROP TRIGGER IF EXISTS delivery_hours_moved;
      DROP TRIGGER IF EXISTS delivery_hours_gone;
      CREATE TRIGGER delivery_hours_moved AFTER UPDATE OF status, skip_reason ON deliveries
        WHEN new.trigger = 'automatic' AND (old.status IS NOT new.status OR old.skip_reason IS NOT new.skip_reason) BEGIN
        INSERT INTO delivery_hours (destination_id, hour, status, skip_reason, n)
          VALUES (old.destination_id, old.created_at / 3600000, old.status, coalesce(old.skip_reason, ''), -1)
          ON CONFLICT (destination_id, hour, status, skip_reason) DO UPDATE SET n = n - 1;
        INSERT INTO delivery_hours (destination_id, hour, status, skip_reason, n)
          VALUES (new.destination_id, new.created_at / 3600000, new.status, coalesce(new.skip_reason, ''), 1)
          ON CONFLICT (destination_id, hour, status, skip_reason) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER delivery_hours_gone AFTER DELETE ON deliveries WHEN old.trigger = 'automatic' BEGIN
        INSERT INTO delivery_hours (destination_id, hour, status, skip_reason, n)
          VALUES (old.destination_id, old.created_at / 3600000, old.status, coalesce(old.skip_reason, ''), -1)
          ON CONFLICT (destination_id, hour, status, skip_reason) DO UPDATE SET n = n - 1;
      END;
      -- deliveries_funnel (migration 22) moved each delivery's entry as its state moved: in among its
      -- destination's pending entries when made, then across to its delivered ones, on a page of their own
      -- per destination and commit. Now it holds no delivered delivery: a delivery sent at the first try has an
      -- entry while it is pending (few, on few pages), none after. deliveries_made holds every automatic
      -- delivery once, by the time it was made, its destination after (a group's new entries share the index's
      -- right edge); a window's delivered deliveries are the ones made less the ones in the funnel
      -- (store/delivery-funnel.ts). The query language's rare steps, none of them delivered, read the funnel as
      -- before (store/message-query-sql.ts names its WHERE, so that the planner may).
      DROP INDEX IF EXISTS deliveries_funnel;
      CREATE INDEX deliveries_funnel ON deliveries (trigger, destination_id, status, created_at, skip_reason) WHERE status <> 'delivered';
      CREATE INDEX IF NOT EXISTS deliveries_made ON deliveries (created_at, destination_id) WHERE trigger = 'automatic';
    `,
  },
  {
    version: 27,
    name: "a delivery's body recorded by reference to its message",
    sql: `
      -- Issue 26 (npm run bench -- latency): every round's body was stored whole on its delivery, a copy of the
      -- message per destination. When the body is what the builder makes of the stored message in a shape (no
      -- filter, no transform, no body of its own), the writer now stores only the shape, and body stays NULL;
      -- reads build it again (store/delivery-bodies.ts). NULL: the body column says it all, as before.
      ALTER TABLE deliveries ADD COLUMN body_shape TEXT;
    `,
  },
  {
    version: 28,
    name: 'the oldest request a message Sluice made still uses',
    sql: `
      -- Pruning removes the requests older than the oldest one a message left uses (retention/prune-writes.ts).
      -- A client's messages use their requests in the order both were stored, but a message Sluice made (a
      -- Violation Generated event, an audience sync's identify) may use a request of its own made earlier in its
      -- unit than the message before it: pruning took such a request from the messages after it (their batch's
      -- context, sentAt and loop chain lost, and the bodies rebuilt from them wrong). This index holds only those
      -- messages (an index write for them, none for a client's), so their oldest request is one lookup.
      CREATE INDEX IF NOT EXISTS messages_made_request ON messages (request_id) WHERE origin <> 'ingest' AND request_id IS NOT NULL;
    `,
  },
  {
    version: 29,
    name: 'a failure a replay superseded leaves its Issues group',
    sql: `
      -- Issues groups counted a failed (or retrying) delivery after a replay of its message to the same destination
      -- and lane had delivered it, or had failed in its own right (counted twice): the group stayed open with
      -- nothing the user could act on. The writer now takes them out as the replay is created (store/issue-writes.ts
      -- issueLeaver); this does the same for what is stored, and counts each open group again from its members.
      DELETE FROM issue_deliveries WHERE delivery_id IN (SELECT d.id FROM issue_deliveries m JOIN deliveries d ON d.id = m.delivery_id
        WHERE d.message_id IS NOT NULL AND EXISTS (SELECT 1 FROM deliveries later WHERE later.message_id = d.message_id
          AND later.destination_id = d.destination_id AND later.id > d.id AND (later.target_url IS NULL) = (d.target_url IS NULL)));
      UPDATE issues SET
          failed = (SELECT count(*) FROM issue_deliveries m JOIN deliveries d ON d.id = m.delivery_id WHERE m.issue_id = issues.id AND d.status = 'failed'),
          retrying = (SELECT count(*) FROM issue_deliveries m JOIN deliveries d ON d.id = m.delivery_id WHERE m.issue_id = issues.id AND d.status = 'retrying')
        WHERE closed_at IS NULL;
      UPDATE issues SET closed_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE closed_at IS NULL AND failed + retrying = 0;
    `,
  },
  {
    version: 30,
    name: 'the destinations each audience sent a user to, kept past retention',
    sql: `
      -- A deletion request notifies the destinations an audience sent the user to (0be353b), found through the
      -- syncs' record of the identifies they stored (audience_sync_messages) — which goes with those messages
      -- when retention prunes them or a clear takes them: after that a destination that had the user's data was
      -- not told to delete it. One row per user, source and destination an audience's sync sent them to,
      -- written as it sends (audiences/audience-writer.ts), whatever later happens to the audience (edited to
      -- other destinations, deleted), taken by a purge of the user in that source, or a reset.
      CREATE TABLE IF NOT EXISTS audience_sent_users (
        user_id TEXT NOT NULL,
        source_id INTEGER NOT NULL,
        destination_id INTEGER NOT NULL,
        PRIMARY KEY (user_id, source_id, destination_id)
      ) WITHOUT ROWID;
      INSERT OR IGNORE INTO audience_sent_users (user_id, source_id, destination_id)
        SELECT DISTINCT s.user_id, a.source_id, d.destination_id FROM audience_sync_messages s
          JOIN audience_syncs y ON y.id = s.sync_id JOIN audiences a ON a.id = y.audience_id
          JOIN deliveries d ON d.message_id = s.message_id;
    `,
  },
];

export function migrate(db: DatabaseSync): number {
  // Two migrations given one version (two changes landing at once) would skip the second on every store.
  MIGRATIONS.forEach((migration, i) => {
    const before = MIGRATIONS[i - 1];
    if (before && migration.version <= before.version) {
      throw new Error(`schema migration ${migration.version} (${migration.name}) follows ${before.version} (${before.name}): each migration needs a higher version`);
    }
  });
  const current = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(
      `the data folder was written by a newer Sluice (schema ${current}, this build knows ${latest}); upgrade Sluice or use another --data-dir`,
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    try {
      transaction(db, () => {
        db.exec(migration.sql);
        db.exec(`PRAGMA user_version = ${migration.version}`);
      });
    } catch (error) {
      throw new Error(`schema migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`);
    }
  }
  return latest;
}
