// The inspector's storage parts that are plain logic, in Node: sizes and times in words, the last
// prune, the clear question for each scope (a stream filter in words), export and import outcomes,
// reading a dropped file within the channel's limit, and Settings' retention form checked with the
// core's own schema. The limits the renderer repeats are checked against shared/storage.ts.
import { describe, expect, it } from 'vitest';
import { EXPORT_MAX_MESSAGES as SHARED_EXPORT_MAX, IMPORT_MAX_CHARS as SHARED_IMPORT_MAX, type PruneReport } from '../../shared/storage.ts';
import { DEFAULT_RETENTION } from '../../shared/retention.ts';
import { NO_FILTERS, type Filters } from '../../renderer/src/store/filters.ts';
import { clearOf, filteredSet } from '../../renderer/src/views/storage/filtered-set.ts';
import { carriesFiles, importCommand, readImportFile, sizeVerdict } from '../../renderer/src/views/storage/import-file.ts';
import { EXPORT_MAX_MESSAGES, IMPORT_MAX_CHARS } from '../../renderer/src/views/storage/limits.ts';
import {
  agoWords,
  clearDone,
  clearQuestion,
  exportDone,
  formatBytes,
  formatFigure,
  importWords,
  limitWords,
  messageTime,
  pruneWords,
} from '../../renderer/src/views/storage/storage-words.ts';
import { checkForm, formOf, issuesToErrors, parseNumber, sameRetention } from '../../renderer/src/views/settings/retention-form.ts';

const MB = 1024 ** 2;
const GB = 1024 ** 3;
const NOW = Date.UTC(2026, 10, 25, 18, 0, 0);

describe('sizes, counts and times in words', () => {
  it('says bytes in binary units, three significant figures at most', () => {
    expect([0, 512, 1024, 1536, 12.34 * 1024, 245 * MB + 1, 12.34 * MB, 2 * GB, 1.5 * GB, 1024 * GB].map(formatBytes)).toEqual([
      '0 B',
      '512 B',
      '1 KB',
      '1.5 KB',
      '12.3 KB',
      '245 MB',
      '12.3 MB',
      '2 GB',
      '1.5 GB',
      '1 TB',
    ]);
    expect(formatBytes(-1)).toBe('—');
  });

  it('marks estimated counts', () => {
    expect(formatFigure(12_345, false)).toBe('12,345');
    expect(formatFigure(12_300_000, true)).toBe('≈ 12,300,000');
  });

  it('says how long ago, in days and years past a day', () => {
    const ago = (ms: number) => agoWords(NOW - ms, NOW);
    expect([0, 12_000, 4 * 60_000, 3 * 3_600_000, 86_400_000, 5 * 86_400_000, 400 * 86_400_000, 800 * 86_400_000].map(ago)).toEqual([
      'just now',
      '12 s ago',
      '4 min ago',
      '3 h ago',
      '1 day ago',
      '5 days ago',
      '1 year ago',
      '2 years ago',
    ]);
    expect(agoWords(NOW + 1500, NOW)).toBe('just now'); // the page's clock ticks once a second
    expect(agoWords(NOW + 61_000, NOW)).toBe('in the future (check the clock)');
  });

  it('gives a message time as local time to the minute and how long ago', () => {
    const at = new Date(2026, 10, 20, 14, 3, 59).getTime();
    expect(messageTime(at, at + 5 * 86_400_000)).toBe('2026-11-20 14:03 · 5 days ago');
    expect(messageTime(null, NOW)).toBe('none stored');
  });

  it('says retention limits in their units', () => {
    expect(limitWords('maxAgeDays', 30)).toBe('30 days');
    expect(limitWords('maxAgeDays', 1)).toBe('1 day');
    expect(limitWords('maxMessages', 1_000_000)).toBe('1,000,000 messages');
    expect(limitWords('maxBytes', 2 * GB)).toBe('2 GB');
    expect(limitWords('maxBytes', null)).toBe('no limit');
  });
});

describe('the last prune', () => {
  const report = (extra: Partial<PruneReport>): PruneReport => ({ at: NOW - 120_000, messages: 12_000, deliveries: 12_400, attempts: 13_050, reason: 'maxAgeDays', keptPending: 0, tookMs: 800, ...extra });

  it('names the limit it pruned for, what went with the messages, when, and what it kept', () => {
    expect(pruneWords(report({ keptPending: 3 }), DEFAULT_RETENTION, NOW)).toBe(
      'removed 12,000 messages older than 30 days with 12,400 deliveries and 13,050 attempts, 2 min ago; kept 3 still being delivered',
    );
    expect(pruneWords(report({ reason: 'maxMessages', messages: 1, deliveries: 1, attempts: 1 }), DEFAULT_RETENTION, NOW)).toBe(
      'removed 1 message over the limit of 1,000,000 messages with 1 delivery and 1 attempt, 2 min ago',
    );
    expect(pruneWords(report({ reason: 'maxBytes' }), DEFAULT_RETENTION, NOW)).toContain('to keep the database under 2 GB with');
    expect(pruneWords(report({ reason: 'clear' }), DEFAULT_RETENTION, NOW)).toBe('cleared 12,000 messages with 12,400 deliveries and 13,050 attempts, 2 min ago');
    expect(pruneWords(report({ messages: 0, keptPending: 5 }), { ...DEFAULT_RETENTION, maxAgeDays: null }, NOW)).toBe(
      'removed no messages older than the age limit, 2 min ago; kept 5 still being delivered',
    );
  });
});

describe('clearing, asked first', () => {
  const sources = new Map([[1, 'web'], [2, 'ios app']]);
  const name = (id: number) => sources.get(id) ?? `#${id}`;
  const time = (ms: number) => new Date(ms).toISOString();

  it('asks with the count, saying what goes with the messages and that it cannot be undone', () => {
    expect(clearQuestion({ kind: 'source', name: 'web' }, 12_345)).toEqual({
      text: 'Remove 12,345 messages of web, with their deliveries and attempts? Deliveries still pending are cancelled. This cannot be undone.',
      button: 'Remove 12,345 messages',
    });
    expect(clearQuestion({ kind: 'all' }, 2).text).toMatch(/^Remove all 2 messages, with their deliveries/);
    expect(clearQuestion({ kind: 'all' }, 1)).toEqual({
      text: 'Remove the only stored message, with its delivery and attempts? Deliveries still pending are cancelled. This cannot be undone.',
      button: 'Remove 1 message',
    });
    expect(clearQuestion({ kind: 'source', name: 'web' }, 0)).toEqual({ text: 'No messages of web are stored: nothing to remove.', button: null });
  });

  it('names a stream filter in words, and takes the filter a replay takes, ending now at the latest', () => {
    const filters: Filters = { ...NO_FILTERS, type: 'track', status: 'failed', sourceId: 2, search: ' alice ', time: { kind: 'last', ms: 3_600_000 }, event: 'Order Completed' };
    const set = filteredSet(filters, name, NOW, time);
    expect(set.filter).toEqual({ type: 'track', sourceId: 2, search: 'alice', status: 'accepted', delivery: 'failed', event: 'Order Completed', from: NOW - 3_600_000, to: NOW });
    expect(set.words).toBe('type track · event “Order Completed” · failed · source ios app · search “alice” · last 1 h');
    const { scope, what } = clearOf(set);
    expect(scope).toEqual({ filter: set.filter });
    expect(clearQuestion(what, 3).text).toBe(
      'Remove 3 messages matching type track · event “Order Completed” · failed · source ios app · search “alice” · last 1 h, with their deliveries and attempts? Deliveries still pending are cancelled. This cannot be undone.',
    );
    // A fixed range keeps its end when it is past; one in the future ends now.
    expect(filteredSet({ ...NO_FILTERS, time: { kind: 'between', from: 5, to: 10 } }, name, NOW, time).filter).toEqual({ from: 5, to: 10 });
    expect(filteredSet({ ...NO_FILTERS, time: { kind: 'between', from: null, to: NOW + 1e6 } }, name, NOW, time).filter).toEqual({ to: NOW });
    expect(clearQuestion(clearOf(filteredSet({ ...NO_FILTERS, time: { kind: 'between', from: 5, to: 10 } }, name, NOW, time)).what, 0).text).toBe(
      `No stored message matches received ${time(5)} – ${time(10)}: nothing to remove.`,
    );
  });

  it('with no filters, asks about every message (and still ends now)', () => {
    const set = filteredSet(NO_FILTERS, name, NOW);
    expect(set.filter).toEqual({ to: NOW });
    expect(clearOf(set).what).toEqual({ kind: 'all' });
  });

  it('says what a clear removed and what the file gave back', () => {
    expect(clearDone({ messages: 12_345, deliveries: 12_345, attempts: 13_002, bytesFreed: 45.2 * MB, dryRun: false })).toBe(
      'Removed 12,345 messages (with 12,345 deliveries and 13,002 attempts); 45.2 MB freed on disk.',
    );
    expect(clearDone({ messages: 1, deliveries: 0, attempts: 0, bytesFreed: 0, dryRun: false })).toBe(
      'Removed 1 message (with 0 deliveries and 0 attempts); the file kept its size (its free space is reused for new messages).',
    );
    expect(clearDone({ messages: 0, deliveries: 0, attempts: 0, bytesFreed: 0, dryRun: false })).toBe('Nothing was removed (the messages had gone already).');
  });
});

describe('export and import outcomes', () => {
  it('says what a download holds, and when it was cut short', () => {
    const file = { fileName: 'sluice-2026-11-25T18-00.ndjson', mimeType: 'application/x-ndjson', text: '', messages: 1234, truncated: false };
    expect(exportDone(file, 'ndjson', EXPORT_MAX_MESSAGES)).toBe('Saved 1,234 messages to sluice-2026-11-25T18-00.ndjson.');
    expect(exportDone({ ...file, fileName: 'a.har', truncated: true, messages: 100_000 }, 'har', EXPORT_MAX_MESSAGES)).toBe(
      'Saved 100,000 requests to a.har. More requests match than one download holds (100,000): run sluice export in a terminal for all of them.',
    );
    expect(exportDone({ ...file, fileName: 'a.har', messages: 0 }, 'har', EXPORT_MAX_MESSAGES)).toBe('Sluice made no request for these messages: a.har holds none.');
    expect(exportDone({ ...file, truncated: true, messages: 100_000 }, 'ndjson', EXPORT_MAX_MESSAGES)).toMatch(/^Saved 100,000 messages to .* More messages match than/);
    expect(exportDone({ ...file, messages: 0 }, 'ndjson', EXPORT_MAX_MESSAGES)).toBe('No message matches: sluice-2026-11-25T18-00.ndjson is empty.');
    // Cut before the count, at the download's size: a few very large messages.
    expect(exportDone({ ...file, truncated: true, messages: 812 }, 'ndjson', EXPORT_MAX_MESSAGES)).toBe(
      'Saved 812 messages to sluice-2026-11-25T18-00.ndjson. More messages match than one download holds (256 MB of text): run sluice export in a terminal for all of them.',
    );
  });

  it('says what ingestion accepted, the first refusals and unreadable lines with their numbers', () => {
    const none = { refusedAgain: 0, unreadableCount: 0, unreadable: [], skipped: [] };
    const refused = Array.from({ length: 7 }, (_, i) => ({ line: i + 10, reason: `bad ${i}` }));
    const words = importWords({ ...none, format: 'ndjson', sent: 120, accepted: 113, refusedCount: 7, refused, unreadableCount: 1, unreadable: [{ line: 4, reason: 'not JSON' }] });
    expect(words.summary).toBe('NDJSON file: Accepted 113 messages of 120 sent; refused 7; 1 line not read.');
    expect(words.notes).toEqual([]);
    // The core lists the first refusals and lines only: the counts are its own, whole.
    expect(importWords({ ...none, format: 'ndjson', sent: 500, accepted: 100, refusedCount: 400, refused: refused.slice(0, 2) })).toMatchObject({
      summary: 'NDJSON file: Accepted 100 messages of 500 sent; refused 400.',
      more: 'and 398 more not shown',
    });
    const lines = Array.from({ length: 20 }, (_, i) => ({ line: i + 1, reason: 'not JSON' }));
    expect(importWords({ ...none, format: 'ndjson', sent: 0, accepted: 0, refusedCount: 0, refused: [], unreadableCount: 500, unreadable: lines })).toMatchObject({
      summary: 'NDJSON file: Accepted 0 messages of 0 sent; 500 lines not read.',
      more: 'and 495 more not shown',
    });
    expect(words.refused).toEqual(['line 10: bad 0', 'line 11: bad 1', 'line 12: bad 2', 'line 13: bad 3', 'line 14: bad 4']);
    expect(words.unreadable).toEqual(['line 4: not JSON']);
    expect(words.more).toBe('and 2 more not shown');
    const har = importWords({ ...none, format: 'har', sent: 3, accepted: 3, refusedCount: 1, refused: [{ line: null, reason: 'batch too big' }] });
    expect(har).toEqual({ summary: 'HAR file: Accepted 3 messages of 3 sent; refused 1.', notes: [], refused: ['batch too big'], unreadable: [], more: null });
  });

  it('says what was not sent and why, and what was refused again as the export says, apart from what was refused', () => {
    const words = importWords({
      format: 'ndjson', sent: 3, accepted: 0, refusedCount: 0, refused: [], refusedAgain: 3, unreadableCount: 0, unreadable: [],
      skipped: [{ reason: 'sluice-made', count: 2 }, { reason: 'not-tracking-api', count: 1 }],
    });
    expect(words.summary).toBe('NDJSON file: Accepted 0 messages of 3 sent.');
    expect(words.notes).toEqual([
      '3 refused again, as the export says they were the first time (not counted as refused).',
      "2 not sent: made by Sluice itself (audience syncs' identifies, Violation Generated events); the relay makes its own.",
      '1 HAR entry skipped: not a POST to the Tracking API (/v1/batch, /v1/track, …).',
    ]);
    expect(words.more).toBeNull();
  });
});

describe('reading a dropped file', () => {
  const file = (name: string, text: string, size = Buffer.byteLength(text)) => ({ name, size, text: async () => text });

  it('repeats the contract’s limits', () => {
    expect(IMPORT_MAX_CHARS).toBe(SHARED_IMPORT_MAX);
    expect(EXPORT_MAX_MESSAGES).toBe(SHARED_EXPORT_MAX);
  });

  it('reads a file within the limit, counts one that may fit, and refuses one that cannot without reading it', async () => {
    expect(sizeVerdict(100, 100)).toBe('fits');
    expect(sizeVerdict(101, 100)).toBe('count');
    expect(sizeVerdict(300, 100)).toBe('count');
    expect(sizeVerdict(301, 100)).toBe('too-big');
    expect(await readImportFile(file('a.ndjson', '{"type":"track"}\n'))).toEqual({ ok: true, name: 'a.ndjson', text: '{"type":"track"}\n' });
    // 60 bytes of UTF-8, 20 characters: fits a limit of 50 characters.
    const accents = 'ééééééééééééééééééé\n'.replace(/é/g, '€');
    expect(Buffer.byteLength(accents)).toBe(58);
    expect((await readImportFile(file('e.ndjson', accents), 50)).ok).toBe(true);
    const big = await readImportFile(file('big file.ndjson', 'x'.repeat(60)), 50);
    expect(big).toEqual({ ok: false, name: 'big file.ndjson', message: 'big file.ndjson is 60 B (60 characters): a file imported here may be at most 50 B. Import it from a terminal instead: sluice import "big file.ndjson"' });
    let read = false;
    const huge = await readImportFile({ name: 'huge.har', size: 40 * MB * 3, text: async () => ((read = true), '') });
    expect(read).toBe(false);
    expect(huge.ok ? '' : huge.message).toBe('huge.har is 120 MB: a file imported here may be at most 16 MB. Import it from a terminal instead: sluice import huge.har');
  });

  it('refuses an empty or blank file and says why a file could not be read', async () => {
    expect(await readImportFile(file('e.ndjson', ''))).toEqual({ ok: false, name: 'e.ndjson', message: 'e.ndjson is empty: nothing to import.' });
    expect((await readImportFile(file('b.ndjson', '  \n\n'))).ok).toBe(false);
    const broken = await readImportFile({ name: 'x.json', size: 3, text: async () => Promise.reject(new Error('NotReadableError')) });
    expect(broken).toEqual({ ok: false, name: 'x.json', message: 'Could not read x.json: NotReadableError.' });
  });

  it('writes the command for a bigger file, quoting what a shell would split', () => {
    expect(importCommand('events.ndjson')).toBe('sluice import events.ndjson');
    expect(importCommand('my $events.ndjson', 'ios app')).toBe('sluice import "my \\$events.ndjson" --source "ios app"');
  });

  it('takes drags of files only', () => {
    expect(carriesFiles(['text/plain', 'Files'])).toBe(true);
    expect(carriesFiles(['text/uri-list'])).toBe(false);
    expect(carriesFiles(undefined)).toBe(false);
  });
});

describe('the retention form', () => {
  it('shows a retention in the fields’ units; a limit set to none keeps a number ready', () => {
    expect(formOf({ maxAgeDays: 30, maxMessages: null, maxBytes: 2 * GB })).toEqual({
      maxAgeDays: { none: false, value: '30' },
      maxMessages: { none: true, value: '1000000' },
      maxBytes: { none: false, value: '2048' },
    });
    expect(formOf({ maxAgeDays: 7, maxMessages: 5000, maxBytes: 20.5 * MB }).maxBytes.value).toBe('20.5');
  });

  it('reads typed numbers with separators, and MB as bytes', () => {
    expect(['1,000,000', '1 000 000', '1_000', ' 12 ', '1.5', '', '-3', '1e3', 'abc'].map(parseNumber)).toEqual([1_000_000, 1_000_000, 1000, 12, 1.5, null, null, null, null]);
    const form = formOf(DEFAULT_RETENTION);
    expect(checkForm({ ...form, maxBytes: { none: false, value: '16.5' }, maxMessages: { none: true, value: 'anything' } })).toEqual({
      ok: true,
      retention: { maxAgeDays: 30, maxMessages: null, maxBytes: Math.round(16.5 * MB) },
    });
  });

  it('says each field’s bounds, from the core’s schema, beside it', () => {
    const checked = checkForm({ maxAgeDays: { none: false, value: '0' }, maxMessages: { none: false, value: '999.5' }, maxBytes: { none: false, value: '15' } });
    expect(checked).toEqual({
      ok: false,
      errors: {
        maxAgeDays: 'Between 1 and 3,650 days, a whole number — or choose No limit.',
        maxMessages: 'Between 1,000 and 100,000,000 messages, a whole number — or choose No limit.',
        maxBytes: 'Between 16 MB and 1,024 TB — or choose No limit.',
      },
    });
    expect(checkForm({ ...formOf(DEFAULT_RETENTION), maxAgeDays: { none: false, value: 'soon' } })).toMatchObject({ ok: false, errors: { maxAgeDays: expect.stringMatching(/^Between 1 and/) } });
  });

  it('places the core’s issues beside their fields, the rest on the form', () => {
    expect(issuesToErrors([{ path: ['retention', 'maxMessages'], message: 'Too small: expected number to be >=1000' }, { path: [], message: 'odd' }], 'refused')).toEqual({
      maxMessages: 'Too small: expected number to be >=1000',
      form: 'odd',
    });
    expect(issuesToErrors(undefined, 'It was not saved: disconnected.')).toEqual({ form: 'It was not saved: disconnected.' });
  });

  it('knows an unchanged retention', () => {
    expect(sameRetention(DEFAULT_RETENTION, { ...DEFAULT_RETENTION })).toBe(true);
    expect(sameRetention(DEFAULT_RETENTION, { ...DEFAULT_RETENTION, maxBytes: null })).toBe(false);
  });
});
