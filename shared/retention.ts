/**
 * How much the store keeps (the config's `retention`, Settings): on its own, so that the config schema
 * (settings.ts) and the storage contract (storage.ts) can both use it. Depends on zod only.
 */
import { z } from 'zod';

/**
 * What the store keeps at most; the oldest messages go first (with their deliveries and attempts), in
 * small transactions, never one whose delivery is still pending or retrying. Each limit may be null
 * (no limit of that kind).
 */
export const retentionSchema = z.strictObject({
  /** Messages older than this many days (by when they arrived). */
  maxAgeDays: z.number().int().min(1).max(3650).nullable().default(30),
  /** The newest this many messages are kept. */
  maxMessages: z.number().int().min(1000).max(100_000_000).nullable().default(1_000_000),
  /**
   * The database's pages in use, in bytes: the oldest messages are pruned until it fits (the file
   * shrinks as their pages are given back; the WAL is kept short apart, by the checkpointer).
   */
  maxBytes: z.number().int().min(16 * 1024 * 1024).max(2 ** 50).nullable().default(2 * 1024 ** 3),
});
export type Retention = z.output<typeof retentionSchema>;
export const DEFAULT_RETENTION: Retention = retentionSchema.parse({});

