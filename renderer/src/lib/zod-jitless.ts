/**
 * Imported first by main.tsx, before any module builds a zod schema: zod probes for eval with
 * `new Function` when it builds object schemas, and under the inspector's CSP (no unsafe-eval) that
 * probe is reported as a CSP violation in the console even though zod catches it. Jitless parsing
 * skips the probe.
 */
import { z } from 'zod';

z.config({ jitless: true });
