import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "@imprint/proto/common/v1";
import { TargetKind } from "@imprint/proto/integration/v1/target_installations";
import { createMember, createOrganization, createSpace, errorCode, failure, type TestOrganization } from "@imprint/runtime/testing";
import { startIntegrationHarness, type IntegrationHarness } from "./support/harness.js";
import { publish } from "./support/integrations.js";

/**
 * What an organization and its sites have installed, as the public API's listings read it: the
 * scripts a site injects (the one list the reader, the published view and listSiteIntegrationScripts
 * share), the integrations an organization can use or a site has, and the organization's
 * installations with their statuses.
 */
let harness: IntegrationHarness;
let org: TestOrganization;
let other: TestOrganization;

beforeAll(async () => {
  harness = await startIntegrationHarness();
  org = await createOrganization(harness);
  other = await createOrganization(harness);
});
afterAll(() => harness?.stop());

async function createSite(owner: TestOrganization, title = "Docs") {
  const { site } = await harness.sites.createSite({
    caller: owner.owner.caller,
    organizationId: owner.organizationId,
    type: "",
    title,
    visibility: "",
    spaceIds: [],
  });
  return site!;
}

/** Installs `name` on the organization, then on the site; answers the installation's id. */
async function installOnSite(name: string, siteId: string, configurationJson = "") {
  const { installation } = await harness.installations.installIntegration({ caller: org.owner.caller, name, organizationId: org.organizationId });
  await harness.targetInstallations.installOnTarget({
    caller: org.owner.caller,
    name,
    installationId: installation!.id,
    kind: TargetKind.TARGET_KIND_SITE,
    targetId: siteId,
    configurationJson,
    externalIds: [],
  });
  return installation!.id;
}

const listIntegrations = (caller: Caller, scope: { organizationId?: string; siteId?: string }, search = "") =>
  harness.integrations.listIntegrations({
    caller,
    page: { pageToken: "", pageSize: 1000 },
    search,
    category: "",
    blockDomain: "",
    owner: "",
    scope: "",
    target: "",
    organizationId: scope.organizationId ?? "",
    siteId: scope.siteId ?? "",
  });

describe("a site's scripts", () => {
  it("lists the active site installations of integrations with site:script:inject, with their URL, policy and cookies", async () => {
    const site = await createSite(org);
    const tracker = await publish(harness, org.owner.caller, org.organizationId, {
      name: `b-tracker-${org.organizationId.slice(0, 6)}`,
      scopes: ["site:script:inject", "site:script:cookies"],
      contentSecurityPolicy: "script-src 'self'",
    });
    const widget = await publish(harness, org.owner.caller, org.organizationId, {
      name: `a-widget-${org.organizationId.slice(0, 6)}`,
      scopes: ["site:script:inject"],
    });
    const noScript = await publish(harness, org.owner.caller, org.organizationId, { scopes: ["site:views:read"] });
    // Pending (a required site property unset): not injected until it is set.
    const pending = await publish(harness, org.owner.caller, org.organizationId, {
      scopes: ["site:script:inject"],
      configurationsJson: JSON.stringify({ site: { properties: { key: { type: "string", title: "Key" } }, required: ["key"] } }),
    });
    const trackerInstallation = await installOnSite(tracker.name, site.id);
    const widgetInstallation = await installOnSite(widget.name, site.id);
    await installOnSite(noScript.name, site.id);
    await installOnSite(pending.name, site.id);

    const url = (name: string, installationId: string) =>
      `http://127.0.0.1:8080/v1/integrations/${name}/installations/${installationId}/sites/${site.id}/script.js`;
    const expected = [
      {
        integrationName: widget.name,
        installationId: widgetInstallation,
        url: url(widget.name, widgetInstallation),
        contentSecurityPolicy: "",
        cookies: false,
      },
      {
        integrationName: tracker.name,
        installationId: trackerInstallation,
        url: url(tracker.name, trackerInstallation),
        contentSecurityPolicy: "script-src 'self'",
        cookies: true,
      },
    ];
    // The reader's call (no caller) and a member's (who sees the site) answer the same list.
    expect((await harness.scripts.listSiteScripts({ siteId: site.id, organizationId: "" })).scripts).toEqual(expected);
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    expect((await harness.scripts.listSiteScripts({ siteId: site.id, caller: reader.caller, organizationId: org.organizationId })).scripts).toEqual(expected);
  });

  it("answers not_found to a caller who cannot see the site there", async () => {
    const site = await createSite(org);
    expect(await errorCode(harness.scripts.listSiteScripts({ siteId: site.id, caller: other.owner.caller, organizationId: org.organizationId }))).toBe(
      "not_found",
    );
    expect(await errorCode(harness.scripts.listSiteScripts({ siteId: site.id, caller: other.owner.caller, organizationId: other.organizationId }))).toBe(
      "not_found",
    );
    expect(await errorCode(harness.scripts.listSiteScripts({ siteId: "not-an-id", caller: org.owner.caller, organizationId: org.organizationId }))).toBe(
      "not_found",
    );
    // Without a caller, a site with no scripts (or no site) has none.
    expect((await harness.scripts.listSiteScripts({ siteId: "not-an-id", organizationId: "" })).scripts).toEqual([]);
  });
});

describe("integrations of an organization and of a site", () => {
  it("lists public integrations and the organization's own for its members; those installed on a site for who sees it", async () => {
    const own = await publish(harness, org.owner.caller, org.organizationId, { title: "Own listing" });
    const theirs = await publish(harness, other.owner.caller, other.organizationId, { title: "Their listing" });
    const shared = await publish(harness, other.owner.caller, other.organizationId, { title: "Shared listing", visibility: "public" });
    const names = async (caller: Caller, scope: { organizationId?: string; siteId?: string }) =>
      (await listIntegrations(caller, scope, "listing")).integrations.map((integration) => integration.name);
    expect(await names(org.owner.caller, { organizationId: org.organizationId })).toEqual([own.name, shared.name].sort());
    expect(await names(other.owner.caller, { organizationId: other.organizationId })).toEqual([shared.name, theirs.name].sort());
    expect(await errorCode(listIntegrations(other.owner.caller, { organizationId: org.organizationId }))).toBe("not_found");

    const site = await createSite(org);
    expect(await names(org.owner.caller, { organizationId: org.organizationId, siteId: site.id })).toEqual([]);
    await installOnSite(shared.name, site.id);
    await installOnSite(own.name, (await createSite(org, "Elsewhere")).id);
    const listed = (await listIntegrations(org.owner.caller, { organizationId: org.organizationId, siteId: site.id })).integrations;
    expect(listed.map((integration) => integration.name)).toEqual([shared.name]);
    expect(listed[0]).toMatchObject({ canAdmin: false, canInstall: true });
    expect(await errorCode(listIntegrations(other.owner.caller, { organizationId: org.organizationId, siteId: site.id }))).toBe("not_found");
    expect(await errorCode(listIntegrations(other.owner.caller, { organizationId: other.organizationId, siteId: site.id }))).toBe("not_found");
    expect((await failure(listIntegrations(org.owner.caller, { siteId: site.id }))).message).toMatch(/^organization_id: /);
  });
});

describe("an organization's installations", () => {
  it("lists them with their integration and status, on the organization or on its spaces and sites", async () => {
    const team = await createOrganization(harness);
    const caller = team.owner.caller;
    const alpha = await publish(harness, caller, team.organizationId, { name: `alpha-${team.organizationId.slice(0, 8)}`, title: "Alpha" });
    const beta = await publish(harness, caller, team.organizationId, {
      name: `beta-${team.organizationId.slice(0, 8)}`,
      title: "Beta",
      configurationsJson: JSON.stringify({ account: { properties: { token: { type: "string", title: "Token" } }, required: ["token"] } }),
    });
    const alphaInstallation = (await harness.installations.installIntegration({ caller, name: alpha.name, organizationId: team.organizationId })).installation!;
    await harness.installations.installIntegration({ caller, name: beta.name, organizationId: team.organizationId });
    const space = await createSpace(harness, team);
    const { site } = await harness.sites.createSite({ caller, organizationId: team.organizationId, type: "", title: "Docs", visibility: "", spaceIds: [] });
    for (const [kind, targetId] of [
      [TargetKind.TARGET_KIND_SPACE, space.id],
      [TargetKind.TARGET_KIND_SITE, site!.id],
    ] as const) {
      await harness.targetInstallations.installOnTarget({
        caller,
        name: alpha.name,
        installationId: alphaInstallation.id,
        kind,
        targetId,
        configurationJson: "",
        externalIds: [],
      });
    }
    const list = (request: { targetKind?: TargetKind; targetId?: string; search?: string; name?: string; caller?: Caller; organizationId?: string }) =>
      harness.installations.listOrganizationInstallations({
        caller: request.caller ?? caller,
        organizationId: request.organizationId ?? team.organizationId,
        page: { pageToken: "", pageSize: 100 },
        search: request.search ?? "",
        name: request.name ?? "",
        targetKind: request.targetKind ?? TargetKind.TARGET_KIND_UNSPECIFIED,
        targetId: request.targetId ?? "",
      });
    const summary = async (request: Parameters<typeof list>[0]) =>
      (await list(request)).installations.map((item) => [
        item.integration?.name,
        item.installation?.organizationId,
        item.targetKind,
        item.targetId,
        item.status,
      ]);

    expect(await summary({})).toEqual([
      [alpha.name, team.organizationId, TargetKind.TARGET_KIND_UNSPECIFIED, "", "active"],
      [beta.name, team.organizationId, TargetKind.TARGET_KIND_UNSPECIFIED, "", "pending"],
    ]);
    expect(await summary({ search: "bet" })).toEqual([[beta.name, team.organizationId, TargetKind.TARGET_KIND_UNSPECIFIED, "", "pending"]]);
    expect(await summary({ name: alpha.name })).toEqual([[alpha.name, team.organizationId, TargetKind.TARGET_KIND_UNSPECIFIED, "", "active"]]);
    expect(await summary({ targetKind: TargetKind.TARGET_KIND_SITE })).toEqual([
      [alpha.name, team.organizationId, TargetKind.TARGET_KIND_SITE, site!.id, "active"],
    ]);
    expect(await summary({ targetKind: TargetKind.TARGET_KIND_SPACE, targetId: space.id })).toEqual([
      [alpha.name, team.organizationId, TargetKind.TARGET_KIND_SPACE, space.id, "active"],
    ]);
    // Paged by integration name.
    const first = await harness.installations.listOrganizationInstallations({
      caller,
      organizationId: team.organizationId,
      page: { pageToken: "", pageSize: 1 },
      search: "",
      name: "",
      targetKind: TargetKind.TARGET_KIND_UNSPECIFIED,
      targetId: "",
    });
    expect(first.installations.map((item) => item.integration?.name)).toEqual([alpha.name]);
    const second = await harness.installations.listOrganizationInstallations({
      caller,
      organizationId: team.organizationId,
      page: { pageToken: first.page!.nextPageToken, pageSize: 1 },
      search: "",
      name: "",
      targetKind: TargetKind.TARGET_KIND_UNSPECIFIED,
      targetId: "",
    });
    expect(second.installations.map((item) => item.integration?.name)).toEqual([beta.name]);

    // Members only; another organization's space or site is nothing; a target id needs a kind.
    const reader = await createMember(harness, team.organizationId, { role: "read" });
    expect((await list({ caller: reader.caller })).installations).toHaveLength(2);
    expect(await errorCode(list({ caller: org.owner.caller }))).toBe("not_found");
    const foreignSpace = await createSpace(harness, org);
    expect(await errorCode(list({ targetKind: TargetKind.TARGET_KIND_SPACE, targetId: foreignSpace.id }))).toBe("not_found");
    expect((await failure(list({ targetId: space.id }))).message).toMatch(/^target_id: /);
  });
});
