import { diff3Merge } from "node-diff3";

/**
 * Three-way merge of two edits of a markdown text, line by line (diff3): lines changed on one
 * side only take that side; the same change made on both sides is taken once; lines changed
 * differently on both sides, or edits touching adjacent lines, are a conflict. Paragraphs are
 * separated by blank lines in markdown, so two people editing different paragraphs of a page
 * merge cleanly, while two edits of the same paragraph do not.
 */
export function mergeText(base: string, ours: string, theirs: string): { merged: string } | { conflict: true } {
  if (ours === theirs || theirs === base) return { merged: ours };
  if (ours === base) return { merged: theirs };
  const blocks = diff3Merge(ours.split("\n"), base.split("\n"), theirs.split("\n"), { excludeFalseConflicts: true });
  const lines: string[] = [];
  for (const block of blocks) {
    if (block.conflict) return { conflict: true };
    if (block.ok) lines.push(...block.ok);
  }
  return { merged: lines.join("\n") };
}
