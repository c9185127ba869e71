import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import { ContentChangeType, PageType } from "@imprint/proto/content/v1/revisions";
import { ContentLevel, UpdateSpaceRequest } from "@imprint/proto/content/v1/spaces";
import type { PromiseClient } from "@imprint/runtime";
import { createMember, createOrganization, createRevision, createSpace, errorCode, testClient, type TestOrganization } from "@imprint/runtime/testing";
import { startContentHarness, type ContentHarness } from "./support/harness.js";
import { contentClients, newPage, pageChange, type ContentClients } from "./revisions-fixtures.js";

/**
 * What content answers for lists that concern change requests: ListBranchChanges (a branch's
 * changes against its merge base, for every kind of page), ListReadableSpaceIds and
 * BatchGetOrganizationBranches (the organization-wide change request list's access), over gRPC.
 */
let harness: ContentHarness;
let clients: ContentClients;
let branches: PromiseClient<typeof BranchServiceService>;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  harness = await startContentHarness();
  clients = contentClients(harness);
  branches = testClient(BranchServiceService, harness.contentAddress);
});
afterAll(async () => {
  branches?.close();
  clients?.close();
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
  spaceId = (await createSpace(harness, org)).id;
});

const owner = () => org.owner.caller;
const createBranch = async (space = spaceId, number = 1) =>
  (await branches.createBranch({ caller: owner(), spaceId: space, changeRequestId: randomUUID(), number })).branch!;
const editSpace = (work: (draftId: string) => Promise<unknown>) => createRevision(clients, owner(), { spaceId }, work);
const editBranch = (changeRequestId: string, work: (draftId: string) => Promise<unknown>) =>
  createRevision(clients, owner(), { spaceId, changeRequestId }, work);
const listChanges = (changeRequestId: string, pageSize = 0, pageToken = "", revisionId = "") =>
  clients.revisions.listBranchChanges({ caller: owner(), ref: { spaceId, changeRequestId, revisionId }, page: { pageSize, pageToken } });

describe("ListBranchChanges", () => {
  it("reports group and link pages with their own attributes, reorders as moves, and nothing for fields no change shows", async () => {
    await editSpace(async (draftId) => {
      const create = (fields: Parameters<typeof newPage>[0]) => clients.editing.createPage({ caller: owner(), draftId, page: newPage(fields) });
      await create({ pageId: "group", title: "Group", type: PageType.PAGE_TYPE_GROUP });
      await create({ pageId: "link", title: "Link", type: PageType.PAGE_TYPE_LINK, href: "https://example.com/a" });
      await create({ pageId: "first", title: "First", markdown: "One." });
      await create({ pageId: "second", title: "Second", markdown: "Two." });
      await create({ pageId: "quiet", title: "Quiet", markdown: "Shh." });
    });
    const branch = await createBranch();
    await editBranch(branch.id, async (draftId) => {
      const update = (fields: Parameters<typeof pageChange>[0]) => clients.editing.updatePage({ caller: owner(), draftId, page: pageChange(fields) });
      await update({ pageId: "group", title: "Grouped", slug: "grouped", description: "not shown for groups" });
      await update({ pageId: "link", href: "https://example.com/b" });
      await update({ pageId: "quiet", hidden: true, noIndex: true });
      await clients.editing.movePage({
        caller: owner(),
        draftId,
        move: { pageId: "second", parentPageId: "", position: { beforePageId: "first", afterPageId: "" } },
      });
    });

    const answer = await listChanges(branch.id);
    expect(answer.revisionId).toBe((await branches.batchGetBranches({ caller: owner(), spaceId, changeRequestIds: [branch.id] })).branches[0]!.headRevisionId);
    expect(answer.baseRevisionId).toBe(branch.initialRevisionId);
    expect(answer.changes.map((change) => [change.type, change.page?.id])).toEqual([
      [ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_EDITED, "group"],
      [ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_EDITED, "link"],
      [ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_MOVED, "second"],
    ]);
    const [group, link, moved] = answer.changes;
    expect(group!.page!.type).toBe(PageType.PAGE_TYPE_GROUP);
    expect(group!.pageAttributes).toMatchObject({
      title: { before: "Group", after: "Grouped" },
      description: undefined,
      slug: { before: "group", after: "grouped" },
    });
    expect(link!.pageAttributes).toMatchObject({ href: { before: "https://example.com/a", after: "https://example.com/b" }, title: undefined });
    // A reorder among the same siblings is a move with the same (top-level) parent on both sides.
    expect(moved!.parentBefore).toBeUndefined();
    expect(moved!.parentAfter).toBeUndefined();
    expect(answer.page).toEqual({ nextPageToken: "", totalCount: 3 });
    expect(answer.remaining).toBe(0);
  });

  it("pages by key, and refuses references it cannot answer", async () => {
    await editSpace((draftId) => clients.editing.createPage({ caller: owner(), draftId, page: newPage({ pageId: "a", title: "A", markdown: "A." }) }));
    const branch = await createBranch();
    await editBranch(branch.id, async (draftId) => {
      for (const id of ["b", "c", "d"])
        await clients.editing.createPage({ caller: owner(), draftId, page: newPage({ pageId: id, title: id.toUpperCase(), markdown: "." }) });
    });
    const first = await listChanges(branch.id, 2);
    expect(first.changes.map((change) => change.page?.id)).toEqual(["b", "c"]);
    expect(first.remaining).toBe(1);
    const second = await listChanges(branch.id, 2, first.page!.nextPageToken);
    expect(second.changes.map((change) => change.page?.id)).toEqual(["d"]);
    expect(second.page!.nextPageToken).toBe("");

    expect(await errorCode(listChanges(""))).toBe("invalid_argument");
    expect(await errorCode(listChanges(branch.id, 0, "", branch.headRevisionId))).toBe("invalid_argument");
    expect(await errorCode(listChanges(branch.id, 0, "garbage"))).toBe("invalid_argument");
    expect(await errorCode(listChanges(branch.id, 1001))).toBe("invalid_argument");
    expect(await errorCode(listChanges(randomUUID()))).toBe("not_found");
    const outsider = await createOrganization(harness);
    expect(
      await errorCode(
        clients.revisions.listBranchChanges({ caller: outsider.owner.caller, ref: { spaceId, changeRequestId: branch.id, revisionId: "" }, page: undefined }),
      ),
    ).toBe("not_found");
  });
});

describe("organization-wide reads for change request lists", () => {
  it("answers the spaces a member can read and the branches of those spaces only", async () => {
    const hidden = (await createSpace(harness, org)).id;
    await harness.spaces.updateSpace(
      UpdateSpaceRequest.fromPartial({ caller: owner(), spaceId: hidden, updateMask: ["default_level"], defaultLevel: ContentLevel.CONTENT_LEVEL_NONE }),
    );
    const deleted = (await createSpace(harness, org)).id;
    const visibleBranch = await createBranch(spaceId);
    const hiddenBranch = await createBranch(hidden);
    const deletedBranch = await createBranch(deleted);
    await harness.spaces.deleteSpace({ caller: owner(), spaceId: deleted });

    const member = await createMember(harness, org.organizationId, { role: "edit" });
    const guest = await createMember(harness, org.organizationId, { role: "guest" });
    const readable = (caller = owner()) =>
      harness.spaces.listReadableSpaceIds({ caller, organizationId: org.organizationId }).then((answer) => answer.spaceIds);
    expect(await readable()).toEqual([spaceId, hidden].sort());
    expect(await readable(member.caller)).toEqual([spaceId]);
    expect(await readable(guest.caller)).toEqual([]);

    // BatchGetSpaces: the asked spaces each caller can view, in the order asked, once each.
    const spaces = async (caller = owner(), organizationId = org.organizationId) =>
      (await harness.spaces.batchGetSpaces({ caller, organizationId, spaceIds: [hidden, deleted, spaceId, hidden, randomUUID(), "not-an-id"] })).spaces.map(
        (space) => space.id,
      );
    expect(await spaces()).toEqual([hidden, spaceId]);
    expect(await spaces(member.caller)).toEqual([spaceId]);
    expect(await spaces(guest.caller)).toEqual([]);
    expect(
      await errorCode(
        harness.spaces.batchGetSpaces({ caller: owner(), organizationId: org.organizationId, spaceIds: Array.from({ length: 1001 }, () => randomUUID()) }),
      ),
    ).toBe("invalid_argument");

    const ids = [visibleBranch.id, hiddenBranch.id, deletedBranch.id, randomUUID(), "not-an-id"];
    const found = async (caller = owner()) =>
      (await branches.batchGetOrganizationBranches({ caller, organizationId: org.organizationId, changeRequestIds: ids })).branches
        .map((branch) => branch.id)
        .sort();
    expect(await found()).toEqual([visibleBranch.id, hiddenBranch.id].sort());
    expect(await found(member.caller)).toEqual([visibleBranch.id]);
    expect(await found(guest.caller)).toEqual([]);

    const outsider = await createOrganization(harness);
    expect(await errorCode(readable(outsider.owner.caller))).toBe("not_found");
    expect(await errorCode(found(outsider.owner.caller))).toBe("not_found");
    expect(await errorCode(spaces(outsider.owner.caller))).toBe("not_found");
    // Another organization's spaces are never answered, even to its own admins asking here.
    expect(await spaces(outsider.owner.caller, outsider.organizationId)).toEqual([]);
    // Another organization's branches are never answered, even to its own admins asking here.
    expect(
      (await branches.batchGetOrganizationBranches({ caller: outsider.owner.caller, organizationId: outsider.organizationId, changeRequestIds: ids })).branches,
    ).toEqual([]);
    expect(
      await errorCode(
        branches.batchGetOrganizationBranches({
          caller: owner(),
          organizationId: org.organizationId,
          changeRequestIds: Array.from({ length: 1001 }, () => randomUUID()),
        }),
      ),
    ).toBe("invalid_argument");
  });
});
