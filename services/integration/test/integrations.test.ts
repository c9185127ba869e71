import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TargetKind } from "@imprint/proto/integration/v1/target_installations";
import { MAX_JSON_DEPTH } from "@imprint/runtime";
import {
  createCollection,
  createMember,
  createOrganization,
  createSpace,
  errorCode,
  eventually,
  failure,
  pngBytes,
  readEvents,
  type TestOrganization,
} from "@imprint/runtime/testing";
import { startIntegrationHarness, type IntegrationHarness } from "./support/harness.js";
import { integrationName, publish } from "./support/integrations.js";

let harness: IntegrationHarness;
let org: TestOrganization;
let other: TestOrganization;

beforeAll(async () => {
  harness = await startIntegrationHarness();
  org = await createOrganization(harness);
  other = await createOrganization(harness);
});
afterAll(() => harness?.stop());

describe("publishing integrations", () => {
  it("publishes, counts versions up, keeps secrets sealed and stores images", async () => {
    const name = integrationName("pub");
    const first = await publish(harness, org.owner.caller, org.organizationId, {
      name,
      secrets: { API_KEY: "s3cret-value" },
      icon: { content: pngBytes(16, 16) },
      previewImages: [{ content: pngBytes(32, 32) }],
      previewsPresent: true,
      blocksJson: JSON.stringify([{ id: "counter", title: "Counter", urlUnfurl: ["https://example.com/*"] }]),
      configurationsJson: JSON.stringify({ account: { properties: { token: { type: "string", title: "Token" } }, required: ["token"] } }),
    });
    expect(first).toMatchObject({ name, version: 1, runtime: "v1", visibility: "private", target: "all", secretNames: ["API_KEY"], canAdmin: true });
    expect(JSON.stringify(first)).not.toContain("s3cret-value");
    const second = await publish(harness, org.owner.caller, org.organizationId, { name, title: "Renamed" });
    expect(second).toMatchObject({ version: 2, title: "Renamed", secretNames: ["API_KEY"], iconAssetId: first.iconAssetId });
    const asset = await harness.integrations.getIntegrationAsset({ name, assetId: first.iconAssetId });
    expect(asset.contentType).toBe("image/png");
    expect(Buffer.from(asset.content).equals(pngBytes(16, 16))).toBe(true);
    // Installed, its events delivered with the secrets in the script's environment: no log line has them.
    await harness.installations.installIntegration({ caller: org.owner.caller, name, organizationId: org.organizationId });
    await eventually(
      async () => (await harness.integrationEvents.listIntegrationEvents({ caller: org.owner.caller, name, page: undefined })).events.length > 0,
    );
    expect(harness.integrationLogs.length).toBeGreaterThan(0);
    expect(JSON.stringify(harness.integrationLogs)).not.toContain("s3cret-value");
    // At rest the secret is ciphertext.
    const rows = await harness.integration.orm.em
      .getConnection()
      .execute<{ secrets_ciphertext: Buffer }[]>("select secrets_ciphertext from integrations where name = ?", [name]);
    expect(rows[0]!.secrets_ciphertext.toString("latin1")).not.toContain("s3cret-value");
  });

  it("refuses what GitBook's limits refuse, naming the field", async () => {
    expect((await failure(publish(harness, org.owner.caller, org.organizationId, { title: "x" }))).message).toContain("title:");
    expect((await failure(publish(harness, org.owner.caller, org.organizationId, { scopes: ["space:everything"] }))).message).toContain("scopes[0]");
    expect((await failure(publish(harness, org.owner.caller, org.organizationId, { blocksJson: JSON.stringify([{ id: "x", title: "" }]) }))).message).toContain(
      "[0].title",
    );
    expect(
      (await failure(publish(harness, org.owner.caller, org.organizationId, { configurationsJson: JSON.stringify({ account: { required: ["nope"] } }) })))
        .message,
    ).toContain("configurations.account");
    expect((await failure(publish(harness, org.owner.caller, org.organizationId, { icon: { content: Buffer.from("<svg/>") } }))).message).toContain("icon:");
    expect(await errorCode(publish(harness, org.owner.caller, org.organizationId, { name: "bad name!" }))).toBe("invalid_argument");
  });

  it("accepts names as GitBook's integrationName pattern says, except dot segments and names every object has", async () => {
    for (const name of ["my-integration", "A.b_c-9", "x", "v1.2", "a".repeat(100), `.${integrationName("dot")}`]) {
      expect((await publish(harness, org.owner.caller, org.organizationId, { name })).name).toBe(name);
    }
    for (const name of [
      "",
      ".",
      "..",
      "...",
      "__proto__",
      "constructor",
      "prototype",
      "toString",
      "hasOwnProperty",
      "a/b",
      "a b",
      "é",
      "a%2e",
      "a".repeat(101),
    ]) {
      const refused = await failure(publish(harness, org.owner.caller, org.organizationId, { name }));
      expect([name, refused.code, refused.message]).toEqual([name, "invalid_argument", expect.stringMatching(/^integrationName: /)]);
      // Looked up, such a name names nothing.
      expect([name, await errorCode(harness.integrations.getIntegration({ caller: org.owner.caller, name }))]).toEqual([name, "not_found"]);
    }
  });

  it("lets only admins of the publishing organization publish, and keeps names to their owner", async () => {
    const editor = await createMember(harness, org.organizationId, { role: "edit" });
    expect(await errorCode(publish(harness, editor.caller, org.organizationId))).toBe("permission_denied");
    expect(await errorCode(publish(harness, other.owner.caller, org.organizationId))).toBe("not_found");
    const taken = await publish(harness, org.owner.caller, org.organizationId);
    expect(await errorCode(publish(harness, other.owner.caller, other.organizationId, { name: taken.name }))).toBe("already_exists");
  });

  it("hides private integrations from other organizations and lists with GitBook's filters", async () => {
    const priv = await publish(harness, org.owner.caller, org.organizationId, { scopes: ["site:views:read"], categories: ["analytics"] });
    const pub = await publish(harness, org.owner.caller, org.organizationId, {
      visibility: "public",
      target: "space",
      blocksJson: JSON.stringify([{ id: "b", title: "Block", urlUnfurl: ["https://docs.example.org/*"] }]),
    });
    expect(await errorCode(harness.integrations.getIntegration({ caller: other.owner.caller, name: priv.name }))).toBe("not_found");
    expect((await harness.integrations.getIntegration({ caller: other.owner.caller, name: pub.name })).integration).toMatchObject({
      name: pub.name,
      canAdmin: false,
      canInstall: true,
    });
    const names = async (caller = other.owner.caller, filters: Record<string, unknown> = {}) =>
      (
        await harness.integrations.listIntegrations({
          caller,
          page: { pageToken: "", pageSize: 1000 },
          search: "",
          category: "",
          blockDomain: "",
          owner: "",
          scope: "",
          target: "",
          organizationId: "",
          siteId: "",
          ...filters,
        })
      ).integrations.map((i) => i.name);
    expect(await names()).toContain(pub.name);
    expect(await names()).not.toContain(priv.name);
    expect(await names(org.owner.caller, { category: "analytics" })).toEqual([priv.name]);
    expect(await names(org.owner.caller, { scope: "site:views:read" })).toEqual([priv.name]);
    expect(await names(org.owner.caller, { blockDomain: "docs.example.org" })).toEqual([pub.name]);
    expect(await names(org.owner.caller, { blocks: true, owner: org.organizationId })).toEqual([pub.name]);
    expect(await names(org.owner.caller, { target: "space", owner: org.organizationId })).toContain(pub.name);
    expect(await names(org.owner.caller, { target: "site", owner: org.organizationId })).not.toContain(pub.name);
  });
});

describe("installations", () => {
  it("installs on an organization (pending until configured), validates configuration, lists by external id and uninstalls", async () => {
    const integration = await publish(harness, org.owner.caller, org.organizationId, {
      configurationsJson: JSON.stringify({ account: { properties: { token: { type: "string" }, count: { type: "number" } }, required: ["token"] } }),
    });
    const { installation, created } = await harness.installations.installIntegration({
      caller: org.owner.caller,
      name: integration.name,
      organizationId: org.organizationId,
    });
    expect(created).toBe(true);
    expect(installation).toMatchObject({ status: "pending", configurationJson: "{}", organizationId: org.organizationId });
    expect(
      (await harness.installations.installIntegration({ caller: org.owner.caller, name: integration.name, organizationId: org.organizationId })).created,
    ).toBe(false);

    const bad = await failure(
      harness.installations.updateInstallation({
        caller: org.owner.caller,
        name: integration.name,
        installationId: installation!.id,
        updateMask: ["configuration_json"],
        configurationJson: JSON.stringify({ count: "three" }),
        spaceSelection: "",
        siteSelection: "",
      }),
    );
    expect(bad.message).toContain("configuration.count");
    const unknown = await failure(
      harness.installations.updateInstallation({
        caller: org.owner.caller,
        name: integration.name,
        installationId: installation!.id,
        updateMask: ["configuration_json"],
        configurationJson: JSON.stringify({ other: 1 }),
        spaceSelection: "",
        siteSelection: "",
      }),
    );
    expect(unknown.message).toContain("configuration.other");
    // Free-form JSON nests at most MAX_JSON_DEPTH levels (text: JSON.stringify itself overflows on deep values).
    for (const depth of [MAX_JSON_DEPTH + 1, 5_000]) {
      const deep = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
      const tooDeep = await failure(
        harness.installations.updateInstallation({
          caller: org.owner.caller,
          name: integration.name,
          installationId: installation!.id,
          updateMask: ["configuration_json"],
          configurationJson: deep,
          spaceSelection: "",
          siteSelection: "",
        }),
      );
      expect(tooDeep).toMatchObject({ code: "invalid_argument", message: `configuration: nesting deeper than ${MAX_JSON_DEPTH}` });
      expect(await failure(publish(harness, org.owner.caller, org.organizationId, { name: integration.name, blocksJson: `[${deep}]` }))).toMatchObject({
        message: `blocks: nesting deeper than ${MAX_JSON_DEPTH}`,
      });
    }
    const updated = await harness.installations.updateInstallation({
      caller: org.owner.caller,
      name: integration.name,
      installationId: installation!.id,
      updateMask: ["configuration_json", "external_ids"],
      configurationJson: JSON.stringify({ token: "t" }),
      externalIds: { values: ["ext-1"] },
      spaceSelection: "",
      siteSelection: "",
    });
    expect(updated.installation).toMatchObject({ status: "active", externalIds: ["ext-1"] });
    const listed = await harness.installations.listInstallations({ caller: org.owner.caller, name: integration.name, page: undefined, externalId: "ext-1" });
    expect(listed.installations.map((i) => i.id)).toEqual([installation!.id]);
    expect(
      (await harness.installations.listInstallations({ caller: org.owner.caller, name: integration.name, page: undefined, externalId: "nope" })).installations,
    ).toEqual([]);

    const token = await harness.installations.issueInstallationToken({ caller: org.owner.caller, name: integration.name, installationId: installation!.id });
    const authenticated = await harness.identity.tokens.authenticateToken({ token: token.token });
    expect(authenticated.caller?.userId).toBeTruthy();

    expect((await harness.installations.uninstall({ caller: org.owner.caller, name: integration.name, installationId: installation!.id })).existed).toBe(true);
    expect((await harness.installations.uninstall({ caller: org.owner.caller, name: integration.name, installationId: installation!.id })).existed).toBe(false);
    expect(await errorCode(harness.identity.tokens.authenticateToken({ token: token.token }))).toBe("unauthenticated");
  });

  it("installs a private integration only in its owner's organization; another organization's installation is 404", async () => {
    const integration = await publish(harness, org.owner.caller, org.organizationId);
    expect(
      await errorCode(harness.installations.installIntegration({ caller: other.owner.caller, name: integration.name, organizationId: other.organizationId })),
    ).toBe("not_found");
    const pub = await publish(harness, org.owner.caller, org.organizationId, { visibility: "public" });
    const { installation } = await harness.installations.installIntegration({
      caller: other.owner.caller,
      name: pub.name,
      organizationId: other.organizationId,
    });
    const stranger = await createOrganization(harness);
    expect(await errorCode(harness.installations.getInstallation({ caller: stranger.owner.caller, name: pub.name, installationId: installation!.id }))).toBe(
      "not_found",
    );
    // The integration's developers (admins of its owner) see every installation.
    expect((await harness.installations.getInstallation({ caller: org.owner.caller, name: pub.name, installationId: installation!.id })).installation?.id).toBe(
      installation!.id,
    );
    expect(
      (await harness.installations.listInstallations({ caller: stranger.owner.caller, name: pub.name, page: undefined, externalId: "" })).installations,
    ).toEqual([]);
  });

  it("takes a space's installations away when its collection moves to another organization", async () => {
    const integration = await publish(harness, org.owner.caller, org.organizationId);
    const { installation } = await harness.installations.installIntegration({
      caller: org.owner.caller,
      name: integration.name,
      organizationId: org.organizationId,
    });
    const collection = await createCollection(harness, org);
    const space = await createSpace(harness, org, { parentId: collection.id });
    const base = { caller: org.owner.caller, name: integration.name, installationId: installation!.id };
    await harness.targetInstallations.installOnTarget({
      ...base,
      kind: TargetKind.TARGET_KIND_SPACE,
      targetId: space.id,
      configurationJson: "",
      externalIds: [],
    });
    const target = await createOrganization(harness, { ownerEmail: org.owner.email });
    await harness.collections.transferCollection({ caller: org.owner.caller, collectionId: collection.id, organizationId: target.organizationId });
    await eventually(async () => {
      const { installations } = await harness.targetInstallations.listTargetInstallations({
        ...base,
        kind: TargetKind.TARGET_KIND_SPACE,
        externalId: "",
        page: undefined,
      });
      return installations.every((item) => item.targetId !== space.id);
    });
    const events = await readEvents("integration", { organizationId: org.organizationId, payload: { targetId: space.id } });
    expect(events.map((event) => event.type)).toEqual(["target_installation.created", "target_installation.deleted"]);
  });

  it("installs on spaces and sites of the installation's organization only", async () => {
    const integration = await publish(harness, org.owner.caller, org.organizationId, {
      configurationsJson: JSON.stringify({ space: { properties: { mode: { type: "string", enum: ["a", "b"] } } } }),
    });
    const { installation } = await harness.installations.installIntegration({
      caller: org.owner.caller,
      name: integration.name,
      organizationId: org.organizationId,
    });
    const space = await createSpace(harness, org);
    const foreignSpace = await createSpace(harness, other);
    const { site } = await harness.sites.createSite({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      type: "",
      title: "Docs site",
      visibility: "",
      spaceIds: [],
    });
    const base = { caller: org.owner.caller, name: integration.name, installationId: installation!.id };
    const onSpace = await harness.targetInstallations.installOnTarget({
      ...base,
      kind: TargetKind.TARGET_KIND_SPACE,
      targetId: space.id,
      configurationJson: JSON.stringify({ mode: "a" }),
      externalIds: [],
    });
    expect(onSpace).toMatchObject({ created: true, installation: { targetId: space.id, status: "active", configurationJson: JSON.stringify({ mode: "a" }) } });
    expect(
      await errorCode(
        harness.targetInstallations.installOnTarget({
          ...base,
          kind: TargetKind.TARGET_KIND_SPACE,
          targetId: foreignSpace.id,
          configurationJson: "",
          externalIds: [],
        }),
      ),
    ).toBe("not_found");
    expect(
      (
        await failure(
          harness.targetInstallations.updateTargetInstallation({
            ...base,
            kind: TargetKind.TARGET_KIND_SPACE,
            targetId: space.id,
            updateMask: ["configuration_json"],
            configurationJson: JSON.stringify({ mode: "c" }),
          }),
        )
      ).message,
    ).toContain("configuration.mode");
    await harness.targetInstallations.installOnTarget({
      ...base,
      kind: TargetKind.TARGET_KIND_SITE,
      targetId: site!.id,
      configurationJson: "",
      externalIds: ["s-1"],
    });
    const spaces = await harness.targetInstallations.listTargetInstallations({
      caller: org.owner.caller,
      name: integration.name,
      kind: TargetKind.TARGET_KIND_SPACE,
      installationId: "",
      externalId: "",
      page: undefined,
    });
    expect(spaces.installations.map((i) => i.targetId)).toEqual([space.id]);
    const sites = await harness.targetInstallations.listTargetInstallations({
      caller: org.owner.caller,
      name: integration.name,
      kind: TargetKind.TARGET_KIND_SITE,
      installationId: installation!.id,
      externalId: "s-1",
      page: undefined,
    });
    expect(sites.installations.map((i) => i.targetId)).toEqual([site!.id]);
    expect((await harness.installations.getInstallation({ ...base })).installation?.spaceCount).toBe(1);
    expect((await harness.targetInstallations.uninstallFromTarget({ ...base, kind: TargetKind.TARGET_KIND_SPACE, targetId: space.id })).existed).toBe(true);
    expect((await harness.targetInstallations.uninstallFromTarget({ ...base, kind: TargetKind.TARGET_KIND_SPACE, targetId: space.id })).existed).toBe(false);
    // A target the integration cannot go to is refused.
    const orgOnly = await publish(harness, org.owner.caller, org.organizationId, { target: "organization" });
    const orgInstallation = await harness.installations.installIntegration({
      caller: org.owner.caller,
      name: orgOnly.name,
      organizationId: org.organizationId,
    });
    expect(
      await errorCode(
        harness.targetInstallations.installOnTarget({
          caller: org.owner.caller,
          name: orgOnly.name,
          installationId: orgInstallation.installation!.id,
          kind: TargetKind.TARGET_KIND_SPACE,
          targetId: space.id,
          configurationJson: "",
          externalIds: [],
        }),
      ),
    ).toBe("invalid_argument");
  });

  it("unpublishing uninstalls everywhere and announces it", async () => {
    const integration = await publish(harness, org.owner.caller, org.organizationId, { visibility: "public" });
    await harness.installations.installIntegration({ caller: org.owner.caller, name: integration.name, organizationId: org.organizationId });
    await harness.installations.installIntegration({ caller: other.owner.caller, name: integration.name, organizationId: other.organizationId });
    expect((await harness.integrations.unpublishIntegration({ caller: org.owner.caller, name: integration.name })).existed).toBe(true);
    expect((await harness.integrations.unpublishIntegration({ caller: org.owner.caller, name: integration.name })).existed).toBe(false);
    expect(await errorCode(harness.integrations.getIntegration({ caller: org.owner.caller, name: integration.name }))).toBe("not_found");
    const events = await eventually(async () => {
      const found = await readEvents("integration", { payload: { integrationName: integration.name } });
      return found.filter((event) => event.type === "installation.deleted").length === 2 ? found : undefined;
    });
    expect(events.map((event) => event.type)).toContain("installation.deleted");
  });
});
