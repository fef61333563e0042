/**
 * The user property an audience (or computed trait) is sent as: the snake_case of its name (seed §6.3,
 * "High Value Users" → `high_value_users`). Used by the core to build the identify traits and by the
 * inspector to show the property while the name is typed.
 *
 * Rules, in order:
 * 1. Accents on Latin letters are dropped (NFKD, marks after a Latin letter removed, NFC again):
 *    "Café" → "cafe". Other scripts keep their letters whole: "Пользователи" → "пользователи",
 *    "Йога" → "йога", "ユーザー" → "ユーザー".
 * 2. Apostrophes inside words vanish: "Don't churn" → "dont_churn".
 * 3. camelCase and PascalCase split into words: "highValueUsers" → "high_value_users";
 *    an acronym ends before its last capital when a lowercase letter follows: "HTTPRequests" → "http_requests".
 * 4. Everything is lowercased.
 * 5. Any run of characters that are neither letters nor digits (spaces, punctuation, emoji) becomes
 *    one underscore; underscores at either end are dropped.
 * Digits are kept where they stand and are not split from adjacent letters: "Top 10 Users" →
 * "top_10_users", "ios14 users" → "ios14_users", "3D Printers" → "3d_printers".
 * A name without any letter or digit has no property name (empty string): such names are refused.
 */
export function propertyName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC')
    .replace(/(?<=[\p{L}\p{N}])['’ʼ](?=[\p{L}\p{N}])/gu, '')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1_$2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1_$2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
}
