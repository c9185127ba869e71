import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import { uniqueEmail } from "@imprint/runtime/testing";
import { createMember, createOrganization, type TestOrganization } from "./support/factories.js";
import { call, gitbookClient, role } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

let stack: TestStack;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());
beforeEach(async () => {
  org = await createOrganization(stack);
});

describe("GET /v1/orgs", () => {
  it("lists the caller's organizations page by page with next.page, and no next on the last page", async () => {
    const other = await createOrganization(stack);
    await stack.identity.members.addMember({ organizationId: other.organizationId, email: org.owner.email, role: MemberRole.MEMBER_ROLE_READ });
    const third = await createOrganization(stack);
    await stack.identity.members.addMember({ organizationId: third.organizationId, email: org.owner.email, role: MemberRole.MEMBER_ROLE_EDIT });

    const all = (await org.owner.api.orgs.listOrganizationsForAuthenticatedUser()).data;
    expect(all.count).toBe(3);
    expect(all.next).toBeUndefined();
    expect(all.items.map((o) => o.id).sort()).toEqual([org.organizationId, other.organizationId, third.organizationId].sort());

    const seen: string[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const list = (await org.owner.api.orgs.listOrganizationsForAuthenticatedUser({ limit: 2, page })).data;
      expect(list.count).toBe(3);
      seen.push(...list.items.map((o) => o.id));
      page = list.next?.page;
      pages += 1;
    } while (page && pages < 5);
    expect(pages).toBe(2);
    expect(seen.sort()).toEqual(all.items.map((o) => o.id).sort());
  });

  it("rejects limit=1001 and a non-numeric limit with 400 naming the parameter", async () => {
    for (const limit of ["1001", "ten"]) {
      const response = await call(stack, "GET", `/v1/orgs?limit=${limit}`, { token: org.owner.token });
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe("limit: must be an integer between 0 and 1000");
    }
  });
});

describe("GET /v1/orgs/{organizationId}", () => {
  it("returns the organization as GitBook shapes it, with the caller's permissions", async () => {
    const { data } = await org.owner.api.orgs.getOrganizationById(org.organizationId);
    expect(data).toMatchObject({
      object: "organization",
      id: org.organizationId,
      title: org.title,
      emailDomains: [],
      inviteLinks: expect.any(Boolean),
      mergeRules: { type: expect.any(String) },
      urls: { location: `${stack.baseUrl}/v1/orgs/${org.organizationId}`, app: expect.stringContaining(org.organizationId) },
      trial: { status: expect.any(String), count: 0 },
      permissions: { view: true, admin: true, listMembers: true },
    });
    expect(Number.isNaN(Date.parse(data.createdAt))).toBe(false);
    // Unset optional fields are left out rather than sent empty.
    expect(data).not.toHaveProperty("hostname");
    expect(data.urls).not.toHaveProperty("logo");

    const reader = await createMember(stack, org, { role: "read" });
    const seenByReader = (await reader.api.orgs.getOrganizationById(org.organizationId)).data;
    expect(seenByReader.permissions).toMatchObject({ view: true, admin: false });
  });
});

describe("PATCH /v1/orgs/{organizationId}", () => {
  it("updates exactly the fields sent and clears with null", async () => {
    const updated = (
      await org.owner.api.orgs.updateOrganizationById(org.organizationId, {
        title: "Renamed organization",
        emailDomains: ["acme.example"],
        hostname: "acme-docs",
        defaultRole: role("edit"),
        logo: "https://cdn.example.com/logo.png",
        sso: true,
        ai: true,
        inviteLinks: false,
      })
    ).data;
    expect(updated).toMatchObject({
      title: "Renamed organization",
      emailDomains: ["acme.example"],
      hostname: "acme-docs",
      defaultRole: "edit",
      sso: true,
      ai: true,
      inviteLinks: false,
      urls: { logo: "https://cdn.example.com/logo.png" },
    });

    // Only the title is in the mask: everything else stays.
    const renamed = (await org.owner.api.orgs.updateOrganizationById(org.organizationId, { title: "Second name" })).data;
    expect(renamed).toMatchObject({ title: "Second name", hostname: "acme-docs", defaultRole: "edit", sso: true, ai: true });

    const cleared = (
      await org.owner.api.orgs.updateOrganizationById(org.organizationId, { hostname: null as unknown as string, logo: null, defaultRole: null })
    ).data;
    expect(cleared).not.toHaveProperty("hostname");
    expect(cleared.urls).not.toHaveProperty("logo");
    expect(cleared.defaultRole).toBeNull();

    const fetched = (await org.owner.api.orgs.getOrganizationById(org.organizationId)).data;
    expect(fetched).toMatchObject({ title: "Second name", emailDomains: ["acme.example"], defaultRole: null, sso: true });
  });

  it("answers 400 naming the field for over-long, wrongly typed or malformed fields", async () => {
    const cases: [unknown, string][] = [
      [{ title: "x".repeat(256) }, "title: must be at most 255 characters"],
      [{ title: "x" }, "title: must be at least 2 characters"],
      [{ title: "a      " }, "title: must contain at least two non-whitespace characters"],
      [{ hostname: "" }, "hostname: must not be empty"],
      [{ sso: "yes" }, "sso: expected boolean, received string"],
      [{ hostname: "ab" }, "hostname: must be at least 3 characters"],
      [{ defaultRole: "owner" }, 'defaultRole: must be one of "admin", "create", "edit", "review", "comment", "read"'],
      [{ logo: "not a url" }, "logo: must be a valid URL"],
      [{ emailDomains: "acme.example" }, "emailDomains: expected array, received string"],
      [{ defaultContent: { type: "space", site: "x" } }, 'defaultContent.type: must be "site"'],
    ];
    for (const [json, message] of cases) {
      const response = await call(stack, "PATCH", `/v1/orgs/${org.organizationId}`, { token: org.owner.token, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body).toEqual({ error: { code: 400, message } });
    }
  });

  it("is forbidden to non-admins (403)", async () => {
    const editor = await createMember(stack, org, { role: "edit" });
    const response = await call(stack, "PATCH", `/v1/orgs/${org.organizationId}`, { token: editor.token, json: { title: "Nope" } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe(403);
  });
});

describe("GET /v1/email-domains/{emailDomain}/orgs", () => {
  it("lists the caller's organizations claiming the domain", async () => {
    const domain = `${uniqueEmail("d").split("@")[0]}.example`;
    await org.owner.api.orgs.updateOrganizationById(org.organizationId, { emailDomains: [domain] });
    const { data } = await org.owner.api.emailDomains.getOrganizationsForEmailDomain(domain.toUpperCase());
    expect(data.organizations.map((o) => o.id)).toEqual([org.organizationId]);
    const none = (await org.owner.api.emailDomains.getOrganizationsForEmailDomain("nobody.example")).data;
    expect(none.organizations).toEqual([]);
  });
});

describe("DELETE /v1/orgs/{organizationId}/link-invites/{inviteId}", () => {
  it("deletes an invite with 204, and answers 204 again when it no longer exists", async () => {
    // interface.md: DELETE answers 204 in both cases (GitBook: 205 when deleted, 204 when absent).
    const { inviteId } = await stack.identity.organizations.createLinkInvite({ organizationId: org.organizationId, role: MemberRole.MEMBER_ROLE_READ });
    const first = await org.owner.api.orgs.deleteOrganizationInviteById(org.organizationId, inviteId);
    expect(first.status).toBe(204);
    const again = await call(stack, "DELETE", `/v1/orgs/${org.organizationId}/link-invites/${inviteId}`, { token: org.owner.token });
    expect(again.status).toBe(204);
    expect(again.body).toBeUndefined();
  });

  it("is forbidden to non-admins", async () => {
    const { inviteId } = await stack.identity.organizations.createLinkInvite({ organizationId: org.organizationId, role: MemberRole.MEMBER_ROLE_READ });
    const reader = await createMember(stack, org, { role: "read" });
    const response = await call(stack, "DELETE", `/v1/orgs/${org.organizationId}/link-invites/${inviteId}`, { token: reader.token });
    expect(response.status).toBe(403);
  });
});

describe("another organization", () => {
  it("is 404 on every organization endpoint", async () => {
    const stranger = await createOrganization(stack);
    const target = org.organizationId;
    const { inviteId } = await stack.identity.organizations.createLinkInvite({ organizationId: target, role: MemberRole.MEMBER_ROLE_READ });
    const requests: [string, string, unknown?][] = [
      ["GET", `/v1/orgs/${target}`],
      ["PATCH", `/v1/orgs/${target}`, { title: "Taken over" }],
      ["DELETE", `/v1/orgs/${target}/link-invites/${inviteId}`],
      ["GET", `/v1/orgs/${target}/members`],
      ["GET", `/v1/orgs/${target}/members/${org.owner.userId}`],
      ["PATCH", `/v1/orgs/${target}/members/${org.owner.userId}`, { role: "read" }],
      ["DELETE", `/v1/orgs/${target}/members/${org.owner.userId}`],
      ["POST", `/v1/orgs/${target}/ping`],
      ["POST", `/v1/orgs/${target}/members/${org.owner.userId}/sso`],
    ];
    for (const [method, path, json] of requests) {
      const response = await call(stack, method, path, { token: stranger.owner.token, json });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe(404);
    }
    // Nothing changed: the owner is still an admin, the org keeps its title.
    const intact = await gitbookClient(stack, org.owner.token).orgs.getOrganizationById(target);
    expect(intact.data).toMatchObject({ title: org.title, permissions: { admin: true } });
  });
});
