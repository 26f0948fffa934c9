/** Promise tasks that are all pending at once: the wide batches, the promise overhead and bench:versus share them. */

export interface GatedTasks {
  factories: Array<() => Promise<number>>;
  invoked(): number;
  /** Closes the gate again; called before every run. */
  reset(): void;
  /** Opens the gate by hand (when it does not open by itself). */
  open(): void;
}

/**
 * N promise factories that all wait on one gate, which opens when the last of them is invoked: all N
 * are pending at once whatever order they are invoked in, and then settle in one go.
 */
export function gatedTasks(count: number, { openWhenAllInvoked = true } = {}): GatedTasks {
  let invoked = 0;
  let open: () => void = () => {};
  let gate = Promise.resolve();
  const factories = Array.from({ length: count }, (_, i) => () => {
    if (++invoked === count && openWhenAllInvoked) open();
    return gate.then(() => i);
  });
  return {
    factories,
    invoked: () => invoked,
    reset(): void {
      invoked = 0;
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    open: () => open(),
  };
}
