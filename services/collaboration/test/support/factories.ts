import { randomUUID } from "node:crypto";
import type { Caller } from "@imprint/proto/common/v1";
import { CreatePageInput, UpdatePageInput } from "@imprint/proto/content/v1/editing";
import { DocumentFormat } from "@imprint/proto/content/v1/revisions";
import { SpaceEditMode, type Space } from "@imprint/proto/content/v1/spaces";
import { MemberRole } from "@imprint/proto/identity/v1";
import type { CollaborationHarness } from "./harness.js";

/** Failure probes for calls, shared by every service's tests. */
export { errorCode, failure } from "@imprint/runtime/testing";

/**
 * Test data through identity's administrative RPCs and content's own RPCs, with unique names so
 * tests never see each other's rows.
 */
export interface TestUser {
  userId: string;
  email: string;
  caller: Caller;
}

export interface TestOrganization {
  organizationId: string;
  /** An admin of the organization. */
  owner: TestUser;
}

export type RoleName = "admin" | "review" | "edit" | "comment" | "read";

const MEMBER_ROLE: Record<RoleName, MemberRole> = {
  admin: MemberRole.MEMBER_ROLE_ADMIN,
  review: MemberRole.MEMBER_ROLE_REVIEW,
  edit: MemberRole.MEMBER_ROLE_EDIT,
  comment: MemberRole.MEMBER_ROLE_COMMENT,
  read: MemberRole.MEMBER_ROLE_READ,
};

const uniqueEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.com`;
const userOf = (userId: string, email: string): TestUser => ({ userId, email, caller: { userId, tokenId: "" } });

export async function createOrganization(harness: Pick<CollaborationHarness, "identity">): Promise<TestOrganization> {
  const email = uniqueEmail("owner");
  const created = await harness.identity.createOrganization({ title: `Org ${randomUUID().slice(0, 8)}`, ownerEmail: email, ownerDisplayName: "Olivia Owner", ownerToken: "" });
  return { organizationId: created.organizationId, owner: userOf(created.userId, email) };
}

/** A new user named `displayName`, added to the organization with `role`. */
export async function addMember(harness: Pick<CollaborationHarness, "identity">, organizationId: string, role: RoleName, displayName = `${role} member`): Promise<TestUser> {
  const email = uniqueEmail(role);
  await harness.identity.createUser({ email, displayName });
  const added = await harness.identity.addMember({ organizationId, email, role: MEMBER_ROLE[role] });
  return userOf(added.member!.user!.id, email);
}

export async function createSpace(harness: Pick<CollaborationHarness, "spaces">, organization: TestOrganization): Promise<Space> {
  const { space } = await harness.spaces.createSpace({
    caller: organization.owner.caller,
    organizationId: organization.organizationId,
    title: `Space ${randomUUID().slice(0, 6)}`,
    emoji: "",
    parentId: "",
    editMode: SpaceEditMode.SPACE_EDIT_MODE_UNSPECIFIED,
  });
  return space!;
}

/**
 * Opens a draft on the space's content (or on a change request's branch), runs `edit` on it and
 * commits it as the new head. Answers the new revision.
 */
export async function commitEdit(
  harness: Pick<CollaborationHarness, "editing">,
  caller: Caller,
  target: { spaceId: string; changeRequestId?: string },
  edit: (draftId: string) => Promise<unknown>,
): Promise<string> {
  const { draft } = await harness.editing.openDraft({ caller, spaceId: target.spaceId, parentRevisionId: "", changeRequestId: target.changeRequestId ?? "" });
  await edit(draft!.id);
  const committed = await harness.editing.commitDraft({ caller, draftId: draft!.id, message: "edit", moveHead: true, expectedHeadRevisionId: "" });
  return committed.revisionId;
}

/** Adds a page with a markdown body; answers its id. */
export async function addPage(
  harness: Pick<CollaborationHarness, "editing">,
  caller: Caller,
  target: { spaceId: string; changeRequestId?: string },
  page: { title: string; markdown: string; pageId?: string },
): Promise<string> {
  const pageId = page.pageId ?? `page-${randomUUID().slice(0, 8)}`;
  await commitEdit(harness, caller, target, (draftId) =>
    harness.editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial({ pageId, title: page.title, markdown: page.markdown }) }),
  );
  return pageId;
}

/** Replaces a page's markdown body. */
export async function setPageMarkdown(
  harness: Pick<CollaborationHarness, "editing">,
  caller: Caller,
  target: { spaceId: string; changeRequestId?: string },
  pageId: string,
  markdown: string,
): Promise<string> {
  return commitEdit(harness, caller, target, (draftId) => harness.editing.updatePage({ caller, draftId, page: UpdatePageInput.fromPartial({ pageId, markdown }) }));
}

/** A page's markdown in the space's content (or a change request's). */
export async function pageMarkdown(
  harness: Pick<CollaborationHarness, "revisions">,
  caller: Caller,
  target: { spaceId: string; changeRequestId?: string },
  pageId: string,
): Promise<string> {
  const { page } = await harness.revisions.getPage({
    caller,
    ref: { spaceId: target.spaceId, changeRequestId: target.changeRequestId ?? "", revisionId: "" },
    options: { metadata: false, computed: false },
    pageId,
    pageOptions: { format: DocumentFormat.DOCUMENT_FORMAT_MARKDOWN, evaluated: false },
  });
  return page!.markdown;
}
