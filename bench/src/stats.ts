/** Nearest-rank percentile of ascending `sorted` (`fraction` 0.5 for the median); 0 when empty. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}
