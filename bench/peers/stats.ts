// The peers' report of a series of samples in milliseconds; the arithmetic is test/helpers/stats.ts,
// shared with the other benchmarks and the soak.
import { ascending, median, percentile, round2 } from '../../test/helpers/stats.ts';

export interface Stats {
  n: number;
  median_ms: number;
  p90_ms: number;
  min_ms: number;
  max_ms: number;
}

export function stats(samples: number[]): Stats | undefined {
  if (samples.length === 0) return undefined;
  const sorted = ascending(samples);
  return {
    n: samples.length,
    median_ms: round2(median(sorted)),
    p90_ms: round2(percentile(sorted, 0.9)),
    min_ms: round2(sorted[0]!),
    max_ms: round2(sorted[sorted.length - 1]!),
  };
}
