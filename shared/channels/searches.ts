/**
 * The contract's saved searches (`searches.*`): the stream's search and filters kept under a name, in
 * the store's settings table (electron/core/store/saved-searches.ts), so every window and every
 * restart has them. Composed into shared/contract.ts.
 */
import { z } from 'zod';
import { MESSAGE_TYPES } from '../message-rules.ts';
import { searchQuerySchema } from '../message-filter.ts';

/** What a saved search restores: the stream's filters as the inspector holds them (renderer/src/store/filters.ts). */
export const savedFiltersSchema = z.strictObject({
  search: searchQuerySchema,
  type: z.enum(MESSAGE_TYPES).nullable(),
  /** The row's outcome (renderer/src/store/outcome.ts). */
  status: z.string().max(20).nullable(),
  sourceId: z.number().int().nullable(),
  time: z.union([
    z.strictObject({ kind: z.literal('all') }),
    z.strictObject({ kind: z.literal('last'), ms: z.number().int().positive() }),
    z.strictObject({ kind: z.literal('between'), from: z.number().int().nonnegative().nullable(), to: z.number().int().nonnegative().nullable() }),
  ]),
  violations: z.boolean().optional(),
  event: z.string().max(1024).optional(),
  plan: z.string().max(100).optional(),
});
export type SavedFilters = z.infer<typeof savedFiltersSchema>;

const nameSchema = z
  .string()
  .trim()
  .min(1, 'give the search a name')
  .max(80, 'must be at most 80 characters');

export interface SavedSearch {
  name: string;
  filters: SavedFilters;
}

export const searchRequestSchemas = {
  'searches.list': z.strictObject({}),
  /** Saves under a new name; `name_taken` when a saved search has it (names are unique, A–Z in any case). */
  'searches.save': z.strictObject({ name: nameSchema, filters: savedFiltersSchema }),
  /** `not_found` when none has `name`; `name_taken` when another has `to`. */
  'searches.rename': z.strictObject({ name: nameSchema, to: nameSchema }),
  'searches.delete': z.strictObject({ name: nameSchema }),
} as const;

export interface SearchResponses {
  /** Every saved search, by name A–Z. */
  'searches.list': { searches: SavedSearch[] };
  'searches.save': { searches: SavedSearch[] };
  'searches.rename': { searches: SavedSearch[] };
  'searches.delete': { searches: SavedSearch[] };
}
