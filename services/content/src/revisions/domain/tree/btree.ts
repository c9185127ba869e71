import { createHash } from "node:crypto";

/**
 * A persistent (copy-on-write) B+tree of string keys → string values, stored as immutable,
 * content-addressed nodes. A revision's whole content (pages, slug and child-order indexes,
 * files, reusable contents) is one such tree: a new revision shares every node its changes do
 * not touch, so a change of one key writes only the nodes on one root-to-leaf path (3 for a
 * 10,000-page space), and two revisions with the same content share the same root.
 *
 * Keys compare by UTF-16 code units (`<`), never by locale, so every process orders alike.
 */

/** Entries of a leaf (sorted by key), or children of a branch (sorted by their first key). */
export type TreeNode = { kind: "leaf"; entries: [key: string, value: string][] } | { kind: "branch"; children: [firstKey: string, childId: string][] };

/** Where nodes come from (the database, a cache, the nodes written by the current update). */
export interface NodeSource {
  /** The nodes with these ids; every id must exist (a missing one is a corrupt store). */
  load(ids: readonly string[]): Promise<Map<string, TreeNode>>;
}

/** Where new nodes go; returns the node's id (its content hash). */
export interface NodeSink {
  put(node: TreeNode): string;
}

/** At most this many entries (or children) per node. */
export const MAX_NODE_SIZE = 64;
/** Nodes made by a split hold about this many, leaving room for inserts before the next split. */
const SPLIT_TARGET = 48;
/** A changed node smaller than this is merged with a neighbour. */
const MIN_NODE_SIZE = 16;

export function serializeNode(node: TreeNode): string {
  return JSON.stringify(node.kind === "leaf" ? { l: node.entries } : { b: node.children });
}

export function parseNode(data: unknown): TreeNode {
  const record = data as { l?: [string, string][]; b?: [string, string][] };
  if (Array.isArray(record.l)) return { kind: "leaf", entries: record.l };
  if (Array.isArray(record.b)) return { kind: "branch", children: record.b };
  throw new Error("not a tree node");
}

/** Content address of a node: 128 bits of SHA-256 over its serialized form, hex. */
export function nodeId(node: TreeNode): string {
  return createHash("sha256").update(serializeNode(node)).digest("hex").slice(0, 32);
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function firstKey(node: TreeNode): string {
  return node.kind === "leaf" ? node.entries[0]![0] : node.children[0]![0];
}

function sizeOf(node: TreeNode): number {
  return node.kind === "leaf" ? node.entries.length : node.children.length;
}

/** Index of the child whose key range holds `key` (keys before the first child go to it). */
function childIndex(children: readonly [string, string][], key: string): number {
  let low = 0;
  let high = children.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (children[middle]![0] <= key) low = middle;
    else high = middle - 1;
  }
  return low;
}

function leafIndex(entries: readonly [string, string][], key: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (entries[middle]![0] < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

function chunk<T>(items: T[]): T[][] {
  if (items.length <= MAX_NODE_SIZE) return [items];
  const count = Math.ceil(items.length / SPLIT_TARGET);
  const size = Math.ceil(items.length / count);
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

async function loadOne(source: NodeSource, id: string): Promise<TreeNode> {
  const node = (await source.load([id])).get(id);
  if (!node) throw new Error(`tree node ${id} is missing`);
  return node;
}

/** The value under `key`, or undefined. */
export async function treeGet(source: NodeSource, root: string | null, key: string): Promise<string | undefined> {
  if (!root) return undefined;
  let node = await loadOne(source, root);
  while (node.kind === "branch") node = await loadOne(source, node.children[childIndex(node.children, key)]![1]);
  const index = leafIndex(node.entries, key);
  const entry = node.entries[index];
  return entry && entry[0] === key ? entry[1] : undefined;
}

/** Values of many keys at once, loading each level's nodes in one batch. */
export async function treeGetMany(source: NodeSource, root: string | null, keys: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (!root || keys.length === 0) return found;
  let frontier = new Map<string, string[]>([[root, [...keys]]]);
  while (frontier.size > 0) {
    const nodes = await source.load([...frontier.keys()]);
    const next = new Map<string, string[]>();
    for (const [id, wanted] of frontier) {
      const node = nodes.get(id);
      if (!node) throw new Error(`tree node ${id} is missing`);
      if (node.kind === "leaf") {
        for (const key of wanted) {
          const entry = node.entries[leafIndex(node.entries, key)];
          if (entry && entry[0] === key) found.set(key, entry[1]);
        }
        continue;
      }
      for (const key of wanted) {
        const child = node.children[childIndex(node.children, key)]![1];
        const list = next.get(child);
        if (list) list.push(key);
        else next.set(child, [key]);
      }
    }
    frontier = next;
  }
  return found;
}

export interface ScanOptions {
  /** Only keys starting with this. */
  prefix: string;
  /** Only keys strictly after this one (keyset paging). */
  after?: string;
  /** Stop after this many entries. */
  limit?: number;
}

/** Whether `key` sorts after every key that starts with `prefix`. */
function beyondPrefix(key: string, prefix: string): boolean {
  return key > prefix && !key.startsWith(prefix);
}

/**
 * Entries whose key starts with `prefix` (and, for keyset paging, sorts after `after`), in key
 * order. All leaves are at the same depth, so a breadth-first walk that keeps each level in key
 * order visits leaves in key order; only subtrees that can hold matching keys are loaded, a level
 * at a time in batches, and a `limit` stops the walk early.
 */
export async function treeScan(source: NodeSource, root: string | null, options: ScanOptions): Promise<[string, string][]> {
  if (!root) return [];
  const { prefix, after } = options;
  const low = after !== undefined && after > prefix ? after : prefix;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const matches = (key: string) => key.startsWith(prefix) && (after === undefined || key > after);
  const out: [string, string][] = [];
  const batchSize = options.limit !== undefined ? 16 : 1024;

  let level: string[] = [root];
  while (level.length > 0 && out.length < limit) {
    const next: string[] = [];
    for (let start = 0; start < level.length && out.length < limit; start += batchSize) {
      const ids = level.slice(start, start + batchSize);
      const nodes = await source.load(ids);
      for (const id of ids) {
        const node = nodes.get(id);
        if (!node) throw new Error(`tree node ${id} is missing`);
        if (node.kind === "leaf") {
          for (let index = leafIndex(node.entries, low); index < node.entries.length && out.length < limit; index++) {
            const entry = node.entries[index]!;
            if (beyondPrefix(entry[0], prefix)) break;
            if (matches(entry[0])) out.push(entry);
          }
          if (out.length >= limit) break;
          continue;
        }
        const { children } = node;
        const first = childIndex(children, low);
        for (let index = first; index < children.length; index++) {
          if (index > first && beyondPrefix(children[index]![0], prefix)) break;
          next.push(children[index]![1]);
        }
      }
    }
    level = next;
  }
  return out;
}

/** Every entry of the tree, in key order (a full scan). */
export function treeEntries(source: NodeSource, root: string | null): Promise<[string, string][]> {
  return treeScan(source, root, { prefix: "" });
}

type Change = [key: string, value: string | null];

/** Rebuilds one node from its changed entries; answers the nodes (0, 1 or several) that replace it. */
async function updateNode(source: NodeSource, sink: NodeSink, node: TreeNode, changes: Change[]): Promise<TreeNode[]> {
  if (node.kind === "leaf") {
    const entries: [string, string][] = [];
    let i = 0;
    let j = 0;
    while (i < node.entries.length || j < changes.length) {
      const existing = node.entries[i];
      const change = changes[j];
      if (change && (!existing || change[0] <= existing[0])) {
        if (change[1] !== null) entries.push([change[0], change[1]]);
        if (existing && existing[0] === change[0]) i++;
        j++;
      } else {
        entries.push(existing!);
        i++;
      }
    }
    return entries.length === 0 ? [] : chunk(entries).map((part) => ({ kind: "leaf", entries: part }));
  }

  // Route each change to the child whose range holds its key.
  const routed = new Map<number, Change[]>();
  for (const change of changes) {
    const index = childIndex(node.children, change[0]);
    const list = routed.get(index);
    if (list) list.push(change);
    else routed.set(index, [change]);
  }
  const loaded = await source.load([...routed.keys()].map((index) => node.children[index]![1]));
  const results = await Promise.all(
    [...routed].map(async ([index, childChanges]) => [index, await updateNode(source, sink, loaded.get(node.children[index]![1])!, childChanges)] as const),
  );
  const replaced = new Map(results);

  // Rebuild the child list; small fresh children are merged with a neighbour so that deletes
  // do not leave a trail of tiny nodes.
  const slots: ({ fresh: TreeNode } | { kept: [string, string] })[] = [];
  node.children.forEach((child, index) => {
    const replacement = replaced.get(index);
    if (!replacement) slots.push({ kept: child });
    else for (const fresh of replacement) slots.push({ fresh });
  });
  for (let index = 0; index < slots.length; index++) {
    const slot = slots[index]!;
    if (!("fresh" in slot) || sizeOf(slot.fresh) >= MIN_NODE_SIZE || slots.length === 1) continue;
    const neighbourIndex = index + 1 < slots.length ? index + 1 : index - 1;
    const neighbour = slots[neighbourIndex]!;
    const other = "fresh" in neighbour ? neighbour.fresh : await loadOne(source, neighbour.kept[1]);
    if (other.kind !== slot.fresh.kind) continue;
    const [left, right] = neighbourIndex > index ? [slot.fresh, other] : [other, slot.fresh];
    const merged: TreeNode[] =
      left.kind === "leaf" && right.kind === "leaf"
        ? chunk([...left.entries, ...right.entries]).map((part) => ({ kind: "leaf", entries: part }))
        : chunk([...(left as Extract<TreeNode, { kind: "branch" }>).children, ...(right as Extract<TreeNode, { kind: "branch" }>).children]).map((part) => ({
            kind: "branch",
            children: part,
          }));
    const start = Math.min(index, neighbourIndex);
    slots.splice(start, 2, ...merged.map((fresh) => ({ fresh })));
    index = start + merged.length - 1;
  }
  const children: [string, string][] = slots.map((slot) => ("kept" in slot ? slot.kept : [firstKey(slot.fresh), sink.put(slot.fresh)]));
  if (children.length === 0) return [];
  return chunk(children).map((part) => ({ kind: "branch", children: part }));
}

/**
 * Applies `changes` (value null = delete) and answers the new root id (null for an empty tree).
 * New nodes go to `sink`; untouched subtrees keep their ids.
 */
export async function treeUpdate(source: NodeSource, sink: NodeSink, root: string | null, changes: ReadonlyMap<string, string | null>): Promise<string | null> {
  if (changes.size === 0) return root;
  const sorted = [...changes].sort((a, b) => compare(a[0], b[0]));
  let level: TreeNode[];
  if (root) {
    level = await updateNode(source, sink, await loadOne(source, root), sorted);
  } else {
    const entries = sorted.filter((change): change is [string, string] => change[1] !== null);
    level = entries.length === 0 ? [] : chunk(entries).map((part) => ({ kind: "leaf", entries: part }));
  }
  // Grow: several nodes at the top get a parent (repeatedly, for a bulk load).
  while (level.length > 1) {
    const children: [string, string][] = level.map((node) => [firstKey(node), sink.put(node)]);
    level = chunk(children).map((part) => ({ kind: "branch", children: part }));
  }
  let top = level[0];
  // Shrink: a branch with a single child is replaced by that child.
  while (top?.kind === "branch" && top.children.length === 1) top = await loadOne(source, top.children[0]![1]);
  return top ? sink.put(top) : null;
}

/** A key whose value differs between two trees (undefined: absent on that side). */
export interface TreeDifference {
  key: string;
  before: string | undefined;
  after: string | undefined;
}

/**
 * The entries that differ between two trees, in key order. Nodes are content-addressed, so a
 * subtree both trees share is the same id on both sides and is skipped without being read: the
 * cost follows the size of the change, not of the tree. Pruning happens only when both sides meet
 * the same node in the same step (heights can differ by a level after splits); leaves reached on
 * both sides anyway cancel out, so the answer is exact either way.
 */
export async function treeDiff(source: NodeSource, before: string | null, after: string | null): Promise<TreeDifference[]> {
  if (before === after) return [];
  let left = before ? [before] : [];
  let right = after ? [after] : [];
  const leftLeaves = new Map<string, TreeNode>();
  const rightLeaves = new Map<string, TreeNode>();
  while (left.length > 0 || right.length > 0) {
    const rightIds = new Set(right);
    const shared = new Set(left.filter((id) => rightIds.has(id)));
    left = left.filter((id) => !shared.has(id));
    right = right.filter((id) => !shared.has(id));
    const loaded = await source.load([...new Set([...left, ...right])]);
    const expand = (ids: string[], leaves: Map<string, TreeNode>): string[] => {
      const next: string[] = [];
      for (const id of ids) {
        const node = loaded.get(id);
        if (!node) throw new Error(`tree node ${id} is missing`);
        if (node.kind === "leaf") leaves.set(id, node);
        else for (const [, child] of node.children) next.push(child);
      }
      return next;
    };
    left = expand(left, leftLeaves);
    right = expand(right, rightLeaves);
  }
  for (const id of [...leftLeaves.keys()]) {
    if (rightLeaves.delete(id)) leftLeaves.delete(id);
  }
  const values = new Map<string, { before?: string; after?: string }>();
  for (const leaf of leftLeaves.values()) {
    if (leaf.kind === "leaf") for (const [key, value] of leaf.entries) values.set(key, { before: value });
  }
  for (const leaf of rightLeaves.values()) {
    if (leaf.kind !== "leaf") continue;
    for (const [key, value] of leaf.entries) {
      const entry = values.get(key);
      if (entry) entry.after = value;
      else values.set(key, { after: value });
    }
  }
  const differences: TreeDifference[] = [];
  for (const [key, entry] of values) {
    if (entry.before !== entry.after) differences.push({ key, before: entry.before, after: entry.after });
  }
  return differences.sort((a, b) => compare(a.key, b.key));
}
