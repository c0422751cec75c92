// The one place medians and percentiles are computed, for the benchmarks (bench/) and the soak
// (test/soak/): nearest-rank percentiles, no interpolation, so a reported p90 is a sample that
// was actually measured.

/** `values` sorted ascending, as a new array. */
export const ascending = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

/** The nearest-rank `q` quantile (0 < q ≤ 1) of samples already sorted ascending; NaN when there are none. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** The median (the mean of the two middle samples for an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = ascending(values);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds to two decimals, the precision every report prints. */
export const round2 = (value: number): number => Math.round(value * 100) / 100;
