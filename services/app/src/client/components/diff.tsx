/** One line of a diff: kept, added (only in the new text) or removed (only in the old). */
export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
}

/** Above this many line pairs the diff is not searched for common lines: the old text removed, the new added. */
const MAX_CELLS = 4_000_000;

/** The lines of `after` against `before`: a longest common subsequence of lines, then what each side adds. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after === "" ? [] : after.replace(/\n$/, "").split("\n");
  if (a.length * b.length > MAX_CELLS)
    return [...a.map((text) => ({ kind: "removed" as const, text })), ...b.map((text) => ({ kind: "added" as const, text }))];
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: "same", text: a[i]! });
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) lines.push({ kind: "removed", text: a[i++]! });
    else lines.push({ kind: "added", text: b[j++]! });
  }
  while (i < a.length) lines.push({ kind: "removed", text: a[i++]! });
  while (j < b.length) lines.push({ kind: "added", text: b[j++]! });
  return lines;
}

/**
 * A diff shown as a list of lines: added lines are `<ins>` with a "+" and removed ones `<del>`
 * with a "−", each also named for screen readers ("Added", "Removed"), so colour is never the
 * only sign.
 */
export function Diff({ lines, label }: { lines: DiffLine[]; label: string }) {
  if (lines.every((line) => line.kind === "same")) return <p class="muted">The text did not change.</p>;
  return (
    <ul class="diff" aria-label={label}>
      {lines.map((line, index) => (
        <li key={index}>
          {line.kind === "added" ? (
            <ins>
              <span class="sign" aria-hidden="true">
                +
              </span>
              <span class="visually-hidden">Added: </span>
              {line.text}
            </ins>
          ) : line.kind === "removed" ? (
            <del>
              <span class="sign" aria-hidden="true">
                −
              </span>
              <span class="visually-hidden">Removed: </span>
              {line.text}
            </del>
          ) : (
            <span>
              <span class="sign" aria-hidden="true">
                {" "}
              </span>
              {line.text}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
