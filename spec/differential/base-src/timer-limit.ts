// The longest delay the platform's timers can hold (contract §11): what options refuse above it, and
// where the pauses that the package computes itself are capped. It imports nothing, so that every
// module can use it.

/**
 * The longest delay a timer can have, 2^31 - 1 ms (about 24.8 days): browsers and Node keep it in a
 * signed 32-bit integer and fire a longer one after about 1 ms, the opposite of waiting.
 */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;
