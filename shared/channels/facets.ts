/**
 * The contract's facet channels (issue 29, point 5): for the stream's current filters and search, the
 * top values of its fields with counts (`messages.facets`) and the messages over time
 * (`messages.timeline`), both counted in the core's counting thread. Composed into shared/contract.ts.
 */
import { z } from 'zod';
import { checkFacetPath } from '../facets.ts';
import { QueryError } from '../message-query.ts';
import { messageListFilters } from './messages.ts';

const fromBeforeTo = (r: { from?: number | undefined; to?: number | undefined }) => r.from === undefined || r.to === undefined || r.from <= r.to;

export const facetRequestSchemas = {
  'messages.facets': messageListFilters
    .extend({
      /** A payload field to count the values of too, as the search writes it: properties.plan, context.app.version. */
      field: z
        .string()
        .max(200)
        .superRefine((field, ctx) => {
          try {
            checkFacetPath(field);
          } catch (error) {
            if (!(error instanceof QueryError)) throw error;
            ctx.addIssue({ code: 'custom', message: error.message });
          }
        })
        .optional(),
    })
    .refine(fromBeforeTo, { message: 'from must not be after to', path: ['from'] }),
  'messages.timeline': messageListFilters.refine(fromBeforeTo, { message: 'from must not be after to', path: ['from'] }),
} as const;

/** A value of a facet: how many of the counted messages have it, and the search clause that picks them (null: none can). */
export interface FacetValue {
  /** The value as text (a source by its name); null: the field is absent. */
  value: string | null;
  count: number;
  clause: string | null;
  /** The value is longer than shown: its clause picks it by its start. */
  cut?: true;
}

export interface FacetView {
  /** event, type, source, userId, or the payload path asked for. */
  field: string;
  /** The most frequent first (FACET_TOP at most). */
  values: FacetValue[];
  /** Counted messages with another value. */
  others: number;
  /** Distinct values among the counted messages. */
  distinct: number;
}

export interface FacetsView {
  /** Messages counted: every match when `complete`, else the latest this many. */
  counted: number;
  complete: boolean;
  facets: FacetView[];
}

/** Messages over time: `counts[i]` were received in [from + i·bucketMs, from + (i+1)·bucketMs). */
export interface TimelineView {
  from: number;
  bucketMs: number;
  counts: number[];
  /** Every match counted; else only the latest matches, received since `since`. */
  exact: boolean;
  since: number | null;
}

export interface FacetResponses {
  'messages.facets': FacetsView;
  /** null: nothing matches. */
  'messages.timeline': TimelineView | null;
}
