import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { createOrganization, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Writes with parts of the stack down. A write is answered with its result or not applied: with
 * content down, the team routes (saved in identity, shown with content's count of granted spaces)
 * either succeed with their whole answer or fail before identity saves anything. With NATS
 * unreachable from the gateway, Idempotency-Key still works, within the process.
 */

let stack: TestStack;
let org: TestOrganization;
let teamId: string;

const teams = () => `/v1/orgs/${org.organizationId}/teams`;

beforeAll(async () => {
  // A NATS the gateway cannot reach: its idempotency records stay in the process.
  stack = await startStack({ gatewayEnv: { NATS_URL: `nats://127.0.0.1:${await getFreePort()}` } });
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
    const { teams: saved } = await stack.identity.teams.batchGetTeams({ organizationId: org.organizationId, teamIds: [created.body.id] });
    expect(saved.map((team) => team.title)).toEqual(["Editors"]);
  });

  it("refuses a rename before identity saves it (503), so a retry cannot apply it twice", async () => {
    const renamed = await call(stack, "PATCH", `${teams()}/${teamId}`, { token: org.owner.token, json: { title: "Authors" } });
    expect(renamed.status).toBe(503);
    const { teams: saved } = await stack.identity.teams.batchGetTeams({ organizationId: org.organizationId, teamIds: [teamId] });
    expect(saved.map((team) => team.title)).toEqual(["Writers"]);
  });
});

describe("with content down, SAML providers (their default team is shown with content's count)", () => {
  const saml = () => `/v1/orgs/${org.organizationId}/saml`;
  const providers = async () =>
    (
      await stack.identity.saml.listSamlProviders({ caller: org.owner.caller, organizationId: org.organizationId, page: { pageToken: "", pageSize: 100 } })
    ).providers.map((provider) => provider.label);

  /** A self-signed certificate (openssl), so that identity would accept the provider. */
  function certificate(): string {
    const dir = mkdtempSync(join(tmpdir(), "imprint-saml-"));
    try {
      const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
      execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=idp"], {
        stdio: "ignore",
      });
      return readFileSync(cert, "utf8");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("are refused before identity saves one naming a default team (503); one without is created whole", async () => {
    const provider = { entityID: "https://idp.example.test/metadata", ssoURL: "https://idp.example.test/sso", certificate: certificate() };
    const withTeam = await call(stack, "POST", saml(), { token: org.owner.token, json: { label: "With team", defaultTeam: teamId, ...provider } });
    expect(withTeam.status).toBe(503);
    expect(await providers()).toEqual([]);
    const without = await call(stack, "POST", saml(), { token: org.owner.token, json: { label: "Without team", ...provider } });
    expect(without.status).toBe(201);
    expect(without.body).toMatchObject({ object: "saml-provider", label: "Without team" });
    expect(await providers()).toEqual(["Without team"]);
  });
});

describe("with NATS unreachable from the gateway", () => {
  it("still answers a retry with an Idempotency-Key with the first answer, and creates nothing more", async () => {
    const headers = { "idempotency-key": randomUUID() };
    const first = await call(stack, "PUT", teams(), { token: org.owner.token, json: { title: "Reviewers" }, headers });
    const again = await call(stack, "PUT", teams(), { token: org.owner.token, json: { title: "Reviewers" }, headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const { teams: listed } = await stack.identity.teams.listTeams({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      page: { pageToken: "", pageSize: 100 },
      ownerUserId: "",
      title: "Reviewers",
    });
    expect(listed.map((team) => team.id)).toEqual([first.body.id]);
  });
});
