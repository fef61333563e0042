/** The inspector store's state, what it needs from its surroundings, and the state it starts with. */
import type { StoreApi } from 'zustand/vanilla';
import type { DestinationView, MessageDetail, Responses } from '../../../../shared/contract.ts';
import type { ConnectionState } from '../../transport/relay-api.ts';
import { NO_FILTERS, type Filters } from '../filters.ts';
import { emptyList, type ListModel } from '../model.ts';

export interface DetailState {
  id: number;
  data: MessageDetail | null;
  error: string | null;
  loading: boolean;
  /**
   * The message went (retention, a clear, a purge, a reset): the error says so, nothing of it is
   * shown, and it is not read again — ids are given again once the newest messages went, and a new
   * message under its id must not take its place (nor what the pane does: replay, pin).
   */
  gone?: true;
}

export interface InspectorState {
  connection: ConnectionState;
  info: Responses['app.info'] | null;
  destinations: DestinationView[];
  /** A sentence when loading the app's info or the list failed. */
  problem: string | null;
  filters: Filters;
  list: ListModel;
  /** The list is loading its first page, or an older page. */
  loadingFirst: boolean;
  loadingOlder: boolean;
  /** Live rows are held back (the relay goes on); `held` messages arrived meanwhile. */
  paused: boolean;
  held: number;
  selectedId: number | null;
  detail: DetailState | null;
  /** Messages stored per second, recent. */
  rate: number;
  /** Every message stored, and those the filters match (inspector/counts.ts); null until counted. */
  counts: { total: number; matching: number } | null;
  counting: boolean;
  /**
   * The list starts away from the newest message (a jump to the oldest, to a time, or to a position —
   * the scrollbar dragged past the rows loaded): live rows are not added at its top, `newer` is the
   * cursor for the page above it (null: none left), `base` the position of its first row among the
   * matches (0 the newest; null while unknown).
   */
  jumped: { to: 'oldest' | 'position' | number; newer: number | null; base: number | null } | null;
  loadingNewer: boolean;
}

export type InspectorStore = StoreApi<InspectorState>;

export interface Environment {
  /** Runs `callback` before the next paint (a frame in a browser, or a timer while the page is hidden: see frame.ts). */
  requestFrame(callback: () => void): void;
  now(): number;
}

export function initialState(): InspectorState {
  return {
    connection: { kind: 'connecting' },
    info: null,
    destinations: [],
    problem: null,
    filters: NO_FILTERS,
    list: emptyList(),
    loadingFirst: true,
    loadingOlder: false,
    paused: false,
    held: 0,
    counts: null,
    counting: false,
    jumped: null,
    loadingNewer: false,
    selectedId: null,
    detail: null,
    rate: 0,
  };
}
