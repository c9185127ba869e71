import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReaderHandle } from "@imprint/reader";
import { TargetInstallationServiceService, TargetKind } from "@imprint/proto/integration/v1/target_installations";
import { eventually, testClient } from "@imprint/runtime/testing";
import type { PublishIntegration } from "../../node_modules/@gitbook/api/dist/client.js";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { pagesOf, startTestReader, writeContent } from "./support/reader.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * What an organization and its sites have installed, through GitBook's own client (every answer
 * checked against GitBook's schema): the integrations it can use, its installations and their
 * statuses, a site's integrations, and the scripts a site's pages inject, which the published view,
 * listSiteIntegrationScripts and the reader's pages all take from the integration service's one list.
 */
let stack: TestStack;
let org: TestOrganization;
let other: TestOrganization;
let reader: ReaderHandle;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  other = await createOrganization(stack);
  reader = await startTestReader(stack, { events: true, env: { INTEGRATION_GRPC_ADDRESS: stack.integrationAddress } });
});
afterAll(async () => {
  await reader?.stop();
  await stack?.stop();
});

const SCRIPT = `export default { async fetch(request) { const form = await request.formData(); const event = JSON.parse(form.get("event")); if (event.type === "fetch_published_script") return new Response("window.__listed = true;", { headers: { "content-type": "application/javascript" } }); return new Response("OK"); } }`;

const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

async function publish(name: string, overrides: Partial<PublishIntegration> = {}, organization = org) {
  const response = await organization.owner.api.integrations.publishIntegration(name, {
    organization: organization.organizationId,
    title: "Listing test",
    description: "An integration under test",
    scopes: [],
    script: SCRIPT,
    ...overrides,
  });
  expect(response.status).toBe(200);
  return response.data;
}

async function install(name: string, organization = org) {
  return (await organization.owner.api.integrations.installIntegration(name, { organization: organization.organizationId })).data;
}

async function createSite(organization = org, title = "Listing site") {
  return (await organization.owner.api.orgs.createSite(organization.organizationId, { title })).data;
}

const scriptUrlsIn = (html: string) => [...html.matchAll(/<script src="([^"]+)" async><\/script>/g)].map((match) => match[1]);

describe("a site's integration scripts", () => {
  it("are the same in the published view, listSiteIntegrationScripts and the reader's pages", async () => {
    const space = await createSpace(stack, org, { title: "Listed" });
    await writeContent(stack, org, space.id, pagesOf([["welcome", "# Welcome\n\nHello."]]));
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Listed docs", spaces: [space.id] })).data;
    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { basename: `listed-${site.id.slice(0, 8)}` });
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const pagePath = `/${org.organizationId}/listed-${site.id.slice(0, 8)}/`;
    await eventually(async () => (await fetch(`${reader.url}${pagePath}`)).status === 200);

    // No integration yet: nothing anywhere.
    expect((await org.owner.api.orgs.getPublishedContentSite(org.organizationId, site.id)).data.scripts).toEqual([]);
    expect((await org.owner.api.orgs.listSiteIntegrationScripts(org.organizationId, site.id)).data).toEqual([]);

    const tracker = uniqueName("tracker");
    await publish(tracker, { scopes: ["site:script:inject", "site:script:cookies"] as never, contentSecurityPolicy: "script-src 'self'" });
    const installation = await install(tracker);
    await org.owner.api.integrations.installIntegrationOnSite(tracker, installation.id, { siteId: site.id });
    // An integration on the site without the inject scope injects nothing.
    const quiet = uniqueName("quiet");
    await publish(quiet, { scopes: ["site:views:read"] as never });
    await org.owner.api.integrations.installIntegrationOnSite(quiet, (await install(quiet)).id, { siteId: site.id });

    const scriptUrl = `${stack.baseUrl}/v1/integrations/${tracker}/installations/${installation.id}/sites/${site.id}/script.js`;
    const injected = await eventually(async () => {
      const urls = scriptUrlsIn(await (await fetch(`${reader.url}${pagePath}`)).text());
      return urls.length > 0 && urls;
    });
    expect(injected).toEqual([scriptUrl]);
    const expected = [{ script: scriptUrl, contentSecurityPolicy: "script-src 'self'", cookies: true }];
    expect((await org.owner.api.orgs.listSiteIntegrationScripts(org.organizationId, site.id)).data).toEqual(expected);
    expect((await org.owner.api.orgs.getPublishedContentSite(org.organizationId, site.id)).data.scripts).toEqual(expected);
    expect(expected.map((script) => script.script)).toEqual(injected);
    // What they name is what the gateway serves.
    expect(await (await fetch(scriptUrl)).text()).toBe("window.__listed = true;");

    // Uninstalled from the site, it leaves all three (the published view kept for this caller included).
    await org.owner.api.integrations.uninstallIntegrationFromSite(tracker, installation.id, site.id);
    expect((await org.owner.api.orgs.listSiteIntegrationScripts(org.organizationId, site.id)).data).toEqual([]);
    expect((await org.owner.api.orgs.getPublishedContentSite(org.organizationId, site.id)).data.scripts).toEqual([]);
    await eventually(async () => scriptUrlsIn(await (await fetch(`${reader.url}${pagePath}`)).text()).length === 0);

    // Installed again past this gateway (as through another replica): the list it kept for the
    // published view goes with integration's event.
    const installations = testClient(TargetInstallationServiceService, stack.integrationAddress);
    try {
      await installations.installOnTarget({
        caller: org.owner.caller,
        name: tracker,
        installationId: installation.id,
        kind: TargetKind.TARGET_KIND_SITE,
        targetId: site.id,
        configurationJson: "",
        externalIds: [],
      });
    } finally {
      installations.close();
    }
    await eventually(async () => (await org.owner.api.orgs.getPublishedContentSite(org.organizationId, site.id)).data.scripts.length === 1);
    expect((await org.owner.api.orgs.getPublishedContentSite(org.organizationId, site.id)).data.scripts).toEqual(expected);
  });

  it("are refused to who cannot see the site", async () => {
    const site = await createSite();
    const path = `/v1/orgs/${org.organizationId}/sites/${site.id}/integration-scripts`;
    expect((await call(stack, "GET", path, { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `/v1/orgs/${other.organizationId}/sites/${site.id}/integration-scripts`, { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", path)).status).toBe(401);
    const readerMember = await createMember(stack, org, { role: "read" });
    expect((await readerMember.api.orgs.listSiteIntegrationScripts(org.organizationId, site.id)).data).toEqual([]);
  });
});

describe("an organization's integrations and installations", () => {
  it("lists the integrations an organization can use and those on a site", async () => {
    const tag = uniqueName("usable");
    const own = await publish(`${tag}-own`);
    const foreign = await publish(`${tag}-foreign`, {}, other);
    const shared = await publish(`${tag}-shared`, { visibility: "public" as never }, other);
    const names = async (organization: TestOrganization) =>
      (await organization.owner.api.orgs.listOrganizationIntegrations(organization.organizationId, { search: tag })).data.items.map((item) => item.name);
    expect(await names(org)).toEqual([own.name, shared.name].sort());
    expect(await names(other)).toEqual([foreign.name, shared.name].sort());
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}/integrations`, { token: other.owner.token })).status).toBe(404);

    const site = await createSite();
    await org.owner.api.integrations.installIntegrationOnSite(shared.name, (await install(shared.name)).id, { siteId: site.id });
    await install(own.name);
    const onSite = (await org.owner.api.orgs.listSiteIntegrations(org.organizationId, site.id, { search: tag })).data;
    expect(onSite.items.map((item) => item.name)).toEqual([shared.name]);
    expect(onSite.items[0]).toMatchObject({ object: "integration", owner: { id: other.organizationId }, permissions: { admin: false } });
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}/sites/${site.id}/integrations`, { token: other.owner.token })).status).toBe(404);
  });

  it("lists its installations and their statuses, on the organization, its spaces or its sites", async () => {
    const team = await createOrganization(stack);
    const tag = uniqueName("status");
    const ready = await publish(`${tag}-a`, {}, team);
    const waiting = await publish(
      `${tag}-b`,
      { configurations: { account: { properties: { token: { type: "string", title: "Token" } }, required: ["token"] } } as never },
      team,
    );
    const readyInstallation = await install(ready.name, team);
    await install(waiting.name, team);
    const space = await createSpace(stack, team);
    const site = await createSite(team);
    await team.owner.api.integrations.installIntegrationOnSpace(ready.name, readyInstallation.id, { space: space.id });
    await team.owner.api.integrations.installIntegrationOnSite(ready.name, readyInstallation.id, { siteId: site.id });
    const api = team.owner.api.orgs;

    const installations = (await api.listOrganizationInstallations(team.organizationId)).data;
    expect(installations.items.map((item) => [item.integration.name, item.installation.id, item.installation.status])).toEqual([
      [ready.name, readyInstallation.id, "active"],
      [waiting.name, expect.any(String), "pending"],
    ]);
    expect((await api.listOrganizationInstallations(team.organizationId, { search: `${tag}-b` })).data.items.map((item) => item.integration.name)).toEqual([
      waiting.name,
    ]);
    const paged = (await api.listOrganizationInstallations(team.organizationId, { limit: 1 })).data;
    expect(paged.items.map((item) => item.integration.name)).toEqual([ready.name]);
    expect(
      (await api.listOrganizationInstallations(team.organizationId, { limit: 1, page: paged.next!.page })).data.items.map((item) => item.integration.name),
    ).toEqual([waiting.name]);

    const statuses = async (query: Parameters<typeof api.listOrganizationIntegrationsStatus>[1] = {}) =>
      (await api.listOrganizationIntegrationsStatus(team.organizationId, query)).data.items.map((item) => [item.integration.name, item.status, item.target]);
    expect(await statuses()).toEqual([
      [ready.name, "active", { type: "organization", organizationId: team.organizationId }],
      [waiting.name, "pending", { type: "organization", organizationId: team.organizationId }],
    ]);
    expect(await statuses({ target: "space" as never })).toEqual([[ready.name, "active", { type: "space", spaceId: space.id }]]);
    expect(await statuses({ target: "site" as never, site: site.id })).toEqual([[ready.name, "active", { type: "site", siteId: site.id }]]);

    expect((await api.getOrganizationIntegrationStatus(team.organizationId, ready.name)).data).toEqual({ status: "active" });
    expect((await api.getOrganizationIntegrationStatus(team.organizationId, waiting.name)).data).toEqual({ status: "pending" });
    const notInstalled = await publish(`${tag}-c`, {}, team);
    expect(
      (await call(stack, "GET", `/v1/orgs/${team.organizationId}/integrations/${notInstalled.name}/installation_status`, { token: team.owner.token })).status,
    ).toBe(404);

    // Another organization: 404; a guest is no member: 404; bad input: 400 naming the parameter.
    for (const path of ["installations", "integrations/installations-status", `integrations/${ready.name}/installation_status`]) {
      expect([path, (await call(stack, "GET", `/v1/orgs/${team.organizationId}/${path}`, { token: org.owner.token })).status]).toEqual([path, 404]);
    }
    const guest = await createMember(stack, team, { role: "guest" });
    expect((await call(stack, "GET", `/v1/orgs/${team.organizationId}/installations`, { token: guest.token })).status).toBe(404);
    const status = (query: string) =>
      call(stack, "GET", `/v1/orgs/${team.organizationId}/integrations/installations-status?${query}`, { token: team.owner.token });
    for (const [query, field] of [
      ["target=everything", "target"],
      [`site=${site.id}`, "site"],
      [`target=space&site=${site.id}`, "site"],
      [`target=site&space=${space.id}`, "space"],
    ]) {
      const refused = await status(query!);
      expect([query, refused.status, refused.body.error.message]).toEqual([query, 400, expect.stringMatching(new RegExp(`^${field}: `))]);
    }
    // Another organization's site or space is nothing.
    const foreignSite = await createSite(org);
    expect((await status(`target=site&site=${foreignSite.id}`)).status).toBe(404);
  });
});
