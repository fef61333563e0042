/**
 * The contract's channels of Issues (`issues.*`, issue 29): failed and retrying deliveries grouped by
 * destination, URL, HTTP status (or none) and error kind, with counts and first/last seen; a retry of a
 * whole group, or of every failed or retrying delivery of a search's messages, as a job that moves on
 * in chunks and says how far it is with `issues.retryProgress` events. Composed into shared/contract.ts.
 *
 * A group is kept by the store as its deliveries change (store/issues-*.ts: counted on each move into
 * or out of failed/retrying, never by reading every failed delivery); it is *open* while it holds a
 * failed or retrying delivery, and closes itself (`closedAt`) when the last one is delivered, cancelled
 * or removed. A new failure with the same key opens the same group again (same id, `closedAt` back to
 * null, `seen` and `lastSeen` go on). A deleted destination's groups close as it is deleted (its failed
 * deliveries stay readable but are nothing the user can act on any more: a retry skips them), so `open`
 * counts only what a retry can reach; they stay listed as closed, under the destination's deleted name.
 * A group's id is never given to another group, even after a reset forgot every group. The list does not
 * change on an event of its own: read it again on `deliveries.changed` (at most about once a second) and
 * when a retry job finishes.
 */
import { z } from 'zod';
import { messageFilterSchema } from '../message-filter.ts';
import { recordId as id } from './record-id.ts';

/**
 * What went wrong, from the delivery's last attempt (its error code, status and message) or its last
 * round (a transform that failed): a small fixed set, so that one cause makes one group.
 * - `timeout`: no answer in time; `connection_refused`, `connection_reset`: the receiver's port or
 *   connection; `dns`: the host name did not resolve; `tls`: the TLS handshake or certificate;
 * - `http_4xx`, `http_5xx`: the receiver answered that status (the group's `status` says which);
 * - `transform`: the destination's transform failed or asked for a retry, nothing was sent;
 * - `too_large`: the body was refused as too large (HTTP 413, or by Sluice before sending);
 * - `other`: anything else (the `error` sentence says what).
 */
export const ISSUE_ERROR_KINDS = ['timeout', 'connection_refused', 'connection_reset', 'dns', 'tls', 'http_4xx', 'http_5xx', 'transform', 'too_large', 'other'] as const;
export type IssueErrorKind = (typeof ISSUE_ERROR_KINDS)[number];

export const ISSUE_STATES = ['open', 'closed', 'all'] as const;
export type IssueState = (typeof ISSUE_STATES)[number];

/** The most groups `issues.list` returns (the latest seen first). */
export const ISSUES_LIST_MAX = 500;

/** One group of deliveries that went wrong the same way. */
export interface IssueView {
  /** Stable: the same key keeps its id across restarts, closing and reopening; never another group's, even after a reset. */
  id: number;
  destinationId: number;
  /** Its name now (a deleted destination's last name). */
  destinationName: string;
  /** Where the attempts went: a webhook's URL, a replay's own URL, a Tracking API's endpoint; '' when nothing was sent (a transform failed). */
  url: string;
  /** The HTTP status answered; null: no answer (timeout, connection, DNS, TLS, transform). */
  status: number | null;
  errorKind: IssueErrorKind;
  /** One delivery's error as recorded (the latest one to join), e.g. "HTTP 503 Service Unavailable" or "connect ECONNREFUSED 127.0.0.1:4000". */
  error: string;
  /** failed + retrying: deliveries in the group now. 0: closed. */
  open: number;
  failed: number;
  retrying: number;
  /** Deliveries that ever joined the group (a delivery joins once however many times it retries; again after it left). */
  seen: number;
  /** ms since epoch: when a delivery first joined, and last joined. */
  firstSeen: number;
  lastSeen: number;
  /** ms since epoch: when its open count fell to 0; null while open. */
  closedAt: number | null;
  /** A query (shared/message-query.ts) that lists exactly the messages of the group's open deliveries in the stream: `issue:<id>`. */
  query: string;
}

/** How far a bulk retry is (the `issues.retryProgress` event, and `issues.retry`'s answer at its start). */
export interface IssueRetryProgress {
  /**
   * Unique per run of the relay, and across its runs: a core's ids count up from its start time in ms
   * × 1000 (a relay started again hands out none that a page saw before, and a later job has a higher
   * id). Not small: a page keys its jobs by it, and reads `issues.retries` again after a reconnect.
   */
  jobId: number;
  /** The group retried, or null for a retry by filter. */
  issueId: number | null;
  /** Deliveries looked at so far, of `total`. */
  done: number;
  /**
   * The failed or retrying deliveries to retry: a group's open count when the job started; a filter's, as
   * counted (state `counting`). Deliveries that join meanwhile may be retried too: `total` then grows with `done`.
   */
  total: number;
  /** Deliveries set to be sent again now (their outcome comes as `deliveries.changed`). */
  retried: number;
  /** Deliveries no longer failed or retrying when their turn came (delivered, cancelled, removed meanwhile). */
  skipped: number;
  /**
   * `counting`: a retry by filter first counts the deliveries it will retry (`total` grows, nothing is
   * retried yet); `running`: retrying, chunk by chunk; then `finished`, `cancelled` (issues.retryCancel,
   * a reset, or the relay closing) or `failed` (`error` says why).
   */
  state: 'counting' | 'running' | 'finished' | 'cancelled' | 'failed';
  /** Why it failed (state `failed`). */
  error?: string;
}

export const issueRequestSchemas = {
  /** The groups, the latest seen first (at most ISSUES_LIST_MAX). Read from the store's kept counts (nothing counted): under a millisecond at any size. */
  'issues.list': z.strictObject({
    state: z.enum(ISSUE_STATES, { error: `state must be one of ${ISSUE_STATES.join(', ')}` }).default('open'),
    destinationId: id.optional(),
  }),
  /** One group (e.g. after a reconnect, or an `issue:<id>` query typed by hand). */
  'issues.get': z.strictObject({ id }),
  /**
   * Retries every failed or retrying delivery of a group, or of the messages a filter picks (the
   * stream's search and filters, as replays and downloads take them; `destinationId` narrows to one
   * destination's deliveries), as a job in the background: each is set due now (a failed one gets one
   * more attempt: it fails again if that one fails). The delivery engine sends them at its own pace,
   * its per-destination limits and breakers still apply. Answers at once with the job's first progress.
   */
  'issues.retry': z.union([
    z.strictObject({ issueId: id }),
    z.strictObject({ filter: messageFilterSchema, destinationId: id.optional() }),
  ], { error: 'give issueId, or filter (with an optional destinationId)' }),
  /**
   * Stops a bulk retry under way between two chunks: the chunk being written still lands, and nothing
   * already retried is undone (those deliveries stay due). Answers once the job has ended, with its last
   * progress (`cancelled`, or `finished` when the stop came as its last chunk was written). A job that
   * already ended: `not_running`; an id no job had (or one ended long ago): `not_found`.
   */
  'issues.retryCancel': z.strictObject({ jobId: id }),
  /** The bulk retries under way (a page opened meanwhile shows their progress at once), then the last 10 ended, the latest first. */
  'issues.retries': z.strictObject({}),
} as const;

export interface IssueResponses {
  'issues.list': { issues: IssueView[]; /** Open groups in all (of every destination, or of `destinationId`). */ open: number };
  'issues.get': IssueView;
  'issues.retry': IssueRetryProgress;
  'issues.retryCancel': IssueRetryProgress;
  'issues.retries': { jobs: IssueRetryProgress[] };
}
