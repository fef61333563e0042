/**
 * Where a JSON Schema (draft-07, with 2019-09's names Segment's exports carry) holds subschemas, by the
 * keyword's shape. compile-plan.ts copies schemas by these; error-groups.ts follows them to find where an
 * alternative's errors can come from.
 */

/** A keyword whose value is one schema (`items` when not a list). */
export const SCHEMA_VALUED = new Set(['additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'items', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
/** A keyword whose value is a list of schemas (`items` when a list). */
export const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'items', 'prefixItems']);
/** A keyword whose value maps names to schemas (`dependencies`' string lists are data). */
export const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies']);
/** Of SCHEMA_MAPS, the ones whose schemas are only reached through a `$ref`. */
export const DEFINITIONS = new Set(['definitions', '$defs']);
