import { MAX_FILTERS } from '../../../../shared/destination-filters.ts';
import { Field } from '../../components/Field.tsx';
import { ACTION_LABELS, emptyFilter, FILTER_ACTIONS, moved, type FilterAction, type FilterRow } from './filter-form.ts';

/**
 * A destination's filters, in order: each row a query (`if`, the search box's language; empty: every
 * message), an action — drop, keep a sample (0–1), send only some fields, remove some fields — and
 * its rate or field paths; rows are added, removed and moved up or down. The first drop or sample-out
 * decides; field filters all apply. Problems show beside their control (`errors`, keyed
 * `filters.<i>.if`, `.sample`, `.fields`, `filters.<i>`, `filters`).
 */
export function FiltersEditor({ rows, errors, onChange }: {
  rows: readonly FilterRow[];
  errors: Readonly<Record<string, string>>;
  onChange: (rows: FilterRow[], field: string) => void;
}) {
  const set = (i: number, row: FilterRow, field: string) => onChange(rows.map((r, k) => (k === i ? row : r)), `filters.${i}.${field}`);
  return (
    <fieldset className="tf-filters">
      <legend className="section-title">
        Filters <span className="muted">applied in order before the body is built; the first drop or sample-out decides</span>
      </legend>
      {rows.length === 0 ? <p className="hint">No filters: every message of the connected sources is sent.</p> : null}
      <ol className="tf-filter-rows">
        {rows.map((row, i) => {
          const n = i + 1;
          return (
            <li key={row.key} className="tf-filter-row" aria-label={`Filter ${n}`}>
              <Field
                className="tf-filter-if"
                label={`Filter ${n}: if`}
                hint="A query, as in the stream's search (empty: every message)."
                error={errors[`filters.${i}.if`]}
              >
                {(control) => (
                  <input
                    {...control}
                    type="text"
                    className="tf-mono"
                    spellCheck={false}
                    value={row.if}
                    placeholder='e.g. type:identify or event:"Order Completed"'
                    onChange={(e) => set(i, { ...row, if: e.target.value }, 'if')}
                  />
                )}
              </Field>
              <Field className="tf-filter-action" label={`Filter ${n}: action`}>
                {(control) => (
                  <select {...control} value={row.action} onChange={(e) => set(i, { ...row, action: e.target.value as FilterAction }, 'action')}>
                    {FILTER_ACTIONS.map((action) => (
                      <option key={action} value={action}>
                        {ACTION_LABELS[action]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              {row.action === 'sample' ? (
                <Field
                  className="tf-filter-arg"
                  label={`Filter ${n}: sample rate`}
                  hint="0–1 of the matching messages are kept, the same ones every time (by messageId)."
                  error={errors[`filters.${i}.sample`]}
                >
                  {(control) => (
                    <input {...control} type="number" inputMode="decimal" min={0} max={1} step={0.01} value={row.sample} onChange={(e) => set(i, { ...row, sample: e.target.value }, 'sample')} />
                  )}
                </Field>
              ) : row.action === 'allowFields' || row.action === 'blockFields' ? (
                <Field
                  className="tf-filter-arg"
                  label={`Filter ${n}: fields`}
                  hint="Field paths, separated by commas: properties.price, context.ip."
                  error={errors[`filters.${i}.fields`]}
                >
                  {(control) => (
                    <input
                      {...control}
                      type="text"
                      className="tf-mono"
                      spellCheck={false}
                      value={row.fields}
                      onChange={(e) => set(i, { ...row, fields: e.target.value }, 'fields')}
                    />
                  )}
                </Field>
              ) : (
                <span className="tf-filter-arg" />
              )}
              <div className="tf-filter-buttons">
                <button type="button" className="btn btn-small" aria-label={`Move filter ${n} up`} disabled={i === 0} onClick={() => onChange(moved(rows, i, i - 1), 'filters')}>
                  ↑
                </button>
                <button
                  type="button"
                  className="btn btn-small"
                  aria-label={`Move filter ${n} down`}
                  disabled={i === rows.length - 1}
                  onClick={() => onChange(moved(rows, i, i + 1), 'filters')}
                >
                  ↓
                </button>
                <button type="button" className="btn btn-small" aria-label={`Remove filter ${n}`} onClick={() => onChange(rows.filter((_, k) => k !== i), 'filters')}>
                  Remove
                </button>
              </div>
              {errors[`filters.${i}`] ? <p className="tf-error">{errors[`filters.${i}`]}</p> : null}
            </li>
          );
        })}
      </ol>
      {errors.filters ? <p className="tf-error">{errors.filters}</p> : null}
      <button type="button" className="btn btn-small" disabled={rows.length >= MAX_FILTERS} onClick={() => onChange([...rows, emptyFilter()], 'filters')}>
        + Add filter
      </button>
    </fieldset>
  );
}
