import type { NodeSource, TreeNode } from "./btree.js";
import { PAGE_PREFIX } from "./keys.js";

/** A page whose version differs between two revisions (absent on one side: added or removed). */
export interface PageChange {
  pageId: string;
  before: string | undefined;
  after: string | undefined;
}

/** The first key after every key starting with `prefix` (for range checks). */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * The pages (`p:` keys) whose version differs between two content trees of one store.
 *
 * Trees share every node their revisions did not change, and a node's id is the hash of its
 * content, so a node present on both sides holds identical entries and is skipped whole. Both
 * trees are walked a level at a time; at each level the node ids found on both sides cancel out
 * and only the others are loaded. An edit of one page in a 10,000-page space loads the three
 * nodes on each side of its path, not the tree. (When the trees differ in height, a shared
 * subtree can sit one level apart and is then expanded on both sides: slower, still exact,
 * because the entries are compared at the end.)
 */
export async function diffPageVersions(source: NodeSource, beforeRoot: string | null, afterRoot: string | null): Promise<PageChange[]> {
  if (beforeRoot === afterRoot) return [];
  const low = PAGE_PREFIX;
  const high = prefixEnd(PAGE_PREFIX);
  const beforeEntries = new Map<string, string>();
  const afterEntries = new Map<string, string>();

  /** Children of a branch whose key range can hold `p:` keys; entries of a leaf go to `into`. */
  const expand = (node: TreeNode, into: Map<string, string>, next: string[]) => {
    if (node.kind === "leaf") {
      for (const [key, value] of node.entries) if (key >= low && key < high) into.set(key, value);
      return;
    }
    const { children } = node;
    children.forEach(([firstKey, childId], index) => {
      // Child i holds [firstKey_i, firstKey_i+1); the first child also holds anything smaller.
      const start = index === 0 ? "" : firstKey;
      const end = children[index + 1]?.[0];
      if (start < high && (end === undefined || end > low)) next.push(childId);
    });
  };

  let before = beforeRoot ? [beforeRoot] : [];
  let after = afterRoot ? [afterRoot] : [];
  while (before.length > 0 || after.length > 0) {
    const beforeSet = new Set(before);
    const afterSet = new Set(after);
    before = [...beforeSet].filter((id) => !afterSet.has(id));
    after = [...afterSet].filter((id) => !beforeSet.has(id));
    if (before.length === 0 && after.length === 0) break;
    const nodes = await source.load([...before, ...after]);
    const node = (id: string) => {
      const found = nodes.get(id);
      if (!found) throw new Error(`tree node ${id} is missing`);
      return found;
    };
    const nextBefore: string[] = [];
    const nextAfter: string[] = [];
    for (const id of before) expand(node(id), beforeEntries, nextBefore);
    for (const id of after) expand(node(id), afterEntries, nextAfter);
    before = nextBefore;
    after = nextAfter;
  }

  const changes: PageChange[] = [];
  for (const [key, version] of afterEntries) {
    const previous = beforeEntries.get(key);
    if (previous !== version) changes.push({ pageId: key.slice(low.length), before: previous, after: version });
  }
  for (const [key, version] of beforeEntries) {
    if (!afterEntries.has(key)) changes.push({ pageId: key.slice(low.length), before: version, after: undefined });
  }
  return changes;
}
