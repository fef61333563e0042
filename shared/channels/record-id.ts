import { z } from 'zod';

/** A stored row's id (a message, a delivery, a source, a destination, an audience…): what every channel names a row by. */
export const recordId = z.number().int().positive();
