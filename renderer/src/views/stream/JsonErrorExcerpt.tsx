// A refused body that is not JSON: where it breaks (line and column) and the lines around it, the
// column marked — as the ingestion endpoint found it on the whole body (shared/json-error-place.ts),
// stored with the refused request's entry as `jsonError` (the entry keeps only the body's start).
import type { JsonErrorPlace } from '../../../../shared/json-error-place.ts';
import './json-error.css';

/** The stored place, when the message as received carries one that reads as such. */
export function storedJsonError(received: unknown): JsonErrorPlace | null {
  const place = (received as { jsonError?: unknown } | null)?.jsonError as Partial<JsonErrorPlace> | undefined;
  if (!place || typeof place.line !== 'number' || typeof place.column !== 'number' || !Array.isArray(place.lines) || typeof place.mark !== 'number') return null;
  return place as JsonErrorPlace;
}

export function JsonErrorExcerpt({ place }: { place: JsonErrorPlace }) {
  const width = String(place.lines.at(-1)?.number ?? place.line).length;
  return (
    <figure className="json-error" aria-label={`Where the JSON breaks: line ${place.line}, column ${place.column}`}>
      <figcaption>
        The body stops being JSON at <strong>line {place.line}, column {place.column}</strong>:
      </figcaption>
      <pre className="json-error-lines">
        {place.lines.map((line) => (
          <span key={line.number} className={line.number === place.line ? 'json-error-line json-error-at' : 'json-error-line'}>
            <span className="json-error-number" aria-hidden="true">
              {String(line.number).padStart(width)}
              {' │ '}
            </span>
            {line.text}
            {'\n'}
            {line.number === place.line ? (
              <span className="json-error-mark" aria-hidden="true">
                {`${' '.repeat(width)} │ ${' '.repeat(place.mark)}^ column ${place.column}\n`}
              </span>
            ) : null}
          </span>
        ))}
      </pre>
    </figure>
  );
}
