import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import type { Route } from "../src/route.js";
import type { DirectRoute } from "../src/routes/deps.js";
import { gatewayRoutes } from "../src/routes/index.js";
import type { UpstreamAddresses, UpstreamClients } from "../src/upstreams.js";
import { commitEdits, startEditingStack, stopEditingStack, type EditingClient } from "./support/editing.js";
import { createCollection, createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call, type CallResult } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * The same write sent twice at once, on every route of the gateway that creates, installs,
 * changes by action or deletes (POST, PUT, DELETE): a client retrying a request it thinks was lost
 * sends exactly this. Whatever the race, no answer is a 5xx, and the outcome is consistent:
 *
 * - `unique` (one object per request's key: an installation, a slug, a membership): one object,
 *   both answers 2xx naming it, or one 2xx and one clear 4xx (400, 409, 412);
 * - `duplicates` (a new object per request: a space, a comment): both 2xx, two objects;
 * - `action` (move, publish, merge, regenerate…): at least one 2xx, the other 2xx or a clear 4xx;
 * - `delete`: 204/205 both (at most one 205 where the route tells "deleted" from "was not there");
 * - `refused` (the request cannot succeed here, e.g. a source that does not exist): 4xx both.
 *
 * Every such route of the route table is in the table below or named with the reason it is not
 * raced, so a new write route without a case fails this test.
 */

type Outcome = "unique" | "duplicates" | "action" | "delete" | "refused";
interface RaceRequest {
  path: string;
  json?: unknown;
  /** Sent as this user (the organization's owner by default): joins race a newcomer. */
  token?: string;
  notInOpenApi?: string;
  /** Sent without the contract check: Imprint answers another shape than GitBook's operation of that path. */
  unchecked?: string;
}
interface RaceCase {
  outcome: Outcome;
  /** Builds what the request needs (a fresh object where the race consumes one) and the request. */
  request: () => Promise<RaceRequest>;
}

let stack: TestStack;
let editing: EditingClient;
let org: TestOrganization;
let target: TestOrganization;
/** Members of `org` beside its owner: a change request's author other than the owner, and a reviewer. */
let editor: TestUser;
let reviewer: TestUser;
/** An IdP certificate (SAML providers need a valid one). */
let certificate: string;
/** A source that accepts connections and never answers: an import of it stays in progress. */
let silent: Server;
let silentUrl: string;

const SCRIPT = `export default { async fetch(request) { const form = await request.formData(); const event = JSON.parse(form.get("event")); if (event.type === "ui_render") return new Response(JSON.stringify({ type: "element", state: {}, props: event.props, element: { type: "block", children: [] } }), { headers: { "content-type": "application/json" } }); return new Response("OK"); } }`;

async function send(method: string, request: RaceRequest): Promise<CallResult> {
  if (!request.unchecked)
    return call(stack, method, request.path, { token: request.token ?? org.owner.token, json: request.json, notInOpenApi: request.notInOpenApi });
  const response = await fetch(`${stack.baseUrl}${request.path}`, {
    method,
    headers: { authorization: `Bearer ${org.owner.token}`, "content-type": "application/json" },
    body: request.json === undefined ? undefined : JSON.stringify(request.json),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) };
}

async function ok(method: string, path: string, json?: unknown, options: { notInOpenApi?: string; unchecked?: string } = {}): Promise<CallResult["body"]> {
  const response = await send(method, { path, json, ...options });
  if (response.status >= 300) throw new Error(`fixture: ${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

const GIT_SYNC = "Imprint's Git Sync connection (an extension)";
const orgPath = () => `/v1/orgs/${org.organizationId}`;
const newSpace = async () => (await createSpace(stack, org)).id;
const newSite = async (spaces: string[] = []) => (await ok("POST", `${orgPath()}/sites`, { title: "Raced site", spaces })).id as string;
const sitePath = (siteId: string) => `${orgPath()}/sites/${siteId}`;
const newTeam = async () => (await ok("PUT", `${orgPath()}/teams`, { title: "Raced team" })).id as string;
const newChangeRequest = async (spaceId: string) => (await ok("POST", `/v1/spaces/${spaceId}/change-requests`, { subject: "Raced" })).id as string;
const newComment = async (base: string) => (await ok("POST", `${base}/comments`, { body: { markdown: "Raced" } })).id as string;
const newReply = async (base: string, commentId: string) =>
  (await ok("POST", `${base}/comments/${commentId}/replies`, { body: { markdown: "Raced reply" } })).id as string;
const newSection = async (siteId: string) =>
  (await ok("POST", `${sitePath(siteId)}/sections`, { spaceId: await newSpace(), title: "Raced section" })).id as string;
const newGroup = async (siteId: string) => (await ok("POST", `${sitePath(siteId)}/section-groups`, { title: "Raced group" })).id as string;
const siteSpaceOf = async (siteId: string) => (await ok("GET", `${sitePath(siteId)}/site-spaces`)).items[0].id as string;
const newIntegration = async () => {
  const name = `race-${randomUUID().slice(0, 8)}`;
  await ok("POST", `/v1/integrations/${name}`, {
    organization: org.organizationId,
    title: "Raced",
    description: "Raced integration",
    scopes: [],
    script: SCRIPT,
  });
  return name;
};
/** Answers its integration's public endpoint with its integration token: the one caller that may queue the integration's tasks. */
const TOKEN_SCRIPT = `export default { async fetch(request) { const form = await request.formData(); const event = JSON.parse(form.get("event")); if (event.type === "fetch") return new Response(JSON.parse(form.get("environment")).apiTokens.integration); return new Response("OK"); } }`;
/** An integration and its own token (read from its public endpoint). */
const integrationWithToken = async () => {
  const name = `race-${randomUUID().slice(0, 8)}`;
  await ok("POST", `/v1/integrations/${name}`, {
    organization: org.organizationId,
    title: "Raced",
    description: "Raced integration",
    scopes: [],
    script: TOKEN_SCRIPT,
  });
  const token = await (await fetch(`${stack.baseUrl}/v1/integrations/${name}/public`)).text();
  return { name, token };
};
const newInstallation = async () => {
  const name = await newIntegration();
  const installation = await ok("POST", `/v1/integrations/${name}/installations`, { organization: org.organizationId });
  return { name, installationId: installation.id as string, base: `/v1/integrations/${name}/installations/${installation.id}` };
};
const crBase = async () => {
  const spaceId = await newSpace();
  return `/v1/spaces/${spaceId}/change-requests/${await newChangeRequest(spaceId)}`;
};
const spaceWithPage = async () => {
  const spaceId = await newSpace();
  await commitEdits(editing, { userId: org.owner.userId, spaceId }, (draft) => draft.createPage({ pageId: "raced", title: "Raced", markdown: "Raced." }));
  const pages = await ok("GET", `/v1/spaces/${spaceId}/content/pages`);
  return { spaceId, pageId: pages.pages[0].id as string };
};
/** A URL nothing answers on (a port of the discard service, closed here): sources that cannot be fetched. */
const UNREACHABLE = "http://127.0.0.1:9/source";
const TRANSFER = "transferSpace / transferCollection exist only in @gitbook/api 0.143.2";
const IMPORT = "importContent exists in @gitbook/api 0.143.2 only";
const TRANSLATIONS = { unchecked: "Imprint's translation settings follow interface.md, not GitBook's newer createTranslation" };
const newTranslation = async () => (await ok("POST", `${orgPath()}/translations`, { title: "French", languages: ["fr"] }, TRANSLATIONS)).id as string;
const oidcProvider = () => ({ label: "Raced OpenID provider", issuer: `http://127.0.0.1:9/${randomUUID()}`, clientId: "raced", clientSecret: "raced-secret" });
const samlProvider = () => ({ label: "Raced IdP", entityID: `https://idp.example.test/${randomUUID()}`, ssoURL: "https://idp.example.test/sso", certificate });
/** A change request the editor wrote (its owner may review it), with its reviewer asked. */
const crByEditor = async () => {
  const spaceId = await newSpace();
  const created = await send("POST", { path: `/v1/spaces/${spaceId}/change-requests`, json: { subject: "Raced review" }, token: editor.token });
  const base = `/v1/spaces/${spaceId}/change-requests/${created.body.id}`;
  await ok("POST", `${base}/requested-reviewers`, { users: [reviewer.userId] });
  return base;
};
const EXTERNAL = { kind: "external", url: "https://example.com/raced" };
/** A site with a section: external links need one. */
const siteWithSection = async () => {
  const siteId = await newSite();
  await newSection(siteId);
  return siteId;
};

/** A user of no organization, with a token (an address of example.com). */
const newcomer = async () => {
  const email = `newcomer-${randomUUID().slice(0, 8)}@example.com`;
  await stack.identity.users.createUser({ email, displayName: "Raced newcomer" });
  return (await stack.identity.tokens.issueToken({ email, label: "race" })).token;
};

const SIGN_IN = "Imprint's sign-in and personal tokens (an extension)";

const CASES: Record<string, RaceCase> = {
  // identity
  "POST /v1/user/tokens": { outcome: "duplicates", request: async () => ({ path: "/v1/user/tokens", json: { label: "Raced token" }, notInOpenApi: SIGN_IN }) },
  "DELETE /v1/user/tokens/:tokenId": {
    outcome: "delete",
    request: async () => {
      const { id } = await ok("POST", "/v1/user/tokens", { label: "Raced revocation" }, { notInOpenApi: SIGN_IN });
      return { path: `/v1/user/tokens/${id}`, notInOpenApi: SIGN_IN };
    },
  },
  "POST /v1/auth/sign-out-everywhere": { outcome: "action", request: async () => ({ path: "/v1/auth/sign-out-everywhere", notInOpenApi: SIGN_IN }) },
  // The same new account twice: one creates it and joins, the other is a clear 409.
  "POST /v1/auth/join": {
    outcome: "unique",
    request: async () => {
      const { id } = await ok("POST", `${orgPath()}/link-invites`, { role: "read" });
      const email = `joiner-${randomUUID().slice(0, 8)}@example.com`;
      return {
        path: "/v1/auth/join",
        json: { organizationId: org.organizationId, invite: id, email, password: "correct horse battery staple", displayName: "Raced joiner" },
        notInOpenApi: SIGN_IN,
      };
    },
  },
  "POST /v1/orgs": { outcome: "duplicates", request: async () => ({ path: "/v1/orgs", json: { title: "Raced organization" } }) },
  // The same new address twice: one adds it, the other finds it a member (or is a clear 409).
  "POST /v1/orgs/:organizationId/invites": {
    outcome: "unique",
    request: async () => ({ path: `${orgPath()}/invites`, json: { emails: [`invited-${randomUUID().slice(0, 8)}@example.com`] } }),
  },
  "POST /v1/orgs/:organizationId/link-invites": { outcome: "duplicates", request: async () => ({ path: `${orgPath()}/link-invites`, json: { role: "read" } }) },
  // One newcomer joining twice at once: one join, the other "already a member".
  "POST /v1/orgs/:organizationId/invites/:inviteId": {
    outcome: "unique",
    request: async () => {
      const { id } = await ok("POST", `${orgPath()}/link-invites`, { role: "read" });
      return { path: `${orgPath()}/invites/${id}`, token: await newcomer() };
    },
  },
  "POST /v1/orgs/:organizationId/join": {
    outcome: "unique",
    request: async () => {
      const joined = await createOrganization(stack);
      await joined.owner.api.orgs.updateOrganizationById(joined.organizationId, { emailDomains: ["example.com"] });
      return { path: `/v1/orgs/${joined.organizationId}/join`, token: await newcomer() };
    },
  },
  "POST /v1/orgs/:organizationId/ping": { outcome: "action", request: async () => ({ path: `${orgPath()}/ping` }) },
  "DELETE /v1/orgs/:organizationId/members/:userId": {
    outcome: "delete",
    request: async () => ({ path: `${orgPath()}/members/${(await createMember(stack, org, { role: "read" })).userId}` }),
  },
  "POST /v1/orgs/:organizationId/members/:userId/sso": {
    outcome: "action",
    request: async () => ({ path: `${orgPath()}/members/${(await createMember(stack, org, { role: "read" })).userId}/sso` }),
  },
  "PUT /v1/orgs/:organizationId/teams": { outcome: "duplicates", request: async () => ({ path: `${orgPath()}/teams`, json: { title: "Twice" } }) },
  "DELETE /v1/orgs/:organizationId/teams/:teamId": { outcome: "delete", request: async () => ({ path: `${orgPath()}/teams/${await newTeam()}` }) },
  "PUT /v1/orgs/:organizationId/teams/:teamId/members": {
    outcome: "action",
    request: async () => ({
      path: `${orgPath()}/teams/${await newTeam()}/members`,
      json: { add: [(await createMember(stack, org, { role: "read" })).userId] },
    }),
  },
  "PUT /v1/orgs/:organizationId/teams/:teamId/members/:userId": {
    outcome: "unique",
    request: async () => ({
      path: `${orgPath()}/teams/${await newTeam()}/members/${(await createMember(stack, org, { role: "read" })).userId}`,
      json: { role: "member" },
    }),
  },
  "DELETE /v1/orgs/:organizationId/teams/:teamId/members/:userId": {
    outcome: "delete",
    request: async () => {
      const member = await createMember(stack, org, { role: "read" });
      const teamId = (await ok("PUT", `${orgPath()}/teams`, { title: "With member", members: [member.userId] })).id as string;
      return { path: `${orgPath()}/teams/${teamId}/members/${member.userId}` };
    },
  },
  // Providers are not unique per entity ID: two requests, two providers.
  "POST /v1/orgs/:organizationId/saml": { outcome: "duplicates", request: async () => ({ path: `${orgPath()}/saml`, json: samlProvider() }) },
  "DELETE /v1/orgs/:organizationId/saml/:samlProviderId": {
    outcome: "delete",
    request: async () => ({ path: `${orgPath()}/saml/${(await ok("POST", `${orgPath()}/saml`, samlProvider())).id}` }),
  },
  // Nor per issuer: two requests, two providers (a loopback issuer: identity here may fetch private addresses).
  "POST /v1/orgs/:organizationId/oidc-providers": {
    outcome: "duplicates",
    request: async () => ({ path: `${orgPath()}/oidc-providers`, json: oidcProvider(), notInOpenApi: SIGN_IN }),
  },
  "DELETE /v1/orgs/:organizationId/oidc-providers/:providerId": {
    outcome: "delete",
    request: async () => ({
      path: `${orgPath()}/oidc-providers/${(await ok("POST", `${orgPath()}/oidc-providers`, oidcProvider(), { notInOpenApi: SIGN_IN })).id}`,
      notInOpenApi: SIGN_IN,
    }),
  },
  "DELETE /v1/orgs/:organizationId/link-invites/:inviteId": {
    outcome: "delete",
    request: async () => {
      const { inviteId } = await stack.identity.organizations.createLinkInvite({ organizationId: org.organizationId, role: MemberRole.MEMBER_ROLE_READ });
      return { path: `${orgPath()}/link-invites/${inviteId}` };
    },
  },

  // content: team grants, collections, spaces
  "DELETE /v1/spaces/:spaceId/permissions/teams/:teamId": {
    outcome: "delete",
    request: async () => {
      const spaceId = await newSpace();
      const teamId = await newTeam();
      await ok("PATCH", `/v1/spaces/${spaceId}/permissions/teams/${teamId}`, { role: "read" });
      return { path: `/v1/spaces/${spaceId}/permissions/teams/${teamId}` };
    },
  },
  "DELETE /v1/collections/:collectionId/permissions/teams/:teamId": {
    outcome: "delete",
    request: async () => {
      const collectionId = (await createCollection(stack, org)).id;
      const teamId = await newTeam();
      await ok("PATCH", `/v1/collections/${collectionId}/permissions/teams/${teamId}`, { role: "read" });
      return { path: `/v1/collections/${collectionId}/permissions/teams/${teamId}` };
    },
  },
  "POST /v1/spaces/:spaceId/permissions": {
    outcome: "unique",
    request: async () => ({ path: `/v1/spaces/${await newSpace()}/permissions`, json: { users: [editor.userId], teams: [await newTeam()], role: "read" } }),
  },
  "DELETE /v1/spaces/:spaceId/permissions/users/:userId": {
    outcome: "delete",
    request: async () => {
      const spaceId = await newSpace();
      await ok("PATCH", `/v1/spaces/${spaceId}/permissions/users/${editor.userId}`, { role: "read" });
      return { path: `/v1/spaces/${spaceId}/permissions/users/${editor.userId}` };
    },
  },
  "POST /v1/collections/:collectionId/permissions": {
    outcome: "unique",
    request: async () => ({
      path: `/v1/collections/${(await createCollection(stack, org)).id}/permissions`,
      json: { users: [editor.userId], role: "comment" },
    }),
  },
  "DELETE /v1/collections/:collectionId/permissions/users/:userId": {
    outcome: "delete",
    request: async () => {
      const collectionId = (await createCollection(stack, org)).id;
      await ok("PATCH", `/v1/collections/${collectionId}/permissions/users/${editor.userId}`, { role: "read" });
      return { path: `/v1/collections/${collectionId}/permissions/users/${editor.userId}` };
    },
  },
  "POST /v1/orgs/:organizationId/collections": { outcome: "duplicates", request: async () => ({ path: `${orgPath()}/collections`, json: { title: "Twice" } }) },
  "DELETE /v1/collections/:collectionId": { outcome: "delete", request: async () => ({ path: `/v1/collections/${(await createCollection(stack, org)).id}` }) },
  "POST /v1/collections/:collectionId/move": {
    outcome: "action",
    request: async () => ({
      path: `/v1/collections/${(await createCollection(stack, org)).id}/move`,
      json: { parent: (await createCollection(stack, org)).id },
    }),
  },
  "POST /v1/collections/:collectionId/transfer": {
    outcome: "action",
    request: async () => ({
      path: `/v1/collections/${(await createCollection(stack, org)).id}/transfer`,
      json: { organization: target.organizationId },
      notInOpenApi: TRANSFER,
    }),
  },
  "POST /v1/orgs/:organizationId/spaces": { outcome: "duplicates", request: async () => ({ path: `${orgPath()}/spaces`, json: { title: "Twice" } }) },
  "DELETE /v1/spaces/:spaceId": { outcome: "delete", request: async () => ({ path: `/v1/spaces/${await newSpace()}` }) },
  "POST /v1/spaces/:spaceId/duplicate": { outcome: "duplicates", request: async () => ({ path: `/v1/spaces/${await newSpace()}/duplicate` }) },
  "POST /v1/spaces/:spaceId/restore": {
    outcome: "action",
    request: async () => {
      const spaceId = await newSpace();
      await ok("DELETE", `/v1/spaces/${spaceId}`);
      return { path: `/v1/spaces/${spaceId}/restore` };
    },
  },
  "POST /v1/spaces/:spaceId/move": {
    outcome: "action",
    request: async () => ({ path: `/v1/spaces/${await newSpace()}/move`, json: { parent: (await createCollection(stack, org)).id } }),
  },
  "POST /v1/spaces/:spaceId/transfer": {
    outcome: "action",
    request: async () => ({ path: `/v1/spaces/${await newSpace()}/transfer`, json: { organization: target.organizationId }, notInOpenApi: TRANSFER }),
  },
  "POST /v1/spaces/:spaceId/content/import": {
    outcome: "refused",
    request: async () => ({ path: `/v1/spaces/${await newSpace()}/content/import`, json: { source: "website", url: UNREACHABLE }, notInOpenApi: IMPORT }),
  },
  "POST /v1/spaces/:spaceId/content/page/:pageId/import": {
    outcome: "refused",
    request: async () => {
      const { spaceId, pageId } = await spaceWithPage();
      return { path: `/v1/spaces/${spaceId}/content/page/${pageId}/import`, json: { source: "website", url: UNREACHABLE }, notInOpenApi: IMPORT };
    },
  },
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/content/import": {
    outcome: "refused",
    request: async () => ({ path: `${await crBase()}/content/import`, json: { source: "website", url: UNREACHABLE }, notInOpenApi: IMPORT }),
  },
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId/import": {
    outcome: "refused",
    request: async () => {
      const { spaceId, pageId } = await spaceWithPage();
      const changeRequestId = await newChangeRequest(spaceId);
      return {
        path: `/v1/spaces/${spaceId}/change-requests/${changeRequestId}/content/page/${pageId}/import`,
        json: { source: "website", url: UNREACHABLE },
        notInOpenApi: IMPORT,
      };
    },
  },
  "POST /v1/org/:organizationId/imports": {
    outcome: "duplicates",
    request: async () => ({
      path: `/v1/org/${org.organizationId}/imports`,
      json: { source: { type: "website", url: UNREACHABLE }, target: { space: await newSpace() } },
    }),
  },
  "POST /v1/org/:organizationId/imports/:importRunId/cancel": {
    outcome: "action",
    request: async () => {
      const run = await ok("POST", `/v1/org/${org.organizationId}/imports`, {
        source: { type: "website", url: silentUrl },
        target: { space: await newSpace() },
      });
      return { path: `/v1/org/${org.organizationId}/imports/${run.id}/cancel` };
    },
  },
  "POST /v1/spaces/:spaceId/git/import": {
    outcome: "refused",
    request: async () => ({ path: `/v1/spaces/${await newSpace()}/git/import`, json: { url: "https://git.invalid/repo.git", ref: "main" } }),
  },
  "POST /v1/spaces/:spaceId/git/export": {
    outcome: "refused",
    request: async () => ({
      path: `/v1/spaces/${await newSpace()}/git/export`,
      json: { url: "https://git.invalid/repo.git", ref: "main", commitMessage: "Raced" },
    }),
  },
  "PUT /v1/spaces/:spaceId/git/sync": {
    outcome: "action",
    request: async () => ({
      path: `/v1/spaces/${await newSpace()}/git/sync`,
      json: { url: "https://git.invalid/repo.git", ref: "main", token: "raced-token" },
      notInOpenApi: GIT_SYNC,
    }),
  },
  "DELETE /v1/spaces/:spaceId/git/sync": {
    outcome: "delete",
    request: async () => {
      const spaceId = await newSpace();
      await ok("PUT", `/v1/spaces/${spaceId}/git/sync`, { url: "https://git.invalid/repo.git", ref: "main" }, { notInOpenApi: GIT_SYNC });
      return { path: `/v1/spaces/${spaceId}/git/sync`, notInOpenApi: GIT_SYNC };
    },
  },
  "POST /v1/orgs/:organizationId/openapi": {
    outcome: "unique",
    request: async () => ({ path: `${orgPath()}/openapi`, json: { slug: `raced-${randomUUID().slice(0, 8)}`, source: { url: UNREACHABLE } } }),
  },
  "PUT /v1/orgs/:organizationId/openapi/:specSlug": {
    outcome: "unique",
    request: async () => ({ path: `${orgPath()}/openapi/raced-${randomUUID().slice(0, 8)}`, json: { source: { url: UNREACHABLE } } }),
  },
  "DELETE /v1/orgs/:organizationId/openapi/:specSlug": {
    outcome: "delete",
    request: async () => {
      const slug = `raced-${randomUUID().slice(0, 8)}`;
      await ok("POST", `${orgPath()}/openapi`, { slug, source: { url: UNREACHABLE } });
      return { path: `${orgPath()}/openapi/${slug}` };
    },
  },
  "POST /v1/orgs/:organizationId/translations": {
    outcome: "duplicates",
    request: async () => ({ path: `${orgPath()}/translations`, json: { title: "French", languages: ["fr"] }, ...TRANSLATIONS }),
  },
  "PUT /v1/orgs/:organizationId/translations/:translationSettingsId": {
    outcome: "action",
    request: async () => ({ path: `${orgPath()}/translations/${await newTranslation()}`, json: { title: "Français", languages: ["fr"] }, ...TRANSLATIONS }),
  },
  "DELETE /v1/orgs/:organizationId/translations/:translationSettingsId": {
    outcome: "delete",
    request: async () => ({ path: `${orgPath()}/translations/${await newTranslation()}`, ...TRANSLATIONS }),
  },

  // collaboration
  "POST /v1/spaces/:spaceId/change-requests": {
    outcome: "duplicates",
    request: async () => ({ path: `/v1/spaces/${await newSpace()}/change-requests`, json: { subject: "Twice" } }),
  },
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/merge": { outcome: "action", request: async () => ({ path: `${await crBase()}/merge` }) },
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/content": {
    outcome: "action",
    request: async () => ({
      path: `${await crBase()}/content`,
      json: { changes: [{ operation: "insert_page", title: "Raced page", document: { markdown: "Raced." } }] },
    }),
  },
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/update": { outcome: "action", request: async () => ({ path: `${await crBase()}/update` }) },
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers": {
    outcome: "action",
    request: async () => ({ path: `${await crBase()}/requested-reviewers`, json: { users: [reviewer.userId] } }),
  },
  "DELETE /v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers/:userId": {
    outcome: "delete",
    request: async () => ({ path: `${await crByEditor()}/requested-reviewers/${reviewer.userId}` }),
  },
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/reviews": {
    outcome: "action",
    request: async () => ({ path: `${await crByEditor()}/reviews`, json: { status: "approved" } }),
  },
  "POST /v1/spaces/:spaceId/comments": {
    outcome: "duplicates",
    request: async () => ({ path: `/v1/spaces/${await newSpace()}/comments`, json: { body: { markdown: "Twice" } } }),
  },
  "PUT /v1/spaces/:spaceId/comments/:commentId": {
    outcome: "action",
    request: async () => {
      const base = `/v1/spaces/${await newSpace()}`;
      return { path: `${base}/comments/${await newComment(base)}`, json: { resolved: true } };
    },
  },
  "DELETE /v1/spaces/:spaceId/comments/:commentId": {
    outcome: "delete",
    request: async () => {
      const base = `/v1/spaces/${await newSpace()}`;
      return { path: `${base}/comments/${await newComment(base)}` };
    },
  },
  "POST /v1/spaces/:spaceId/comments/:commentId/replies": {
    outcome: "duplicates",
    request: async () => {
      const base = `/v1/spaces/${await newSpace()}`;
      return { path: `${base}/comments/${await newComment(base)}/replies`, json: { body: { markdown: "Twice" } } };
    },
  },
  "PUT /v1/spaces/:spaceId/comments/:commentId/replies/:commentReplyId": {
    outcome: "action",
    request: async () => {
      const base = `/v1/spaces/${await newSpace()}`;
      const commentId = await newComment(base);
      return { path: `${base}/comments/${commentId}/replies/${await newReply(base, commentId)}`, json: { body: { markdown: "Edited" } } };
    },
  },
  "DELETE /v1/spaces/:spaceId/comments/:commentId/replies/:commentReplyId": {
    outcome: "delete",
    request: async () => {
      const base = `/v1/spaces/${await newSpace()}`;
      const commentId = await newComment(base);
      return { path: `${base}/comments/${commentId}/replies/${await newReply(base, commentId)}` };
    },
  },
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/comments": {
    outcome: "duplicates",
    request: async () => ({ path: `${await crBase()}/comments`, json: { body: { markdown: "Twice" } } }),
  },
  "PUT /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId": {
    outcome: "action",
    request: async () => {
      const base = await crBase();
      return { path: `${base}/comments/${await newComment(base)}`, json: { resolved: true } };
    },
  },
  "DELETE /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId": {
    outcome: "delete",
    request: async () => {
      const base = await crBase();
      return { path: `${base}/comments/${await newComment(base)}` };
    },
  },
  "POST /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId/replies": {
    outcome: "duplicates",
    request: async () => {
      const base = await crBase();
      return { path: `${base}/comments/${await newComment(base)}/replies`, json: { body: { markdown: "Twice" } } };
    },
  },
  "PUT /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId/replies/:commentReplyId": {
    outcome: "action",
    request: async () => {
      const base = await crBase();
      const commentId = await newComment(base);
      return { path: `${base}/comments/${commentId}/replies/${await newReply(base, commentId)}`, json: { body: { markdown: "Edited" } } };
    },
  },
  "DELETE /v1/spaces/:spaceId/change-requests/:changeRequestId/comments/:commentId/replies/:commentReplyId": {
    outcome: "delete",
    request: async () => {
      const base = await crBase();
      const commentId = await newComment(base);
      return { path: `${base}/comments/${commentId}/replies/${await newReply(base, commentId)}` };
    },
  },

  // publishing
  "POST /v1/orgs/:organizationId/sites": { outcome: "duplicates", request: async () => ({ path: `${orgPath()}/sites`, json: { title: "Twice" } }) },
  "DELETE /v1/orgs/:organizationId/sites/:siteId": { outcome: "delete", request: async () => ({ path: sitePath(await newSite()) }) },
  "POST /v1/orgs/:organizationId/sites/:siteId/publish": {
    outcome: "action",
    request: async () => ({ path: `${sitePath(await newSite([await newSpace()]))}/publish` }),
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/unpublish": {
    outcome: "action",
    request: async () => {
      const siteId = await newSite([await newSpace()]);
      await ok("POST", `${sitePath(siteId)}/publish`);
      return { path: `${sitePath(siteId)}/unpublish` };
    },
  },
  // Both index the published space (one waits on the space's lock, then finds it current): two 204s.
  "POST /v1/orgs/:organizationId/sites/:siteId/search/prewarm": {
    outcome: "action",
    request: async () => {
      const siteId = await newSite([await newSpace()]);
      await ok("POST", `${sitePath(siteId)}/publish`);
      return { path: `${sitePath(siteId)}/search/prewarm` };
    },
  },
  // A space may be published twice (each at a free path): two sections, two site-spaces.
  "POST /v1/orgs/:organizationId/sites/:siteId/sections": {
    outcome: "duplicates",
    request: async () => ({ path: `${sitePath(await newSite())}/sections`, json: { spaceId: await newSpace(), title: "Twice" } }),
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId": {
    outcome: "delete",
    request: async () => {
      const siteId = await newSite();
      return { path: `${sitePath(siteId)}/sections/${await newSection(siteId)}` };
    },
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId/move": {
    outcome: "action",
    request: async () => {
      const siteId = await newSite();
      const first = await newSection(siteId);
      await newSection(siteId);
      return { path: `${sitePath(siteId)}/sections/${first}/move`, json: {} };
    },
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/section-groups": {
    outcome: "duplicates",
    request: async () => ({ path: `${sitePath(await newSite())}/section-groups`, json: { title: "Twice" } }),
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId": {
    outcome: "delete",
    request: async () => {
      const siteId = await newSite();
      return { path: `${sitePath(siteId)}/section-groups/${await newGroup(siteId)}` };
    },
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/sections": {
    outcome: "action",
    request: async () => {
      const siteId = await newSite();
      const sectionId = await newSection(siteId);
      return {
        path: `${sitePath(siteId)}/section-groups/${await newGroup(siteId)}/sections`,
        json: { sectionId },
        notInOpenApi: "addSectionToGroup (0.143.2)",
      };
    },
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/sections/:siteSectionId": {
    outcome: "delete",
    request: async () => {
      const siteId = await newSite();
      const sectionId = await newSection(siteId);
      const groupId = (await ok("POST", `${sitePath(siteId)}/section-groups`, { title: "Holding", sections: [sectionId] })).id as string;
      return { path: `${sitePath(siteId)}/section-groups/${groupId}/sections/${sectionId}`, notInOpenApi: "removeSectionFromGroup (0.143.2)" };
    },
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/move": {
    outcome: "action",
    request: async () => {
      const siteId = await newSite();
      const first = await newGroup(siteId);
      await newGroup(siteId);
      return { path: `${sitePath(siteId)}/section-groups/${first}/move`, json: {} };
    },
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/site-spaces": {
    outcome: "duplicates",
    request: async () => ({ path: `${sitePath(await newSite([await newSpace()]))}/site-spaces`, json: { spaceId: await newSpace() } }),
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId": {
    outcome: "delete",
    request: async () => {
      const siteId = await newSite([await newSpace()]);
      const added = await ok("POST", `${sitePath(siteId)}/site-spaces`, { spaceId: await newSpace() });
      return { path: `${sitePath(siteId)}/site-spaces/${added.id}` };
    },
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/duplicate": {
    outcome: "duplicates",
    request: async () => {
      const siteId = await newSite([await newSpace()]);
      return { path: `${sitePath(siteId)}/site-spaces/${await siteSpaceOf(siteId)}/duplicate`, json: {} };
    },
  },
  // A search sent with POST changes nothing: both searches answer.
  "POST /v1/orgs/:organizationId/sites/:siteId/search": {
    outcome: "action",
    request: async () => ({ path: `${sitePath(await newSite([await newSpace()]))}/search`, json: { query: "raced", scope: { mode: "all" } } }),
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/move": {
    outcome: "action",
    request: async () => {
      const siteId = await newSite([await newSpace(), await newSpace()]);
      return { path: `${sitePath(siteId)}/site-spaces/${await siteSpaceOf(siteId)}/move`, json: {} };
    },
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/publishing/auth/regenerate": {
    outcome: "action",
    request: async () => ({ path: `${sitePath(await newSite())}/publishing/auth/regenerate` }),
  },
  "PUT /v1/orgs/:organizationId/sites/:siteId/adaptive-schema": {
    outcome: "action",
    request: async () => ({
      path: `${sitePath(await newSite())}/adaptive-schema`,
      json: { jsonSchema: { type: "object", properties: { plan: { type: "string", description: "The plan" } }, additionalProperties: false } },
    }),
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/share-links": {
    outcome: "duplicates",
    request: async () => ({ path: `${sitePath(await newSite())}/share-links`, json: { name: "Twice" } }),
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/permissions": {
    outcome: "action",
    request: async () => ({ path: `${sitePath(await newSite())}/permissions`, json: { role: "read", users: [editor.userId], teams: [await newTeam()] } }),
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/permissions/users/:userId": {
    outcome: "delete",
    request: async () => {
      const siteId = await newSite();
      await ok("PATCH", `${sitePath(siteId)}/permissions/users/${editor.userId}`, { role: "admin" });
      return { path: `${sitePath(siteId)}/permissions/users/${editor.userId}` };
    },
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/permissions/teams/:teamId": {
    outcome: "delete",
    request: async () => {
      const siteId = await newSite();
      const teamId = await newTeam();
      await ok("PATCH", `${sitePath(siteId)}/permissions/teams/${teamId}`, { role: "edit" });
      return { path: `${sitePath(siteId)}/permissions/teams/${teamId}` };
    },
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId": {
    outcome: "delete",
    request: async () => {
      const siteId = await newSite();
      return { path: `${sitePath(siteId)}/share-links/${(await ok("POST", `${sitePath(siteId)}/share-links`, { name: "To delete" })).id}` };
    },
  },
  "PUT /v1/orgs/:organizationId/sites/:siteId/customization": {
    outcome: "action",
    request: async () => {
      const siteId = await newSite();
      const { updatedAt: _updatedAt, ...settings } = (await ok("GET", `${sitePath(siteId)}/customization`)) as Record<string, unknown>;
      return { path: `${sitePath(siteId)}/customization`, json: { ...settings, title: "Raced" } };
    },
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization": {
    outcome: "delete",
    request: async () => {
      const siteId = await newSite([await newSpace()]);
      const siteSpaceId = await siteSpaceOf(siteId);
      await ok("PATCH", `${sitePath(siteId)}/site-spaces/${siteSpaceId}/customization`, { title: "Override" });
      return { path: `${sitePath(siteId)}/site-spaces/${siteSpaceId}/customization` };
    },
  },
  "POST /v1/orgs/:organizationId/sites/:siteId/external-links": {
    outcome: "duplicates",
    request: async () => ({ path: `${sitePath(await siteWithSection())}/external-links`, json: { title: "Twice", url: "https://example.com" } }),
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/external-links/:siteExternalLinkId": {
    outcome: "delete",
    request: async () => {
      const siteId = await siteWithSection();
      return {
        path: `${sitePath(siteId)}/external-links/${(await ok("POST", `${sitePath(siteId)}/external-links`, { title: "To delete", url: "https://example.com" })).id}`,
      };
    },
  },

  "POST /v1/orgs/:organizationId/sites/:siteId/redirects": {
    outcome: "unique",
    request: async () => ({ path: `${sitePath(await newSite())}/redirects`, json: { source: "/raced", destination: EXTERNAL } }),
  },
  "PUT /v1/orgs/:organizationId/sites/:siteId/redirects": {
    outcome: "action",
    request: async () => ({ path: `${sitePath(await newSite())}/redirects`, json: { redirects: [{ source: "/raced", destination: EXTERNAL }] } }),
  },
  "DELETE /v1/orgs/:organizationId/sites/:siteId/redirects/:siteRedirectId": {
    outcome: "delete",
    request: async () => {
      const redirects = `${sitePath(await newSite())}/redirects`;
      return { path: `${redirects}/${(await ok("POST", redirects, { source: "/to-delete", destination: EXTERNAL })).id}` };
    },
  },
  // The same event (with its time) twice: counted once, both 204.
  "POST /v1/orgs/:organizationId/sites/:siteId/insights/events": {
    outcome: "action",
    request: async () => ({
      path: `${sitePath(await newSite())}/insights/events`,
      json: {
        events: [
          {
            type: "page_view",
            session: { visitorId: "v", sessionId: "s", cookies: {}, userAgent: "raced", language: null, referrer: null },
            location: { url: "https://example.com/raced", siteSection: null, siteSpace: null, siteShareKey: null, space: null, revision: null, page: null },
            timestamp: new Date().toISOString(),
          },
        ],
      },
    }),
  },
  // A read sent as POST (GitBook's): both answer.
  "POST /v1/orgs/:organizationId/sites/:siteId/insights/events/aggregate": {
    outcome: "action",
    request: async () => ({ path: `${sitePath(await newSite())}/insights/events/aggregate`, json: { range: "last7Days", groupBy: [{ column: "page" }] } }),
  },

  // integration
  "POST /v1/integrations/:integrationName": {
    outcome: "action",
    request: async () => ({
      path: `/v1/integrations/race-${randomUUID().slice(0, 8)}`,
      json: { organization: org.organizationId, title: "Raced", description: "Published twice at once", scopes: [], script: SCRIPT },
    }),
  },
  "DELETE /v1/integrations/:integrationName": { outcome: "delete", request: async () => ({ path: `/v1/integrations/${await newIntegration()}` }) },
  "PUT /v1/integrations/:integrationName/dev": {
    outcome: "action",
    request: async () => ({ path: `/v1/integrations/${await newIntegration()}/dev`, json: { tunnelUrl: "https://tunnel.example.com" } }),
  },
  // Always 205, the only answer GitBook declares: a setting, not an object.
  "DELETE /v1/integrations/:integrationName/dev": {
    outcome: "action",
    request: async () => {
      const name = await newIntegration();
      await ok("PUT", `/v1/integrations/${name}/dev`, { tunnelUrl: "https://tunnel.example.com" });
      return { path: `/v1/integrations/${name}/dev` };
    },
  },
  "POST /v1/integrations/:integrationName/render": {
    outcome: "action",
    request: async () => {
      const { name, installationId } = await newInstallation();
      const spaceId = await newSpace();
      await ok("POST", `/v1/integrations/${name}/installations/${installationId}/spaces`, { space: spaceId });
      return {
        path: `/v1/integrations/${name}/render`,
        json: { componentId: "block", props: {}, context: { type: "document", spaceId, editable: true, theme: "light" } },
      };
    },
  },
  "POST /v1/integrations/:integrationName/tasks": {
    outcome: "duplicates",
    request: async () => {
      const { name, token } = await integrationWithToken();
      return { path: `/v1/integrations/${name}/tasks`, json: { task: { type: "raced" }, schedule: 3600 }, token };
    },
  },
  "POST /v1/integrations/:integrationName/installations": {
    outcome: "unique",
    request: async () => ({ path: `/v1/integrations/${await newIntegration()}/installations`, json: { organization: org.organizationId } }),
  },
  "DELETE /v1/integrations/:integrationName/installations/:installationId": {
    outcome: "delete",
    request: async () => ({ path: (await newInstallation()).base }),
  },
  "POST /v1/integrations/:integrationName/installations/:installationId/tokens": {
    outcome: "duplicates",
    request: async () => ({ path: `${(await newInstallation()).base}/tokens` }),
  },
  "POST /v1/integrations/:integrationName/installations/:installationId/spaces": {
    outcome: "unique",
    request: async () => ({ path: `${(await newInstallation()).base}/spaces`, json: { space: await newSpace() } }),
  },
  "DELETE /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId": {
    outcome: "delete",
    request: async () => {
      const { base } = await newInstallation();
      const spaceId = await newSpace();
      await ok("POST", `${base}/spaces`, { space: spaceId });
      return { path: `${base}/spaces/${spaceId}` };
    },
  },
  "POST /v1/integrations/:integrationName/installations/:installationId/sites": {
    outcome: "unique",
    request: async () => ({ path: `${(await newInstallation()).base}/sites`, json: { siteId: await newSite() } }),
  },
  "DELETE /v1/integrations/:integrationName/installations/:installationId/sites/:siteId": {
    outcome: "delete",
    request: async () => {
      const { base } = await newInstallation();
      const siteId = await newSite();
      await ok("POST", `${base}/sites`, { siteId });
      return { path: `${base}/sites/${siteId}` };
    },
  },
};

/** Write routes not raced here, each with the reason. */
const NOT_RACED: Record<string, string> = {
  "POST /v1/auth/password": "a sign-in changes nothing but starts a session: two at once are two sessions, each valid (sign-in.e2e.test.ts)",
  "POST /v1/auth/sign-out":
    "needs a session cookie and its CSRF token, which this table's bearer requests have not; ending a session twice ends it once (services/identity/test/sessions.test.ts)",
  "POST /v1/auth/password-reset":
    "needs a reset token the admin CLI prints; a token is used once, two resets at once set one password and refuse the other (services/identity/test/sessions.test.ts races it)",
  "POST /v1/spaces/:spaceId/git/sync/webhook":
    "a push webhook is signed over its exact bytes and only queues an import of the ref (the same push twice queues it once more at most, which imports nothing new); git.e2e.test.ts replays one",
  "POST /v1/sso/saml/:providerId/acs": "a sign-in needs an IdP's signed assertion, and answers a redirect, not an object (saml.e2e.test.ts replays one)",
  "POST /v1/urls/published":
    "resolvePublishedContentByUrl changes nothing but issues the caller a short-lived token of its own: two calls at once are two tokens, each valid (sites.e2e.test.ts)",
  "POST /v1/integrations/:integrationName/installations/:installationId/public": "an installation's public endpoint answers whatever its script answers",
  "PUT /v1/integrations/:integrationName/installations/:installationId/public": "an installation's public endpoint answers whatever its script answers",
  "DELETE /v1/integrations/:integrationName/installations/:installationId/public": "an installation's public endpoint answers whatever its script answers",
  "POST /v1/integrations/:integrationName/installations/:installationId/public/*path": "an installation's public endpoint answers whatever its script answers",
  "PUT /v1/integrations/:integrationName/installations/:installationId/public/*path": "an installation's public endpoint answers whatever its script answers",
  "DELETE /v1/integrations/:integrationName/installations/:installationId/public/*path":
    "an installation's public endpoint answers whatever its script answers",
  "POST /v1/integrations/:integrationName/public": "an integration's public endpoint answers whatever its script answers",
  "PUT /v1/integrations/:integrationName/public": "an integration's public endpoint answers whatever its script answers",
  "DELETE /v1/integrations/:integrationName/public": "an integration's public endpoint answers whatever its script answers",
  "POST /v1/integrations/:integrationName/public/*path": "an integration's public endpoint answers whatever its script answers",
  "PUT /v1/integrations/:integrationName/public/*path": "an integration's public endpoint answers whatever its script answers",
  "DELETE /v1/integrations/:integrationName/public/*path": "an integration's public endpoint answers whatever its script answers",
};

/** Stands in for every upstream client: route factories only keep references to them. */
const detached: unknown = new Proxy(() => undefined, {
  get: () => detached,
  apply: () => {
    throw new Error("routes are built here to be listed, not run");
  },
});

function writeRoutes(): string[] {
  const routes = gatewayRoutes({
    upstreams: detached as UpstreamClients,
    upstreamAddresses: detached as UpstreamAddresses,
    urls: { api: "http://imprint.invalid", app: "http://imprint.invalid", reader: "http://imprint.invalid/sites" },
  });
  return [...routes.api, ...routes.direct]
    .filter((route: Route | DirectRoute) => ["POST", "PUT", "DELETE"].includes(route.method))
    .map((route) => `${route.method} ${route.path}`);
}

const CLEAR_REFUSALS = [400, 404, 409, 412];
const idOf = (response: CallResult): unknown => (response.body && typeof response.body === "object" ? (response.body.id ?? response.body.token) : undefined);

function checkOutcome(label: string, outcome: Outcome, answers: [CallResult, CallResult]): void {
  const statuses = answers.map((answer) => answer.status);
  const summary = `${label}: ${JSON.stringify(answers.map((answer): unknown[] => [answer.status, (answer.body?.error?.message as string | undefined) ?? idOf(answer) ?? null]))}`;
  const succeeded = answers.filter((answer) => answer.status < 300);
  expect(
    statuses.every((status) => status < 500),
    summary,
  ).toBe(true);
  switch (outcome) {
    case "duplicates":
      expect(succeeded.length, summary).toBe(2);
      break;
    case "unique":
      expect(succeeded.length, summary).toBeGreaterThanOrEqual(1);
      if (succeeded.length === 2 && idOf(answers[0]) !== undefined) expect(idOf(answers[1]), summary).toBe(idOf(answers[0]));
      if (succeeded.length === 1) expect(CLEAR_REFUSALS, summary).toContain(answers.find((answer) => answer.status >= 300)!.status);
      break;
    case "action":
      expect(succeeded.length, summary).toBeGreaterThanOrEqual(1);
      for (const answer of answers) if (answer.status >= 300) expect(CLEAR_REFUSALS, summary).toContain(answer.status);
      break;
    case "delete":
      expect(
        statuses.every((status) => status === 204 || status === 205),
        summary,
      ).toBe(true);
      expect(statuses.filter((status) => status === 205).length, summary).toBeLessThanOrEqual(1);
      break;
    case "refused":
      expect(
        statuses.every((status) => status >= 400 && status < 500),
        summary,
      ).toBe(true);
      break;
  }
}

beforeAll(async () => {
  const workDir = mkdtempSync(join(tmpdir(), "imprint-race-"));
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(workDir, "idp.key"), "-out", join(workDir, "idp.pem"), "-days", "2", "-subj", "/CN=idp"],
    { stdio: "ignore" },
  );
  certificate = readFileSync(join(workDir, "idp.pem"), "utf8");
  rmSync(workDir, { recursive: true, force: true });
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/docs`;
  ({ stack, editing } = await startEditingStack({ identityEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "true" } }));
  org = await createOrganization(stack);
  target = await createOrganization(stack);
  await createMember(stack, target, { role: "admin", email: org.owner.email });
  editor = await createMember(stack, org, { role: "edit", displayName: "Raced editor" });
  reviewer = await createMember(stack, org, { role: "review", displayName: "Raced reviewer" });
}, 120_000);
afterAll(async () => {
  await stopEditingStack(stack, editing);
  silent?.closeAllConnections();
  silent?.close();
});

describe("the same write sent twice at once", () => {
  it("has a case (or a reason not to be raced) for every write route of the gateway", () => {
    const known = new Set([...Object.keys(CASES), ...Object.keys(NOT_RACED)]);
    expect(writeRoutes().filter((route) => !known.has(route))).toEqual([]);
    expect([...known].filter((route) => !writeRoutes().includes(route))).toEqual([]);
  });

  for (const [label, race] of Object.entries(CASES)) {
    it(`${label}: no 5xx, and a consistent outcome (${race.outcome})`, async () => {
      const method = label.slice(0, label.indexOf(" "));
      const request = await race.request();
      checkOutcome(label, race.outcome, await Promise.all([send(method, request), send(method, request)]));
    });
  }
});
