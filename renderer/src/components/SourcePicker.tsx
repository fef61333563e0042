import type { SelectHTMLAttributes } from 'react';

/** What the picker needs of a source (the contract's SourceView has more). */
interface Pickable {
  id: number;
  name: string;
}

/**
 * Every "which source" select of the page: one option a source, by its id, named by `optionLabel`
 * (its name unless told). `anyLabel` adds a first option for no source in particular ("All sources"),
 * `promptLabel` one shown only while none is chosen ("Choose a source"); picking either gives null.
 * The rest (id, aria-*, className, disabled) goes to the <select>: spread a `<Field>`'s control here.
 */
export function SourcePicker<S extends Pickable>({ sources, value, onChange, anyLabel, promptLabel, optionLabel = (s) => s.name, ...select }: {
  sources: readonly S[];
  value: number | null;
  onChange: (id: number | null) => void;
  anyLabel?: string;
  promptLabel?: string;
  optionLabel?: (source: S) => string;
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'onChange' | 'children'>) {
  return (
    <select {...select} value={value ?? ''} onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}>
      {anyLabel !== undefined ? <option value="">{anyLabel}</option> : null}
      {promptLabel !== undefined && value === null ? <option value="">{promptLabel}</option> : null}
      {sources.map((s) => (
        <option key={s.id} value={s.id}>
          {optionLabel(s)}
        </option>
      ))}
    </select>
  );
}
