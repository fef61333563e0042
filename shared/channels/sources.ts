/**
 * The contract's source channels: the app and its sources (`app.info`, `sources.save`), and each
 * source's composer client (`composer.*`, `samples.send`), which sends as an app would. Composed into
 * shared/contract.ts.
 */
import { z } from 'zod';
import type { ClientState } from '../client-state.ts';
import { MESSAGE_TYPES } from '../message-rules.ts';
import { sourceFieldsSchema, type SourceKind } from '../settings.ts';
import type { ReceiverDestination } from './receiver.ts';
import { recordId as id } from './record-id.ts';

export const sourceRequestSchemas = {
  'app.info': z.strictObject({}),
  /**
   * With `id`: edits that source (name, write key, kind; a new key refuses the old one at once).
   * Without: creates one. A source declared in the config file is refused (`declared_in_config`):
   * the file wins at every start. A taken name or write key is refused on its field.
   */
  'sources.save': sourceFieldsSchema.extend({ id: id.optional() }),
  /** Queue a message in the source's client (Sluice's client library), as an app would. */
  'composer.send': z.strictObject({
    sourceId: id,
    type: z.enum(MESSAGE_TYPES),
    fields: z.record(z.string(), z.unknown()),
  }),
  'composer.flush': z.strictObject({ sourceId: id }),
  'composer.state': z.strictObject({ sourceId: id }),
  /**
   * A handful of realistic messages through the source's composer client; when no enabled destination
   * receives the source, first a "Built-in receiver" destination (signed) — reused on repeats.
   */
  'samples.send': z.strictObject({ sourceId: id }),
} as const;

export interface SourceResponses {
  /** `dataDir`: where the store lives. */
  'app.info': { version: string; ingestUrl: string; receiverUrl: string; dataDir: string; sources: SourceView[] };
  'sources.save': SourceView;
  'composer.send': { queued: boolean; state: ComposerState };
  'composer.flush': ComposerState;
  'composer.state': ComposerState;
  'samples.send': {
    sent: number;
    /** Set when the call created the built-in receiver destination or connected the source to it. */
    destination: ReceiverDestination | null;
    state: ComposerState;
  };
}

/** The composer client's queue, for display: the client library's own state snapshot. */
export type ComposerState = ClientState;

export interface SourceView {
  id: number;
  name: string;
  writeKey: string;
  kind: SourceKind;
  /** Browser origins that may send with the key (the config's allowedOrigins); absent or null: any. */
  allowedOrigins?: string[] | null;
  /**
   * Set when the config file declares the source: the file's path (or "--config" when Sluice was
   * given the config without one). Such a source is read-only in the inspector: the file wins at
   * every start. Absent or null: created in the inspector, or by Sluice ("default").
   */
  fromConfig?: string | null;
}
