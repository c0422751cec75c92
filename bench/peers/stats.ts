// Medians and percentiles over samples in milliseconds (nearest-rank percentiles, no interpolation).

export interface Stats {
  n: number;
  median_ms: number;
  p90_ms: number;
  min_ms: number;
  max_ms: number;
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const round2 = (value: number): number => Math.round(value * 100) / 100;

export function stats(samples: number[]): Stats | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: samples.length,
    median_ms: round2(median(sorted)),
    p90_ms: round2(percentile(sorted, 0.9)),
    min_ms: round2(sorted[0]!),
    max_ms: round2(sorted[sorted.length - 1]!),
  };
}
