import type { Collection, Space } from "../../../node_modules/@gitbook/api/dist/client.js";
import {
  createCollection as createCollectionOverGrpc,
  createMember as createMemberOverGrpc,
  createOrganization as createOrganizationOverGrpc,
  createSpace as createSpaceOverGrpc,
  uniqueEmail,
  type RoleName,
  type TestUser as KitUser,
} from "@imprint/runtime/testing";
import { call, gitbookClient, type GitBookClient } from "./http.js";
import type { TestStack } from "./stack.js";

/**
 * The kit's factories (gRPC, @imprint/runtime/testing) seen from the API: every user holds a token
 * and the official GitBook client on it, spaces and collections answer in GitBook's JSON.
 */
export interface TestUser extends KitUser {
  token: string;
  api: GitBookClient;
}

export interface TestOrganization {
  organizationId: string;
  title: string;
  owner: TestUser;
}

function withApi(stack: TestStack, user: KitUser, token: string): TestUser {
  return { ...user, token, api: gitbookClient(stack, token) };
}

/** What the API answers for `path`, as `user` (after a factory created it over gRPC). */
async function readBack<T>(stack: TestStack, user: TestUser, path: string): Promise<T> {
  const response = await call(stack, "GET", path, { token: user.token });
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as T;
}

/** A new organization whose owner (an admin, without a display name) holds a fresh token. */
export async function createOrganization(stack: TestStack, overrides: { title?: string; ownerEmail?: string } = {}): Promise<TestOrganization> {
  const organization = await createOrganizationOverGrpc(stack.clients, { ...overrides, ownerDisplayName: "" });
  return { ...organization, owner: withApi(stack, organization.owner, organization.owner.token) };
}

/** Adds a user (created when unknown) to the organization with `role` and issues them a token. */
export async function createMember(
  stack: TestStack,
  organization: TestOrganization,
  options: { role?: RoleName; email?: string; displayName?: string } = {},
): Promise<TestUser> {
  const email = options.email ?? uniqueEmail(options.role ?? "member");
  const member = await createMemberOverGrpc(stack.clients, organization.organizationId, { ...options, email, token: true });
  return withApi(stack, member, member.token ?? "");
}

/** A space created by `user` (default: the organization's owner). */
export async function createSpace(
  stack: TestStack,
  organization: TestOrganization,
  options: { title?: string; emoji?: string; parent?: string; user?: TestUser } = {},
): Promise<Space> {
  const user = options.user ?? organization.owner;
  const space = await createSpaceOverGrpc(stack.clients, organization, {
    title: options.title,
    emoji: options.emoji,
    parentId: options.parent,
    caller: user.caller,
  });
  return readBack<Space>(stack, user, `/v1/spaces/${space.id}`);
}

/** A collection created by `user` (default: the organization's owner). */
export async function createCollection(
  stack: TestStack,
  organization: TestOrganization,
  options: { title?: string; parent?: string; user?: TestUser } = {},
): Promise<Collection> {
  const user = options.user ?? organization.owner;
  const collection = await createCollectionOverGrpc(stack.clients, organization, { title: options.title, parentId: options.parent, caller: user.caller });
  return readBack<Collection>(stack, user, `/v1/collections/${collection.id}`);
}

/** A fresh organization with one space of its owner's: where most e2e tests start. */
export async function createOrganizationWithSpace(stack: TestStack): Promise<{ org: TestOrganization; spaceId: string }> {
  const org = await createOrganization(stack);
  return { org, spaceId: (await createSpace(stack, org)).id };
}
