import { CodeArea } from '../../components/CodeArea.tsx';
import type { JsonCheck } from './json-check.ts';

/**
 * The replay's body editor: a code area (line numbers, monospace, no soft wrap) whose check is the
 * caller's (it also decides whether sending is allowed); the error, with its line and column, is
 * announced politely and marked in the gutter.
 */
export function JsonEditor({ value, onChange, check, label }: {
  value: string;
  onChange: (text: string) => void;
  check: JsonCheck;
  label: string;
}) {
  return <CodeArea value={value} onChange={onChange} problem={check.ok ? null : check} status="Valid JSON." label={label} />;
}
