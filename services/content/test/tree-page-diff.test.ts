import { describe, expect, it } from "vitest";
import { nodeId, treeEntries, treeUpdate, type NodeSink, type NodeSource, type TreeNode } from "../src/revisions/domain/tree/btree.js";
import { diffPageVersions } from "../src/revisions/domain/tree/page-diff.js";

/** The revision store's B+tree over an in-memory node table, counting the nodes each walk loads. */
class MemoryNodes implements NodeSource, NodeSink {
  private readonly nodes = new Map<string, TreeNode>();
  loaded = 0;
  async load(ids: readonly string[]): Promise<Map<string, TreeNode>> {
    this.loaded += ids.length;
    return Promise.resolve(new Map(ids.map((id) => [id, this.nodes.get(id)!])));
  }
  put(node: TreeNode): string {
    const id = nodeId(node);
    this.nodes.set(id, node);
    return id;
  }
}

/** A content tree like a revision's: page, slug and child keys for `pages` pages, files too. */
function contentKeys(pages: number, version: (page: number) => string): Map<string, string> {
  const keys = new Map<string, string>();
  for (let page = 0; page < pages; page++) {
    const id = `page${String(page).padStart(5, "0")}`;
    keys.set(`p:${id}`, version(page));
    keys.set(`s:/${id}`, id);
    keys.set(`c:/a${page}/${id}`, id);
  }
  for (let file = 0; file < 50; file++) keys.set(`f:file${file}`, `v${file}`);
  return keys;
}

/** The diff computed by reading both trees whole. */
async function naiveDiff(nodes: MemoryNodes, before: string | null, after: string | null) {
  const pagesOf = async (root: string | null) => new Map((await treeEntries(nodes, root)).filter(([key]) => key.startsWith("p:")));
  const [old, current] = [await pagesOf(before), await pagesOf(after)];
  const changes: { pageId: string; before: string | undefined; after: string | undefined }[] = [];
  for (const key of new Set([...old.keys(), ...current.keys()])) {
    if (old.get(key) !== current.get(key)) changes.push({ pageId: key.slice(2), before: old.get(key), after: current.get(key) });
  }
  return changes;
}

const byPage = (a: { pageId: string }, b: { pageId: string }) => (a.pageId < b.pageId ? -1 : 1);

describe("diffPageVersions", () => {
  it("finds exactly the pages added, changed and removed, loading only the nodes on their paths", async () => {
    const nodes = new MemoryNodes();
    const before = await treeUpdate(
      nodes,
      nodes,
      null,
      contentKeys(10_000, () => "v1"),
    );
    const changes = new Map<string, string | null>([
      ["p:page04242", "v2"],
      ["p:page10000", "v1"],
      ["s:/page10000", "page10000"],
      ["p:page00007", null],
      ["f:file3", "v9"],
    ]);
    const after = await treeUpdate(nodes, nodes, before, changes);
    nodes.loaded = 0;
    const diff = await diffPageVersions(nodes, before, after);
    expect(diff.sort(byPage)).toEqual([
      { pageId: "page00007", before: "v1", after: undefined },
      { pageId: "page04242", before: "v1", after: "v2" },
      { pageId: "page10000", before: undefined, after: "v1" },
    ]);
    // 30,050 keys make a 3-level tree of ~650 nodes; the diff reads a few paths of it.
    expect(nodes.loaded).toBeLessThan(30);
  });

  it("agrees with a full comparison when the tree changes height, and from an empty tree", async () => {
    const nodes = new MemoryNodes();
    const small = await treeUpdate(
      nodes,
      nodes,
      null,
      contentKeys(40, (page) => `v${page}`),
    );
    const large = await treeUpdate(
      nodes,
      nodes,
      small,
      contentKeys(5_000, (page) => (page % 3 === 0 ? "changed" : `v${page}`)),
    );
    expect((await diffPageVersions(nodes, small, large)).sort(byPage)).toEqual((await naiveDiff(nodes, small, large)).sort(byPage));
    expect((await diffPageVersions(nodes, large, small)).sort(byPage)).toEqual((await naiveDiff(nodes, large, small)).sort(byPage));
    expect(await diffPageVersions(nodes, null, small)).toHaveLength(40);
    expect(await diffPageVersions(nodes, large, large)).toEqual([]);
  });
});
