import { useEffect, useMemo, useState } from 'react';
import type { DestinationView } from '../../../../shared/contract.ts';
import type { DestinationFilter } from '../../../../shared/destination-filters.ts';
import { filterProblems, filtersRequestOf, type FilterRow } from './filter-form.ts';
import { FiltersEditor } from './FiltersEditor.tsx';
import { TransformEditor } from './TransformEditor.tsx';
import { TransformPreview } from './TransformPreview.tsx';
import './transforms.css';

/**
 * The destination editor's "Filters and transform": the filters (part of the destination's form,
 * saved with it), the transform (saved on its own, in the data folder), and the preview of both, as
 * edited, on a stored message.
 */
export function TransformsSection({ destination, rows, errors, onRowsChange }: {
  /** null: a destination not saved yet (its transform and preview wait for its id). */
  destination: DestinationView | null;
  rows: readonly FilterRow[];
  errors: Readonly<Record<string, string>>;
  onRowsChange: (rows: FilterRow[], field: string) => void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const valid = useMemo(() => Object.keys(filterProblems(rows)).length === 0, [rows]);
  const filters = useMemo(() => (valid ? (filtersRequestOf(rows) as DestinationFilter[]) : null), [rows, valid]);
  // Each new view of the destination (a save, or its transform file reloaded or refused: settings.changed) reads the transform again.
  const [revision, setRevision] = useState(0);
  useEffect(() => setRevision((n) => n + 1), [destination]);
  return (
    <section className="tf-section" aria-labelledby="tf-section-title">
      <h3 id="tf-section-title" className="section-title">
        Filters and transform <span className="muted">what this destination gets of each message</span>
      </h3>
      <FiltersEditor rows={rows} errors={errors} onChange={onRowsChange} />
      {destination ? (
        <>
          <TransformEditor destinationId={destination.id} revision={String(revision)} onDraft={setDraft} />
          {valid ? (
            <TransformPreview destinationId={destination.id} forward={destination.kind === 'tracking-api'} sourceIds={destination.sourceIds} filters={filters} source={draft} />
          ) : (
            <p className="hint">Fix the filters marked above to preview them.</p>
          )}
        </>
      ) : (
        <p className="hint">Create the destination first: then write its transform and preview both on a stored message.</p>
      )}
    </section>
  );
}
