import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, failure } from "@imprint/runtime/testing";
import { OidcProvider } from "../src/domain/oidc-provider.js";
import { forkEm } from "@imprint/runtime";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

/**
 * Identity's side of OpenID providers where private fetches are not allowed (the default): an
 * issuer must be https and public, as every server-side fetch. The sign-in flow itself, against a
 * real OpenID provider: gateway/test/oidc.e2e.test.ts.
 */
describe("OpenID providers without private fetches", () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.stop());

  it("refuses an http issuer and one on a private or loopback address, and keeps the secret to itself", async () => {
    const org = await createOrganization(identity.clients);
    const create = (issuer: string) =>
      identity.client.oidc.createOidcProvider({
        caller: org.owner.caller,
        organizationId: org.organizationId,
        label: "IdP",
        issuer,
        clientId: "imprint",
        clientSecret: "the secret",
      });
    for (const [issuer, reason] of [
      ["http://idp.example.com", /http is only allowed when IMPRINT_ALLOW_PRIVATE_FETCH=true/],
      ["https://127.0.0.1:8443", /loopback address.*IMPRINT_ALLOW_PRIVATE_FETCH=true on the identity service/],
      ["https://10.1.2.3/realms/x", /private address/],
      ["https://[::1]/", /loopback address/],
    ] as const) {
      const refused = await failure(create(issuer));
      expect([refused.code, refused.message]).toEqual(["invalid_argument", expect.stringMatching(reason)]);
    }
    // A public address passes (nothing is fetched until someone signs in).
    const { provider } = await create("https://93.184.215.14/realms/imprint");
    expect(provider).toMatchObject({ issuer: "https://93.184.215.14/realms/imprint", clientId: "imprint" });
    expect(JSON.stringify(provider)).not.toContain("the secret");
    // Stored sealed (AES-256-GCM under the service's key), not as its text.
    const stored = await forkEm(identity.running.orm).findOneOrFail(OidcProvider, provider!.id);
    expect(Buffer.from(stored.secretsCiphertext).toString("latin1")).not.toContain("the secret");
    expect(Buffer.from(stored.secretsCiphertext).length).toBeGreaterThan(28 + "the secret".length);
    // Starting a sign-in through an issuer that turned private is refused the same way, before any request.
    await forkEm(identity.running.orm).nativeUpdate(OidcProvider, { id: provider!.id }, { issuer: "https://127.0.0.1:8443" });
    const start = await failure(
      identity.client.oidc.startOidcSignIn({ providerId: provider!.id, redirectUri: "https://api.example/cb", returnPath: "/", inviteId: "" }),
    );
    expect([start.code, start.message]).toEqual(["upstream_failed", expect.stringMatching(/loopback address/)]);
  });
});
