import { describe, expect, it } from "vitest";
import {
  MAX_NODE_SIZE,
  nodeId,
  treeDiff,
  treeEntries,
  treeGet,
  treeGetMany,
  treeScan,
  treeUpdate,
  type NodeSink,
  type NodeSource,
  type TreeNode,
} from "../src/revisions/domain/tree/btree.js";

/** Nodes in a map, counting what each update writes (the database does the same with rows). */
class MemoryNodes implements NodeSource, NodeSink {
  readonly nodes = new Map<string, TreeNode>();
  written = 0;
  loads = 0;

  load(ids: readonly string[]): Promise<Map<string, TreeNode>> {
    this.loads++;
    const found = new Map<string, TreeNode>();
    for (const id of ids) {
      const node = this.nodes.get(id);
      if (node) found.set(id, node);
    }
    return Promise.resolve(found);
  }

  put(node: TreeNode): string {
    const id = nodeId(node);
    if (!this.nodes.has(id)) this.written++;
    this.nodes.set(id, node);
    return id;
  }
}

const pad = (n: number) => String(n).padStart(6, "0");

async function build(store: MemoryNodes, count: number): Promise<string | null> {
  const changes = new Map<string, string | null>();
  for (let i = 0; i < count; i++) changes.set(`p:${pad(i)}`, `v${i}`);
  return treeUpdate(store, store, null, changes);
}

/** Depth of the tree and the largest node, walking every node. */
async function shape(store: MemoryNodes, root: string): Promise<{ depth: number; largest: number; leafDepths: Set<number> }> {
  let largest = 0;
  const leafDepths = new Set<number>();
  const walk = async (id: string, depth: number) => {
    const node = (await store.load([id])).get(id)!;
    largest = Math.max(largest, node.kind === "leaf" ? node.entries.length : node.children.length);
    if (node.kind === "leaf") leafDepths.add(depth);
    else for (const [, child] of node.children) await walk(child, depth + 1);
  };
  await walk(root, 1);
  return { depth: Math.max(...leafDepths), largest, leafDepths };
}

describe("copy-on-write B+tree", () => {
  it("bulk-loads 30,000 keys into a balanced tree of bounded nodes, all leaves at one depth", async () => {
    const store = new MemoryNodes();
    const root = await build(store, 30_000);
    const { depth, largest, leafDepths } = await shape(store, root!);
    expect(leafDepths.size).toBe(1);
    expect(depth).toBe(3);
    expect(largest).toBeLessThanOrEqual(MAX_NODE_SIZE);
    expect(await treeGet(store, root, "p:012345")).toBe("v12345");
    expect(await treeGet(store, root, "p:999999")).toBeUndefined();
  });

  it("changing one key of 30,000 writes one node per level and shares the rest", async () => {
    const store = new MemoryNodes();
    const root = await build(store, 30_000);
    store.written = 0;
    const next = await treeUpdate(store, store, root, new Map([["p:015000", "changed"]]));
    expect(store.written).toBe(3);
    expect(await treeGet(store, next, "p:015000")).toBe("changed");
    // The old root still describes the old content (persistence).
    expect(await treeGet(store, root, "p:015000")).toBe("v15000");
  });

  it("matches a plain map through random inserts, updates and deletes", async () => {
    const store = new MemoryNodes();
    const model = new Map<string, string>();
    let root: string | null = null;
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 60; round++) {
      const changes = new Map<string, string | null>();
      const size = 1 + Math.floor(random() * 200);
      for (let i = 0; i < size; i++) {
        const key = `k:${Math.floor(random() * 3000)}`;
        const value = random() < 0.35 ? null : `r${round}-${i}`;
        changes.set(key, value);
      }
      root = await treeUpdate(store, store, root, changes);
      for (const [key, value] of changes) {
        if (value === null) model.delete(key);
        else model.set(key, value);
      }
      const entries = await treeEntries(store, root);
      expect(entries).toEqual([...model].sort(([a], [b]) => (a < b ? -1 : 1)));
      if (root) expect((await shape(store, root)).leafDepths.size).toBe(1);
    }
    const sample = [...model.keys()].slice(0, 50);
    const many = await treeGetMany(store, root, [...sample, "k:none"]);
    expect([...many.keys()].sort()).toEqual([...sample].sort());
  });

  it("deleting every key leaves an empty tree", async () => {
    const store = new MemoryNodes();
    const root = await build(store, 500);
    const changes = new Map<string, string | null>();
    for (let i = 0; i < 500; i++) changes.set(`p:${pad(i)}`, null);
    expect(await treeUpdate(store, store, root, changes)).toBeNull();
  });

  it("deleting most keys merges small nodes back into a shallow tree", async () => {
    const store = new MemoryNodes();
    let root = await build(store, 5_000);
    for (let start = 0; start < 4_990; start += 500) {
      const changes = new Map<string, string | null>();
      for (let i = start; i < Math.min(start + 500, 4_990); i++) changes.set(`p:${pad(i)}`, null);
      root = await treeUpdate(store, store, root, changes);
    }
    expect(await treeEntries(store, root)).toHaveLength(10);
    expect((await shape(store, root!)).depth).toBeLessThanOrEqual(2);
  });

  it("scans a prefix in key order, after a key, with a limit", async () => {
    const store = new MemoryNodes();
    const changes = new Map<string, string | null>();
    for (let i = 0; i < 3_000; i++) {
      changes.set(`c:parentA/${pad(i)}`, `a${i}`);
      changes.set(`c:parentB/${pad(i)}`, `b${i}`);
      changes.set(`p:${pad(i)}`, `p${i}`);
    }
    const root = await treeUpdate(store, store, null, changes);
    const children = await treeScan(store, root, { prefix: "c:parentA/" });
    expect(children).toHaveLength(3_000);
    expect(children[0]).toEqual(["c:parentA/000000", "a0"]);
    expect(children.every(([key], index) => index === 0 || key > children[index - 1]![0])).toBe(true);

    const page = await treeScan(store, root, { prefix: "c:parentB/", after: "c:parentB/001499", limit: 10 });
    expect(page.map(([, value]) => value)).toEqual(["b1500", "b1501", "b1502", "b1503", "b1504", "b1505", "b1506", "b1507", "b1508", "b1509"]);
    expect(await treeScan(store, root, { prefix: "c:parentC/" })).toEqual([]);
    expect(await treeScan(store, null, { prefix: "" })).toEqual([]);
  });

  it("a limited scan loads few nodes", async () => {
    const store = new MemoryNodes();
    const root = await build(store, 30_000);
    store.loads = 0;
    const first = await treeScan(store, root, { prefix: "p:", limit: 5 });
    expect(first).toHaveLength(5);
    expect(store.loads).toBeLessThanOrEqual(4);
  });
});

describe("treeDiff", () => {
  it("answers exactly the entries that differ, reading only the changed part of a large tree", async () => {
    const store = new MemoryNodes();
    const before = await build(store, 30_000);
    const changes = new Map<string, string | null>([
      ["p:000007", "changed"],
      ["p:015000", null],
      ["p:029999", "changed too"],
      ["p:015000x", "added"],
      ["q:new", "added at the end"],
    ]);
    const after = await treeUpdate(store, store, before, changes);
    store.loads = 0;
    const nodesRead = new Set<string>();
    const counting: NodeSource = {
      load: (ids) => {
        ids.forEach((id) => nodesRead.add(id));
        return store.load(ids);
      },
    };
    const differences = await treeDiff(counting, before, after);
    expect(differences).toEqual([
      { key: "p:000007", before: "v7", after: "changed" },
      { key: "p:015000", before: "v15000", after: undefined },
      { key: "p:015000x", before: undefined, after: "added" },
      { key: "p:029999", before: "v29999", after: "changed too" },
      { key: "q:new", before: undefined, after: "added at the end" },
    ]);
    // Three levels, a handful of changed paths: far fewer nodes than the ~640 of the whole tree.
    expect(nodesRead.size).toBeLessThan(30);
    expect(await treeDiff(store, before, before)).toEqual([]);
  });

  it("matches a full comparison for random edits, including between trees of different heights", async () => {
    const store = new MemoryNodes();
    for (const [size, edits] of [
      [50, 30],
      [3_000, 400],
      [200, 5_000],
    ] as const) {
      const before = await build(store, size);
      const changes = new Map<string, string | null>();
      for (let i = 0; i < edits; i++) {
        const key = `p:${pad(Math.floor(Math.random() * (size + edits)))}`;
        changes.set(key, Math.random() < 0.3 ? null : `edit${i}`);
      }
      const after = await treeUpdate(store, store, before, changes);
      const left = new Map(await treeEntries(store, before));
      const right = new Map(await treeEntries(store, after));
      const expected = [...new Set([...left.keys(), ...right.keys()])]
        .filter((key) => left.get(key) !== right.get(key))
        .sort()
        .map((key) => ({ key, before: left.get(key), after: right.get(key) }));
      expect(await treeDiff(store, before, after)).toEqual(expected);
      expect(await treeDiff(store, after, before)).toEqual(expected.map(({ key, before: b, after: a }) => ({ key, before: a, after: b })));
    }
  });
});
