import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * A write is answered with its result or not applied: with content down, the team routes (saved
 * in identity, shown with content's count of granted spaces) either succeed with their whole
 * answer or fail before identity saves anything.
 */

let stack: TestStack;
let org: TestOrganization;
let teamId: string;

const teams = () => `/v1/orgs/${org.organizationId}/teams`;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  const created = await call(stack, "PUT", teams(), { token: org.owner.token, json: { title: "Writers" } });
  expect(created.status).toBe(201);
  teamId = created.body.id;
  await stack.stopUpstream("content");
});
afterAll(() => stack?.stop());

describe("with content down", () => {
  it("creates a team and answers it whole: a new team has no space", async () => {
    const created = await call(stack, "PUT", teams(), { token: org.owner.token, json: { title: "Editors" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "team", title: "Editors", spaces: 0 });
    expect(created.headers.get("location")).toBe(`${stack.baseUrl}${teams()}/${created.body.id}`);
    const { teams: saved } = await stack.identity.batchGetTeams({ organizationId: org.organizationId, teamIds: [created.body.id] });
    expect(saved.map((team) => team.title)).toEqual(["Editors"]);
  });

  it("refuses a rename before identity saves it (503), so a retry cannot apply it twice", async () => {
    const renamed = await call(stack, "PATCH", `${teams()}/${teamId}`, { token: org.owner.token, json: { title: "Authors" } });
    expect(renamed.status).toBe(503);
    const { teams: saved } = await stack.identity.batchGetTeams({ organizationId: org.organizationId, teamIds: [teamId] });
    expect(saved.map((team) => team.title)).toEqual(["Writers"]);
  });
});
