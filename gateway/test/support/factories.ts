import { randomUUID } from "node:crypto";
import { toProtoRole, type RoleName } from "../../src/mappers/role.js";
import type { Collection, Space } from "../../../node_modules/@gitbook/api/dist/client.js";
import { call, gitbookClient, type GitBookClient } from "./http.js";
import type { TestStack } from "./stack.js";

/**
 * Test data through identity's administrative RPCs, each with unique names so tests never see each
 * other's rows.
 */
export interface TestUser {
  userId: string;
  email: string;
  token: string;
  api: GitBookClient;
}

export interface TestOrganization {
  organizationId: string;
  title: string;
  owner: TestUser;
}

export function uniqueEmail(label = "user"): string {
  return `${label}-${randomUUID().slice(0, 8)}@example.com`;
}

/** A new organization whose owner (an admin) holds a fresh token. */
export async function buildOrganization(stack: TestStack, overrides: { title?: string; ownerEmail?: string } = {}): Promise<TestOrganization> {
  const title = overrides.title ?? `Org ${randomUUID().slice(0, 8)}`;
  const email = overrides.ownerEmail ?? uniqueEmail("owner");
  const created = await stack.identity.createOrganization({ title, ownerEmail: email, ownerDisplayName: "", ownerToken: "" });
  return {
    organizationId: created.organizationId,
    title,
    owner: { userId: created.userId, email, token: created.token, api: gitbookClient(stack, created.token) },
  };
}

/** Adds a user (created when unknown) to the organization with `role` and issues them a token. */
export async function buildMember(
  stack: TestStack,
  organization: TestOrganization,
  options: { role?: RoleName | "guest"; email?: string; displayName?: string } = {},
): Promise<TestUser> {
  const email = options.email ?? uniqueEmail(options.role ?? "member");
  if (options.displayName) await stack.identity.createUser({ email, displayName: options.displayName });
  const roleName = options.role ?? "read";
  const added = await stack.identity.addMember({ organizationId: organization.organizationId, email, role: toProtoRole(roleName === "guest" ? null : roleName) });
  const issued = await stack.identity.issueToken({ email, label: "test" });
  return { userId: added.member!.user!.id, email, token: issued.token, api: gitbookClient(stack, issued.token) };
}

/** A space created through the API by `user` (default: the organization's owner). */
export async function buildSpace(
  stack: TestStack,
  organization: TestOrganization,
  options: { title?: string; emoji?: string; parent?: string; user?: TestUser } = {},
): Promise<Space> {
  const user = options.user ?? organization.owner;
  const response = await call(stack, "POST", `/v1/orgs/${organization.organizationId}/spaces`, {
    token: user.token,
    json: { title: options.title ?? `Space ${randomUUID().slice(0, 6)}`, ...(options.emoji ? { emoji: options.emoji } : {}), ...(options.parent ? { parent: options.parent } : {}) },
  });
  if (response.status !== 201) throw new Error(`createSpace answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as Space;
}

/** A collection created through the API by `user` (default: the organization's owner). */
export async function buildCollection(
  stack: TestStack,
  organization: TestOrganization,
  options: { title?: string; parent?: string; user?: TestUser } = {},
): Promise<Collection> {
  const user = options.user ?? organization.owner;
  const response = await call(stack, "POST", `/v1/orgs/${organization.organizationId}/collections`, {
    token: user.token,
    json: { title: options.title ?? `Collection ${randomUUID().slice(0, 6)}`, ...(options.parent ? { parent: options.parent } : {}) },
  });
  if (response.status !== 201) throw new Error(`createCollection answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as Collection;
}

/** The smallest PNG header that image-size reads: an image of `width` × `height` for file tests. */
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

/** A fresh organization with one space of its owner's: where most e2e tests start. */
export async function buildOrganizationWithSpace(stack: TestStack): Promise<{ org: TestOrganization; spaceId: string }> {
  const org = await buildOrganization(stack);
  return { org, spaceId: (await buildSpace(stack, org)).id };
}
