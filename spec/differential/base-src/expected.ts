// The one message template for bad input (contract §8): the options, the sources and the retry policy
// all say what was wrong the same way. It imports nothing, so that every module can use it.

/**
 * The message for a value that breaks a rule: which input, what was expected of it, and what was
 * received, with its type.
 *
 * ## Example
 *
 * ```ts
 * expected('initialBatchSize', 'an integer >= 1', 0);
 * // 'Expected `initialBatchSize` to be an integer >= 1, got 0 (number)'
 * ```
 *
 * @param name The input, as the caller wrote it: an option (`retry.delay`), an argument (`tasks`) or a call (`retry.when()`).
 * @param rule What the input must be, worded to follow "to be".
 * @param received The value received instead.
 * @return The message, for a `TypeError` or a `RangeError`.
 */
export function expected(name: string, rule: string, received: unknown): string {
  return `Expected \`${name}\` to be ${rule}, got ${describeValue(received)} (${received === null ? 'null' : typeof received})`;
}

/** A short account of `value` for a message: strings quoted, functions by name, objects by kind, not their contents. */
function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'function':
      return value.name ? `function ${value.name}` : 'a function';
    case 'object':
      return value === null ? 'null' : Array.isArray(value) ? `an array of ${value.length}` : 'an object';
    case 'bigint':
      return `${value}n`;
    default:
      return String(value);
  }
}
