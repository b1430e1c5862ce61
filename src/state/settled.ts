/**
 * A value now, or later. The pipeline's effects on shared state (counting, spending an approval id) are
 * immediate in memory and a round trip in Redis; in memory they stay synchronous, so a surface that reads
 * frames in order (wrap) keeps forwarding them in order.
 */
export type Settled<T> = T | Promise<T>;

/** `then` for a Settled value: synchronous when the value is there. */
export function whenSettled<T, R>(value: Settled<T>, next: (value: T) => Settled<R>): Settled<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Like whenSettled, with a way out for a rejection (a Redis that went away). */
export function settleOr<T, R>(
  value: Settled<T>,
  next: (value: T) => R,
  failed: (error: unknown) => R,
): Settled<R> {
  if (!(value instanceof Promise)) return next(value);
  return value.then(next, failed);
}
