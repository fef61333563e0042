/**
 * The stream's data model and its reducers: plain TypeScript, no React, no DOM, so the unit tests run
 * them in Node. The big containers (`byId`, `known`, `deliveryOwner`, `counts`) belong to the model
 * and are updated in place, incrementally — never rebuilt from the whole list; each reducer returns a
 * new model object (with a new `rev`, and a new `order` array when the order changed) so React sees
 * the change. Row objects are immutable: a changed row is a new object, an unchanged one keeps its
 * identity, so only the rows that changed re-render.
 *
 * The list is sparse: `order` lists every row's id (a number each), `byId` holds only the rows worth
 * keeping in memory (the newest, and those around the view; see `evictRows`). A listed row that is not
 * loaded is fetched again by id when it comes into view, so a long live run keeps the heap flat.
 *
 * What the list is narrowed to (filters, time range) is in filters.ts; a row's outcome kind in outcome.ts.
 */
import type { DeliveryChange, DeliverySummary, MessageSummary } from '../../../shared/contract.ts';
import { shownDelivery, STATUS_WEIGHT } from '../../../shared/shown-delivery.ts';
import { matchesFilters, type Filters, type TimeRange } from './filters.ts';
import type { DeliveryState } from './delivery-words.ts';
import { OUTCOME_KINDS, outcomeOf, type OutcomeKind } from './outcome.ts';

export type { DeliveryChange };

export type { DeliveryState };

/** The state part of a change or a summary, as a plain object of its own. */
export function deliveryStateOf(d: DeliveryState): DeliveryState {
  return {
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.nextAttemptAt,
    lastError: d.lastError,
    lastErrorCode: d.lastErrorCode,
    lastHttpStatus: d.lastHttpStatus,
  };
}

export interface ListModel {
  /** Loaded rows: some of the listed ones (see `evictRows`). Owned by the model, updated in place. */
  readonly byId: Map<number, MessageSummary>;
  /** Listed row ids, newest first, loaded or not. A new array whenever it changes. */
  readonly order: readonly number[];
  /**
   * The deliveries seen so far for rows that have had a change (the summary names only the one it
   * shows); the row shows the one shared/shown-delivery.ts picks from them.
   */
  readonly known: Map<number, DeliverySummary[]>;
  /** delivery id → message id, for the loaded rows' known deliveries. */
  readonly deliveryOwner: Map<number, number>;
  /** Loaded rows by outcome. */
  readonly counts: Record<OutcomeKind, number>;
  /** Cursor for the next older page (`beforeId`), or null when there is none. */
  readonly next: number | null;
  /** Whether the first page has arrived. */
  readonly loaded: boolean;
  /** Changes whenever anything in the model does. */
  readonly rev: number;
}

function zeroCounts(): Record<OutcomeKind, number> {
  return Object.fromEntries(OUTCOME_KINDS.map((k) => [k, 0])) as Record<OutcomeKind, number>;
}

export function emptyList(): ListModel {
  return { byId: new Map(), order: [], known: new Map(), deliveryOwner: new Map(), counts: zeroCounts(), next: null, loaded: false, rev: 0 };
}

/** Merges ids (any order) into a newest-first order; ids already present are left out. */
export function mergeDescending(order: readonly number[], ids: readonly number[]): readonly number[] {
  if (ids.length === 0) return order;
  const fresh = [...ids].sort((a, b) => b - a);
  if (order.length === 0) return fresh;
  // Live rows are newer than everything loaded; older pages are older than everything loaded.
  if (fresh[fresh.length - 1]! > order[0]!) return fresh.concat(order);
  if (fresh[0]! < order[order.length - 1]!) return order.concat(fresh);
  const out: number[] = new Array(order.length + fresh.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < order.length && j < fresh.length) out[k++] = order[i]! > fresh[j]! ? order[i++]! : fresh[j++]!;
  while (i < order.length) out[k++] = order[i++]!;
  while (j < fresh.length) out[k++] = fresh[j++]!;
  return out;
}

function countRow(list: ListModel, row: MessageSummary, delta: 1 | -1): void {
  list.counts[outcomeOf(row)] += delta;
}

function indexDeliveries(list: ListModel, row: MessageSummary): void {
  if (row.delivery) list.deliveryOwner.set(row.delivery.id, row.id);
  for (const d of list.known.get(row.id) ?? []) list.deliveryOwner.set(d.id, row.id);
}

/** Whether `id` is in a newest-first order (binary search). */
export function isListed(order: readonly number[], id: number): boolean {
  if (order.length === 0 || id > order[0]!) return false;
  return order[newerThan(order, id)] === id;
}

/**
 * Adds rows: a page from the core (`check` null: the core filtered it) or live rows (`check`: the
 * filters they must match). Rows already loaded are replaced by the newer summary; listed rows that
 * were evicted are loaded again in place. Ids in `restoreOnly` were asked for to fill the view: they
 * are loaded only if still listed, never added.
 */
export function addRows(
  list: ListModel,
  rows: readonly MessageSummary[],
  check: Filters | null,
  now: number = Date.now(),
  restoreOnly: ReadonlySet<number> | null = null,
): ListModel {
  const added: number[] = [];
  let changed = false;
  for (const row of rows) {
    const current = list.byId.get(row.id);
    if (current) {
      if (sameRow(current, row)) continue;
      replaceRow(list, current, row);
      changed = true;
      continue;
    }
    if (isListed(list.order, row.id)) {
      list.byId.set(row.id, row);
      countRow(list, row, 1);
      indexDeliveries(list, row);
      changed = true;
      continue;
    }
    if (restoreOnly?.has(row.id)) continue;
    if (check && !matchesFilters(row, check, now)) continue;
    list.byId.set(row.id, row);
    countRow(list, row, 1);
    indexDeliveries(list, row);
    added.push(row.id);
  }
  if (added.length === 0 && !changed) return list;
  return { ...list, order: mergeDescending(list.order, added), rev: list.rev + 1 };
}

/** A loaded row takes a newer summary of it (its deliveries as the summary says: what was known of them is let go). */
function replaceRow(list: ListModel, current: MessageSummary, row: MessageSummary): void {
  countRow(list, current, -1);
  list.known.delete(row.id);
  list.byId.set(row.id, row);
  countRow(list, row, 1);
  indexDeliveries(list, row);
}

/**
 * Listed rows read again (after a re-check changed stored violations): a loaded row takes its new
 * summary in place, a row `keep` refuses leaves the list (loaded or not), nothing is added. The view
 * does not move: no row comes in above it, and a row left unloaded is read when it comes into view.
 */
export function refreshRows(list: ListModel, rows: readonly MessageSummary[], keep: (row: MessageSummary) => boolean): ListModel {
  let dropped: Set<number> | null = null;
  let changed = false;
  for (const row of rows) {
    if (!isListed(list.order, row.id)) continue;
    const current = list.byId.get(row.id);
    if (!keep(row)) {
      if (current) forgetRow(list, current);
      (dropped ??= new Set()).add(row.id);
      continue;
    }
    if (!current || sameRow(current, row)) continue;
    replaceRow(list, current, row);
    changed = true;
  }
  if (dropped === null && !changed) return list;
  const order = dropped === null ? list.order : list.order.filter((id) => !dropped.has(id));
  return { ...list, order, rev: list.rev + 1 };
}

function sameRow(a: MessageSummary, b: MessageSummary): boolean {
  const x = a.delivery;
  const y = b.delivery;
  return (
    a.status === b.status &&
    a.deliveryCount === b.deliveryCount &&
    a.violations === b.violations &&
    a.blocked === b.blocked &&
    a.pinned === b.pinned &&
    (x === y ||
      (x !== null &&
        y !== null &&
        x.id === y.id &&
        x.status === y.status &&
        x.attemptCount === y.attemptCount &&
        x.nextAttemptAt === y.nextAttemptAt &&
        x.lastError === y.lastError &&
        x.lastErrorCode === y.lastErrorCode &&
        x.lastHttpStatus === y.lastHttpStatus))
  );
}

/** The first page of a query, or an older page; `next` is the core's cursor. */
export function addPage(list: ListModel, rows: readonly MessageSummary[], next: number | null): ListModel {
  const updated = addRows(list, rows, null);
  return { ...updated, next, loaded: true, rev: updated.rev + 1 };
}

export interface ChangesOutcome {
  list: ListModel;
  /**
   * Rows whose change left them unsure, with other deliveries unseen (a less telling state, or a
   * replay that may be one of the unseen or a new one): fetch them again.
   */
  refetch: number[];
  /** Message ids of changes to rows that are not loaded. */
  unloaded: { messageId: number; status: string }[];
  /** Loaded rows the changes updated (each once): what they show may no longer match the filters. */
  updated: number[];
}

/**
 * Triggers of the deliveries made in the same write as their message (ingestion's, an audience
 * sync's): any such delivery existed when the row was read, so the row's summary counted it.
 */
const MADE_WITH_MESSAGE: ReadonlySet<string> = new Set(['automatic', 'audience']);

/**
 * Applies delivery changes to the loaded rows in place. A change older than what the row already
 * shows (fewer attempts) is ignored, so changes replayed after a fetch never move a row back.
 */
export function applyDeliveryChanges(list: ListModel, changes: readonly DeliveryChange[]): ChangesOutcome {
  const refetch = new Set<number>();
  const unloaded: { messageId: number; status: string }[] = [];
  const updatedRows = new Set<number>();
  for (const change of changes) {
    const owner = change.messageId ?? list.deliveryOwner.get(change.deliveryId);
    if (owner === undefined) continue;
    const row = list.byId.get(owner);
    if (!row) {
      unloaded.push({ messageId: owner, status: change.status });
      continue;
    }
    const known = list.known.get(owner) ?? (row.delivery ? [row.delivery] : []);
    const index = known.findIndex((d) => d.id === change.deliveryId);
    const previous = index >= 0 ? known[index]! : undefined;
    if (previous && previous.attemptCount > change.attemptCount) continue;
    const next: DeliverySummary = {
      id: change.deliveryId,
      ...deliveryStateOf(change),
      // A round that skipped it (a filter's or a transform's drop) says why; one created skipped keeps its reason.
      skipReason: change.status === 'skipped' ? (change.skipReason ?? previous?.skipReason ?? null) : null,
      shaping: change.shaping ?? previous?.shaping ?? null,
      destinationId: change.destinationId,
      trigger: change.trigger,
      targetUrl: change.targetUrl,
    };
    const deliveries = index >= 0 ? known.map((d, i) => (i === index ? next : d)) : [...known, next];
    // Deliveries of the row not seen here. An unknown delivery when there are none is a new one (a
    // replay just created); when there are some, it is taken for one of them (the count stays).
    const unseen = row.deliveryCount - known.length;
    // That guess is safe only for a delivery made with its message, which the row's summary counted.
    // Any other (a replay) may have been made since: counted as one of the unseen, a new one would
    // leave the count short, and once the count says all are known the row would trust a picture
    // that misses one (another destination's failure, say). Ask the core.
    const ambiguous = index < 0 && unseen > 0 && !MADE_WITH_MESSAGE.has(change.trigger);
    const deliveryCount = index < 0 && unseen <= 0 ? known.length + 1 : Math.max(row.deliveryCount, deliveries.length);
    list.known.set(owner, deliveries);
    list.deliveryOwner.set(change.deliveryId, owner);
    const shown = shownDelivery(deliveries);
    const updated: MessageSummary = { ...row, delivery: shown, deliveryCount };
    countRow(list, row, -1);
    list.byId.set(owner, updated);
    countRow(list, updated, 1);
    updatedRows.add(owner);
    // With deliveries unseen, the row is sure only while it shows the same delivery, no less telling:
    // the unseen ones rank below it. Otherwise one of them may be the one to show now, or may
    // supersede the delivery shown (a replay of it): ask the core.
    const before = row.delivery;
    const sure = before !== null && shown?.id === before.id && (STATUS_WEIGHT[shown.status] ?? 0) >= (STATUS_WEIGHT[before.status] ?? 0);
    if (unseen > 0 && (ambiguous || !sure)) refetch.add(owner);
  }
  const changed = updatedRows.size > 0;
  return { list: changed ? { ...list, rev: list.rev + 1 } : list, refetch: [...refetch], unloaded, updated: [...updatedRows] };
}

/** How many rows are newer than `id` in a newest-first order (binary search: ids grow with time). */
export function newerThan(order: readonly number[], id: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (order[mid]! > id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Rows the store no longer holds (pruned or cleared) leave the list, loaded or not; the cursor for
 * older pages stays (the core's pages skip what is gone).
 */
export function dropRows(list: ListModel, ids: readonly number[]): ListModel {
  const gone = new Set<number>();
  for (const id of ids) if (isListed(list.order, id)) gone.add(id);
  if (gone.size === 0) return list;
  for (const id of gone) {
    const row = list.byId.get(id);
    if (row) forgetRow(list, row);
  }
  return { ...list, order: list.order.filter((id) => !gone.has(id)), rev: list.rev + 1 };
}

/** Removes a row from the containers and counts (the caller rebuilds `order`). */
function forgetRow(list: ListModel, row: MessageSummary): void {
  countRow(list, row, -1);
  if (row.delivery) list.deliveryOwner.delete(row.delivery.id);
  for (const d of list.known.get(row.id) ?? []) list.deliveryOwner.delete(d.id);
  list.known.delete(row.id);
  list.byId.delete(row.id);
}

/**
 * Unloads the rows outside `keep` (index ranges [from, to) of `order`): they stay listed, and are
 * fetched again by id when they come into view. Runs over the loaded rows only, not the whole list.
 */
export function evictRows(list: ListModel, keep: readonly (readonly [number, number])[]): ListModel {
  // Index ranges as id ranges (order is newest first): kept ids lie in [low, high].
  const ranges: [number, number][] = [];
  for (const [from, to] of keep) {
    const start = Math.max(0, from);
    const end = Math.min(list.order.length, to);
    if (start < end) ranges.push([list.order[end - 1]!, list.order[start]!]);
  }
  let evicted = false;
  for (const [id, row] of list.byId) {
    let kept = false;
    for (let r = 0; r < ranges.length && !kept; r++) kept = id >= ranges[r]![0] && id <= ranges[r]![1];
    if (kept) continue;
    forgetRow(list, row);
    evicted = true;
  }
  return evicted ? { ...list, rev: list.rev + 1 } : list;
}

/** Keeps the newest `max` rows; the rest can be paged in again. */
export function trimList(list: ListModel, max: number): ListModel {
  if (list.order.length <= max) return list;
  const kept = list.order.slice(0, max);
  for (let i = max; i < list.order.length; i++) {
    const id = list.order[i]!;
    const row = list.byId.get(id);
    if (row) forgetRow(list, row);
  }
  return { ...list, order: kept, next: kept[kept.length - 1] ?? null, rev: list.rev + 1 };
}

/**
 * Drops the rows a sliding time range has left behind (received before `now − window`). Older pages
 * hold only older rows, so the cursor stops too once a row has gone. A listed row that is not loaded
 * goes when a newer loaded row has expired (ids grow with time); one older than every loaded row that
 * is still inside stays listed until it is loaded again (in view), and goes then.
 */
export function dropExpired(list: ListModel, range: TimeRange, now: number): ListModel {
  if (range.kind !== 'last') return list;
  const from = now - range.ms;
  let kept: number[] | null = null;
  for (let i = 0; i < list.order.length; i++) {
    const id = list.order[i]!;
    const row = list.byId.get(id);
    if (row ? row.receivedAt >= from : kept === null) {
      kept?.push(id);
      continue;
    }
    kept ??= list.order.slice(0, i);
    if (row) forgetRow(list, row);
  }
  if (kept === null) return list;
  return { ...list, order: kept, next: null, rev: list.rev + 1 };
}

/** The id `delta` rows away from `current` in the list (clamped), or the first row when none is selected. */
export function neighbour(order: readonly number[], current: number | null, delta: number): number | null {
  if (order.length === 0) return null;
  const index = current === null ? -1 : order.indexOf(current);
  if (index < 0) return order[0]!;
  return order[Math.min(order.length - 1, Math.max(0, index + delta))]!;
}
