import { describe, expect, it } from "vitest";
import { assertContract, findOperation } from "./support/contract.js";

// The contract checker guards every e2e response; these cases prove it can fail.
const organization = {
  object: "organization",
  id: "org1",
  title: "Acme",
  createdAt: "2024-01-01T00:00:00.000Z",
  emailDomains: [],
  type: "business",
  defaultRole: null,
  sso: false,
  ai: false,
  inviteLinks: true,
  plan: "free",
  mergeRules: { type: "none" },
  urls: { location: "http://localhost/v1/orgs/org1", app: "http://localhost/o/org1/" },
  trial: { status: "notapplicable", count: 0 },
  permissions: Object.fromEntries(
    [
      "view",
      "access",
      "admin",
      "ownTeam",
      "createContent",
      "createOpenAPISpec",
      "viewBilling",
      "listMembers",
      "listTeams",
      "listIntegrations",
      "listInstallations",
      "installIntegration",
    ].map((k) => [k, true]),
  ),
};
const json = (body: unknown, status = 200) => ({ status, contentType: "application/json; charset=utf-8", text: JSON.stringify(body) });
const get = { method: "GET", url: "http://localhost/v1/orgs/org1" };

describe("OpenAPI contract checker", () => {
  it("finds operations by method and path", () => {
    expect(findOperation("GET", "http://x/v1/orgs/abc")?.operationId).toBe("getOrganizationById");
    expect(findOperation("GET", "http://x/v1/orgs/abc/members?limit=2")?.operationId).toBe("listMembersInOrganizationById");
    expect(findOperation("DELETE", "http://x/v1/orgs")).toBeUndefined();
  });

  it("accepts a conforming organization and rejects one missing a required field or with a wrong type", () => {
    expect(() => assertContract(get, json(organization))).not.toThrow();
    const { plan: _plan, ...withoutPlan } = organization;
    expect(() => assertContract(get, json(withoutPlan))).toThrow(/plan/);
    expect(() => assertContract(get, json({ ...organization, createdAt: "yesterday" }))).toThrow(/date-time/);
  });

  it("checks error bodies and their code", () => {
    expect(() => assertContract(get, json({ error: { code: 404, message: "Organization not found" } }, 404))).not.toThrow();
    expect(() => assertContract(get, json({ error: { code: 400, message: "x" } }, 404))).toThrow(/differs/);
    expect(() => assertContract(get, json({ message: "x" }, 500))).toThrow(/error body/);
  });

  it("rejects statuses the operation does not declare and bodies on no-content answers", () => {
    expect(() => assertContract(get, json(organization, 201))).toThrow(/does not declare/);
    const del = { method: "DELETE", url: "http://localhost/v1/orgs/o/members/u" };
    expect(() => assertContract(del, { status: 204, contentType: null, text: "" })).not.toThrow();
    expect(() => assertContract(del, { status: 204, contentType: "application/json", text: "{}" })).toThrow(/no body/);
  });

  it("requires a reason for paths GitBook does not have", () => {
    const health = { method: "GET", url: "http://localhost/healthz" };
    expect(() => assertContract(health, json({ status: "ok" }))).toThrow(/notInOpenApi/);
    expect(() => assertContract(health, json({ status: "ok" }), { notInOpenApi: "Imprint probe" })).not.toThrow();
  });
});
