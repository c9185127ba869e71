import { afterAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { checkHealth, ConfigError, forkEm } from "@imprint/runtime";
import { createTestDatabase } from "@imprint/runtime/testing";
import { Organization } from "../src/domain/organization.js";
import { startTestIdentity, testConfig, type TestIdentity } from "./support/harness.js";

const BOOTSTRAP_TOKEN = "imp_bootstrap_secret_for_tests_0001";

describe("first-run bootstrap", () => {
  const started: TestIdentity[] = [];
  afterAll(async () => {
    for (const identity of started) await identity.stop();
  });

  it("creates the organization, its admin owner and the chosen token once across restarts and concurrent starts", async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "identity_bootstrap");
    const extraEnv = { IMPRINT_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN, IMPRINT_BOOTSTRAP_ORG_TITLE: "Bootstrapped", IMPRINT_BOOTSTRAP_EMAIL: "Root@Example.com" };

    const first = await startTestIdentity({ databaseUrl, extraEnv });
    started.push(first);
    const principal = await first.client.tokens.authenticateToken({ token: BOOTSTRAP_TOKEN });
    expect(principal.user).toMatchObject({ email: "root@example.com" });
    const { organizations } = await first.client.organizations.listOrganizations({ caller: principal.caller, page: undefined });
    expect(organizations).toHaveLength(1);
    expect(organizations[0]).toMatchObject({ title: "Bootstrapped", permissions: { admin: true } });
    await first.stop();
    started.pop();

    // A restart, and two replicas starting together on the same database.
    const replicas = await Promise.all([startTestIdentity({ databaseUrl, extraEnv }), startTestIdentity({ databaseUrl, extraEnv })]);
    started.push(...replicas);
    expect(await forkEm(replicas[0].running.orm).count(Organization, {})).toBe(1);
    const again = await replicas[1].client.tokens.authenticateToken({ token: BOOTSTRAP_TOKEN });
    expect(again.caller).toEqual(principal.caller);
  });

  it("does nothing without IMPRINT_BOOTSTRAP_TOKEN", async () => {
    const identity = await startTestIdentity();
    started.push(identity);
    expect(await forkEm(identity.running.orm).count(Organization, {})).toBe(0);
  });

  it("rejects a bootstrap token without the imp_ prefix as a configuration error", () => {
    expect(() => testConfig("postgres://x/y", { IMPRINT_BOOTSTRAP_TOKEN: "secret-without-prefix" })).toThrow(ConfigError);
    expect(() => testConfig("postgres://x/y", { IMPRINT_BOOTSTRAP_TOKEN: "secret-without-prefix" })).toThrow(/IMPRINT_BOOTSTRAP_TOKEN: must start with "imp_"/);
    expect(testConfig("postgres://x/y", { IMPRINT_BOOTSTRAP_TOKEN: "" }).IMPRINT_BOOTSTRAP_TOKEN).toBeUndefined();
  });

  it("reports SERVING health for the identity service once started", async () => {
    const identity = await startTestIdentity();
    started.push(identity);
    expect(await checkHealth(identity.running.address, "imprint.identity.v1.TokenService")).toBe("SERVING");
  });
});
