/** Characters as PostgreSQL counts them (code points), not UTF-16 units: the limits of the domain are in these. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
