import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ChangeRequestOrder,
  ChangeRequestStatus,
  type ChangeRequest,
  type ListOrganizationChangeRequestsRequest,
} from "@imprint/proto/collaboration/v1/change_requests";
import { CommentFormat } from "@imprint/proto/collaboration/v1/comments";
import { createChangeRequest, createMember, createOrganization, createSpace, errorCode, type TestOrganization, type TestUser } from "@imprint/runtime/testing";
import { startCollaborationHarness, type CollaborationHarness } from "./support/harness.js";

/**
 * ListOrganizationChangeRequests over gRPC: the organization-wide list asks content which spaces
 * the caller reads, filters in the database and completes each page with one call per kind of
 * data, whatever the number of spaces on it.
 */
let harness: CollaborationHarness;
let org: TestOrganization;
let editor: TestUser;

beforeAll(async () => {
  harness = await startCollaborationHarness();
  org = await createOrganization(harness);
  editor = await createMember(harness, org.organizationId, { role: "edit" });
});
afterAll(() => harness?.stop());

const list = (caller: TestUser["caller"], fields: Partial<ListOrganizationChangeRequestsRequest> = {}) =>
  harness.changeRequests.listOrganizationChangeRequests({
    caller,
    organizationId: org.organizationId,
    statuses: [],
    creatorUserId: "",
    contributorUserId: "",
    spaceId: "",
    orderBy: ChangeRequestOrder.CHANGE_REQUEST_ORDER_UNSPECIFIED,
    page: undefined,
    ...fields,
  });

describe("ListOrganizationChangeRequests", () => {
  it("answers change requests of many spaces with their branches, creators and comment counts; refuses bad input", async () => {
    const spaces = await Promise.all([0, 1, 2].map(() => createSpace(harness, org)));
    const created: ChangeRequest[] = [];
    for (const space of spaces) created.push(await createChangeRequest(harness, editor.caller, space.id, { subject: `In ${space.id}` }));

    const commented = created[1]!;
    await harness.comments.postComment({
      caller: org.owner.caller,
      scope: { spaceId: commented.spaceId, changeRequestId: commented.id },
      pageId: "",
      nodeId: "",
      markdown: "Looks good",
      format: CommentFormat.COMMENT_FORMAT_UNSPECIFIED,
    });

    const answer = await list(org.owner.caller, { contributorUserId: editor.userId });
    expect(answer.page?.totalCount).toBe(3);
    expect(answer.changeRequests.map((cr) => cr.id)).toEqual(created.map((cr) => cr.id).reverse());
    for (const cr of answer.changeRequests) {
      const source = created.find((item) => item.id === cr.id)!;
      // The branch's revisions and the creator come with every item, whatever its space.
      expect(cr).toMatchObject({
        spaceId: source.spaceId,
        organizationId: org.organizationId,
        revisionId: source.revisionId,
        initialRevisionId: source.initialRevisionId,
      });
      expect(cr.comments).toBe(cr.id === commented.id ? 1 : 0);
      expect(cr.createdBy?.id).toBe(editor.userId);
    }

    const onlyDrafts = await list(org.owner.caller, { statuses: [ChangeRequestStatus.CHANGE_REQUEST_STATUS_DRAFT] });
    expect(onlyDrafts.changeRequests).toEqual([]);
    expect(await errorCode(list(org.owner.caller, { statuses: [99 as ChangeRequestStatus] }))).toBe("invalid_argument");
    expect(await errorCode(list(org.owner.caller, { orderBy: 7 as ChangeRequestOrder }))).toBe("invalid_argument");
    expect(await errorCode(list(org.owner.caller, { organizationId: "not-an-id" }))).toBe("not_found");
    const outsider = await createOrganization(harness);
    expect(await errorCode(list(outsider.owner.caller))).toBe("not_found");
  });
});
