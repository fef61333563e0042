/**
 * Sluice's client library: queue analytics messages in memory and send them in batches to a
 * Segment-compatible endpoint (Sluice's own by default). Runs on Node.js 20 and later, from ES
 * modules and CommonJS, and depends on no package.
 *
 * ```ts
 * import { Client } from 'sluice/client';
 * ```
 * @packageDocumentation
 */
export { Client } from './client.ts';
export { ClientError, type ClientErrorCode } from './errors.ts';
export { DEFAULT_ENDPOINT, type ClientOptions } from './options.ts';
export type { ClientClock } from './clock.ts';
export type { BatchResult, ClientState, LastResult, RejectedMessage, StateListener } from '../../shared/client-state.ts';
export type {
  AliasParams,
  CommonFields,
  GroupParams,
  Id,
  Identity,
  IdentifyParams,
  Integrations,
  PageParams,
  PageTraits,
  ScreenParams,
  TrackParams,
} from './message-builder.ts';
export { LIBRARY } from './version.ts';
