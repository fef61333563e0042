/**
 * The contract's channels of the store (`storage.*`, and `messages.import` / `messages.export`, a
 * dropped file and a download): retention, storage figures, the store's health, clearing
 * (shared/storage.ts). Composed into shared/contract.ts.
 */
import { z } from 'zod';
import { messageFilterSchema } from '../message-filter.ts';
import { clearScopeSchema, IMPORT_MAX_CHARS, retentionSchema, type ImportOutcome, type StorageView, type StoreHealth } from '../storage.ts';

export const storageRequestSchemas = {
  /** Storage figures (Settings). */
  'storage.stats': z.strictObject({}),
  /** The store's soundness: the background check's progress, and damage found while running. */
  'storage.health': z.strictObject({}),
  /** Changes the retention (kept in the store; a config file's `retention` wins again at the next start). Prunes at once when over. */
  'storage.setRetention': z.strictObject({ retention: retentionSchema }),
  /**
   * Removes the messages of the scope with their deliveries and attempts — pending and retrying ones
   * too: they are cancelled first — then gives the freed pages back to the disk. `dryRun` only counts.
   */
  'storage.clear': z.strictObject({ scope: clearScopeSchema, dryRun: z.boolean().default(false) }),
  /**
   * The core's reset (as `POST /api/v1/reset` and sluice/testing's reset): forgets every message with its
   * deliveries and attempts, refused requests, profiles, audience syncs and members, deletion requests,
   * the receiver's inbox and injected faults; keeps sources, destinations, audiences, tracking plans,
   * saved searches and the retention.
   */
  'storage.reset': z.strictObject({}),
  /**
   * A file dropped on the inspector, sent through ingestion with the source's write key: NDJSON (export
   * lines, messages, batches, HTTP API pages) or a HAR file of Tracking API calls. Text only; at most
   * IMPORT_MAX_CHARS (bigger files: `sluice import`).
   */
  'messages.import': z.strictObject({
    sourceId: z.number().int().positive(),
    fileName: z.string().max(500),
    text: z.string().max(IMPORT_MAX_CHARS, `a dropped file may be at most ${IMPORT_MAX_CHARS / 1024 / 1024} MB; use "sluice import FILE" for bigger ones`),
  }),
  /**
   * The filter's messages as an NDJSON download (one stored message per line, as `sluice export` writes
   * them), or their webhook attempts as HAR 1.2 (`format: 'har'`). At most EXPORT_MAX_MESSAGES messages:
   * `truncated` says when there were more (`sluice export` has no limit).
   */
  'messages.export': z.strictObject({ filter: messageFilterSchema, format: z.enum(['ndjson', 'har']).default('ndjson') }),
} as const;

export interface StorageResponses {
  'storage.stats': StorageView;
  'storage.health': StoreHealth;
  'storage.setRetention': StorageView;
  /** `messages`: removed, or that would be; `bytesFreed`: what the file shrank by (0 for a dry run). */
  'storage.clear': { messages: number; deliveries: number; attempts: number; bytesFreed: number; dryRun: boolean };
  /** `messages`: how many were forgotten. */
  'storage.reset': { messages: number };
  /** What the file held (its format), what ingestion accepted and refused, and the lines that were not messages. */
  'messages.import': ImportOutcome;
  /** `fileName` to save it as ("sluice-2026-11-25T18-00.ndjson"); `messages`: how many it holds. */
  'messages.export': { fileName: string; mimeType: string; text: string; messages: number; truncated: boolean };
}
