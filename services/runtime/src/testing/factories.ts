import { randomUUID } from "node:crypto";
import type { ChangeRequest } from "@imprint/proto/collaboration/v1/change_requests";
import type { Caller } from "@imprint/proto/common/v1";
import type { Collection } from "@imprint/proto/content/v1/collections";
import { CreatePageInput, UpdatePageInput } from "@imprint/proto/content/v1/editing";
import { DocumentFormat } from "@imprint/proto/content/v1/revisions";
import { SpaceEditMode, type Space } from "@imprint/proto/content/v1/spaces";
import { MemberRole } from "@imprint/proto/identity/v1";
import type { ServiceClients } from "./clients.js";

/*
 * Test data through the services' own gRPC APIs (identity's administrative RPCs, content's and
 * collaboration's), with unique names so tests never see each other's rows. Each factory takes the
 * clients it needs: a harness, a stack or a TestServices' `clients` all have them.
 */

export interface TestUser {
  userId: string;
  email: string;
  /** The caller of gRPC requests made as this user (no token). */
  caller: Caller;
  /** Their API token, when one was issued. */
  token?: string;
}

/** An organization's owner: an admin who holds a token. */
export type TestOwner = TestUser & { token: string };

export interface TestOrganization {
  organizationId: string;
  title: string;
  owner: TestOwner;
}

/** Organization roles by their REST names. */
export type RoleName = "admin" | "create" | "review" | "edit" | "comment" | "read" | "guest";

const MEMBER_ROLES: Record<RoleName, MemberRole> = {
  admin: MemberRole.MEMBER_ROLE_ADMIN,
  create: MemberRole.MEMBER_ROLE_CREATE,
  review: MemberRole.MEMBER_ROLE_REVIEW,
  edit: MemberRole.MEMBER_ROLE_EDIT,
  comment: MemberRole.MEMBER_ROLE_COMMENT,
  read: MemberRole.MEMBER_ROLE_READ,
  guest: MemberRole.MEMBER_ROLE_GUEST,
};

export function memberRole(role: RoleName): MemberRole {
  return MEMBER_ROLES[role];
}

export function uniqueEmail(label = "user"): string {
  return `${label}-${randomUUID().slice(0, 8)}@example.com`;
}

const userOf = (userId: string, email: string): TestUser => ({ userId, email, caller: { userId, tokenId: "" } });

/** A new organization whose owner (an admin) holds a fresh token. */
export async function createOrganization(
  clients: Pick<ServiceClients, "identity">,
  overrides: { title?: string; ownerEmail?: string; ownerDisplayName?: string } = {},
): Promise<TestOrganization> {
  const title = overrides.title ?? `Org ${randomUUID().slice(0, 8)}`;
  const email = overrides.ownerEmail ?? uniqueEmail("owner");
  const created = await clients.identity.organizations.createOrganization({
    title,
    ownerEmail: email,
    ownerDisplayName: overrides.ownerDisplayName ?? "Olivia Owner",
    ownerToken: "",
  });
  return { organizationId: created.organizationId, title, owner: { ...userOf(created.userId, email), token: created.token } };
}

/** A new API token of the user with `email`. */
export async function createToken(clients: Pick<ServiceClients, "identity">, email: string, label = "test"): Promise<string> {
  return (await clients.identity.tokens.issueToken({ email, label })).token;
}

/**
 * A member of the organization with `role` (default read): a new user (created first when named
 * with `displayName`, otherwise by the membership), or the existing user with `email`. With `token`,
 * they also get an API token.
 */
export async function createMember(
  clients: Pick<ServiceClients, "identity">,
  organizationId: string,
  options: { role?: RoleName | MemberRole; email?: string; displayName?: string; token?: boolean } = {},
): Promise<TestUser> {
  const role = options.role ?? "read";
  const email = options.email ?? uniqueEmail(typeof role === "string" ? role : "member");
  if (options.displayName) await clients.identity.users.createUser({ email, displayName: options.displayName });
  const added = await clients.identity.members.addMember({ organizationId, email, role: typeof role === "string" ? memberRole(role) : role });
  const member = userOf(added.member!.user!.id, email);
  return options.token ? { ...member, token: await createToken(clients, email) } : member;
}

/** A user who belongs to no organization of the test. */
export async function createOutsider(clients: Pick<ServiceClients, "identity">): Promise<TestUser> {
  const email = uniqueEmail("outsider");
  const { user } = await clients.identity.users.createUser({ email, displayName: "Oscar Outsider" });
  return userOf(user!.id, email);
}

/** A space created by `caller` (default: the organization's owner). */
export async function createSpace(
  clients: Pick<ServiceClients, "spaces">,
  organization: Pick<TestOrganization, "organizationId" | "owner">,
  overrides: { title?: string; emoji?: string; parentId?: string; caller?: Caller } = {},
): Promise<Space> {
  const { space } = await clients.spaces.createSpace({
    caller: overrides.caller ?? organization.owner.caller,
    organizationId: organization.organizationId,
    title: overrides.title ?? `Space ${randomUUID().slice(0, 6)}`,
    emoji: overrides.emoji ?? "",
    parentId: overrides.parentId ?? "",
    editMode: SpaceEditMode.SPACE_EDIT_MODE_UNSPECIFIED,
  });
  return space!;
}

/** A collection created by `caller` (default: the organization's owner). */
export async function createCollection(
  clients: Pick<ServiceClients, "collections">,
  organization: Pick<TestOrganization, "organizationId" | "owner">,
  overrides: { title?: string; parentId?: string; caller?: Caller } = {},
): Promise<Collection> {
  const { collection } = await clients.collections.createCollection({
    caller: overrides.caller ?? organization.owner.caller,
    organizationId: organization.organizationId,
    title: overrides.title ?? `Collection ${randomUUID().slice(0, 6)}`,
    parentId: overrides.parentId ?? "",
  });
  return collection!;
}

/** A space's content, or a change request's (its branch). */
export interface ContentTarget {
  spaceId: string;
  /** The change request (id or number) whose branch is meant; absent for the space's own content. */
  changeRequestId?: string;
}

/**
 * A revision: opens a draft on the target's head, runs `edit` on it, commits it as the new head.
 * Answers the revision's id.
 */
export async function createRevision(
  clients: Pick<ServiceClients, "editing">,
  caller: Caller,
  target: ContentTarget,
  edit: (draftId: string) => Promise<unknown>,
  message = "edit",
): Promise<string> {
  const { draft } = await clients.editing.openDraft({ caller, spaceId: target.spaceId, parentRevisionId: "", changeRequestId: target.changeRequestId ?? "" });
  await edit(draft!.id);
  const committed = await clients.editing.commitDraft({ caller, draftId: draft!.id, message, moveHead: true, expectedHeadRevisionId: "" });
  return committed.revisionId;
}

/** A page with a markdown body, in a revision of its own; answers the page's id. */
export async function createPage(
  clients: Pick<ServiceClients, "editing">,
  caller: Caller,
  target: ContentTarget,
  page: { title: string; markdown: string; pageId?: string },
): Promise<string> {
  const pageId = page.pageId ?? `page-${randomUUID().slice(0, 8)}`;
  await createRevision(clients, caller, target, (draftId) =>
    clients.editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial({ pageId, title: page.title, markdown: page.markdown }) }),
  );
  return pageId;
}

/**
 * An UpdatePageInput changing exactly the fields given: each is named in its update mask (a
 * layout option as `layout.<option>`).
 */
export function pageUpdate(fields: Partial<UpdatePageInput> & { pageId: string }): UpdatePageInput {
  const { pageId: _pageId, updateMask: _updateMask, layout, ...values } = fields;
  const given = (object: object) => Object.entries(object).flatMap(([name, value]) => (value === undefined ? [] : [name]));
  const updateMask = [...given(values), ...given(layout ?? {}).map((option) => `layout.${option}`)];
  return UpdatePageInput.fromPartial({ ...fields, updateMask });
}

/** Replaces a page's markdown body, in a revision of its own; answers the revision's id. */
export async function setPageMarkdown(
  clients: Pick<ServiceClients, "editing">,
  caller: Caller,
  target: ContentTarget,
  pageId: string,
  markdown: string,
): Promise<string> {
  return createRevision(clients, caller, target, (draftId) => clients.editing.updatePage({ caller, draftId, page: pageUpdate({ pageId, markdown }) }));
}

/** A page's markdown at the target's head. */
export async function pageMarkdown(clients: Pick<ServiceClients, "revisions">, caller: Caller, target: ContentTarget, pageId: string): Promise<string> {
  const { page } = await clients.revisions.getPage({
    caller,
    ref: { spaceId: target.spaceId, changeRequestId: target.changeRequestId ?? "", revisionId: "" },
    options: { metadata: false, computed: false },
    pageId,
    pageOptions: { format: DocumentFormat.DOCUMENT_FORMAT_MARKDOWN, evaluated: false },
  });
  return page!.markdown;
}

/** A change request on the space, opened by `caller`. */
export async function createChangeRequest(
  clients: Pick<ServiceClients, "changeRequests">,
  caller: Caller,
  spaceId: string,
  overrides: { subject?: string; agentTaskId?: string } = {},
): Promise<ChangeRequest> {
  const { changeRequest } = await clients.changeRequests.createChangeRequest({
    caller,
    spaceId,
    subject: overrides.subject ?? "Change",
    agentTaskId: overrides.agentTaskId ?? "",
  });
  return changeRequest!;
}

/** The smallest PNG that image readers accept the size of (signature and IHDR): a `width` × `height` image for file tests. */
export function pngBytes(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write("IHDR", 12, "ascii");
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  bytes.writeUInt8(8, 24);
  bytes.writeUInt8(2, 25);
  return bytes;
}
