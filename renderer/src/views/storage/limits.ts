/**
 * shared/storage.ts's limits, repeated: that module loads zod and the contract's filter schema, which
 * the bundle takes from shared/ only for the editors' schemas. A unit test keeps the two equal.
 */

/** A dropped file's size limit, in characters (UTF-16 units, as the contract counts them). */
export const IMPORT_MAX_CHARS = 16 * 1024 * 1024;

/** A download from the inspector holds at most this many messages. */
export const EXPORT_MAX_MESSAGES = 100_000;
