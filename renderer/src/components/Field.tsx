import { useId, type ReactNode } from 'react';

/** What a field's control takes from it: spread them on the input, select or textarea. */
export interface ControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/**
 * One form field: a visible label tied to its control (the control's accessible name, unless the
 * control carries an `aria-label` of its own), then a hint, or the field's problem in its place.
 * The control describes itself by whichever of the two is shown, and is marked invalid while there is
 * a problem.
 *
 * `announce` keeps a line for the problem even when there is none, as a polite live region: for a
 * problem that appears on submit rather than as the user types, so that it is read out.
 *
 *   <Field label="Name" hint="Each destination has its own name." error={errors.name}>
 *     {(control) => <input {...control} type="text" value={name} onChange={…} />}
 *   </Field>
 */
export function Field({ label, hint, error, announce = false, id: givenId, className, children }: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  announce?: boolean;
  /** The control's id (one is made up otherwise). */
  id?: string;
  /** Classes for the wrapper, besides `field`. */
  className?: string;
  children: (control: ControlProps) => ReactNode;
}) {
  const madeId = useId();
  const id = givenId ?? madeId;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const showHint = !error && hint !== undefined && hint !== null && hint !== false;
  const control: ControlProps = {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? errorId : showHint ? hintId : undefined,
  };
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {children(control)}
      {showHint ? (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error || announce ? (
        <p className="field-error" id={errorId} aria-live={announce ? 'polite' : undefined}>
          {error ?? ''}
        </p>
      ) : null}
    </div>
  );
}
