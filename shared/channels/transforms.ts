/**
 * The contract's channels of destination transforms and filters (`transforms.*`, issue 28): trying a
 * destination's filters and transform on a stored message (the inspector's "Try on this message" and
 * the transform editor's preview), reading and saving a transform's source. Composed into
 * shared/contract.ts.
 */
import { z } from 'zod';
import { destinationFiltersSchema, MAX_TRANSFORM_SOURCE } from '../destination-filters.ts';
import { recordId as id } from './record-id.ts';

const source = z.string().max(MAX_TRANSFORM_SOURCE, `a transform may be at most ${MAX_TRANSFORM_SOURCE / 1024} KB`);

export const transformRequestSchemas = {
  /**
   * What this destination would send for this stored message: its filters (or `filters`, unsaved) then
   * its transform (or `source`, an unsaved editor's text; `source: null` skips the transform). Nothing is
   * sent or stored.
   */
  'transforms.try': z.strictObject({
    messageId: id,
    destinationId: id,
    filters: destinationFiltersSchema.optional(),
    source: source.nullable().optional(),
  }),
  /** A destination's transform: its file, the file's text (what an editor opens), the version in use and why the text is not, if it is not. */
  'transforms.get': z.strictObject({ destinationId: id }),
  /**
   * Saves this source as the destination's transform, kept in the data folder (a destination whose
   * transform is a config's file gets its own copy there, the config's file left untouched). A source
   * that does not compile is refused with its line and column; `source: null` removes the transform.
   */
  'transforms.save': z.strictObject({ destinationId: id, source: source.nullable() }),
} as const;

/** The filter that decided a message's fate, by position in the destination's filters. */
export interface FilterDecision {
  /** From 0, in the destination's filters (the text counts from 1: filterDecisionText, shared/destination-filters.ts). */
  index: number;
  if: string;
  /** 'dropped' (drop, or sampled out), 'kept' (sampled in), 'fields' (allowFields / blockFields applied). */
  effect: 'dropped' | 'kept' | 'fields';
  /** One sentence: "dropped by filter 2 (if: type:identify)". */
  text: string;
}

export interface TransformTry {
  /** The message as the destination's filters see it (normalized). */
  input: Record<string, unknown>;
  /** The filters that applied, in order (the last one may be the drop that decided). */
  filters: FilterDecision[];
  /** null: no transform ran (none, skipped, or a filter dropped the message first). */
  transform: null | {
    version: string;
    ms: number;
    logs: { level: string; text: string }[];
    outcome: 'changed' | 'unchanged' | 'dropped' | 'retry' | 'failed';
    /** The events it returned (one, or several for a fan-out). */
    output: Record<string, unknown>[];
    /** dropped / retry / failed: why, in one sentence; failed may carry a stack. */
    message?: string;
    stack?: string;
  };
  /** The bodies that would be sent (after the destination's body shape), none when dropped or failed. */
  bodies: string[];
  /** What a delivery would say: "transformed", "dropped by filter …", "dropped by transform …", … */
  summary: string;
}

export interface TransformSource {
  /** The transform's file (absolute); null: the destination has none. */
  file: string | null;
  /**
   * The file's text now (what the editor opens, so that a text refused on reload can be fixed); null: no
   * transform, or the file cannot be read (`error` says so). While `error` is set, the version in use is
   * `version`, an earlier text (the runtime keeps no copy to show).
   */
  source: string | null;
  version: string | null;
  /** Why the file's current text is not in use (a syntax error on reload), null when it is. */
  error: string | null;
  /** Whether the file is in the data folder (the inspector's) or elsewhere (a config's). */
  inDataFolder: boolean;
}

export interface TransformResponses {
  'transforms.try': TransformTry;
  'transforms.get': TransformSource;
  'transforms.save': TransformSource;
}
