import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import {
  createOrganization,
  createSpace,
  failure,
  publishingClients,
  startServices,
  type PublishingClients,
  type TestOrganization,
  type TestServices,
} from "@imprint/runtime/testing";
import { UpdateSiteSectionRequest } from "@imprint/proto/publishing/v1/site_sections";
import { UpdateSiteSpaceRequest } from "@imprint/proto/publishing/v1/site_spaces";
import { loadPublishingConfig } from "../src/config.js";
import { startPublishingService } from "../src/service.js";

/**
 * A write is answered with its result or not applied: with content unreachable, the writes whose
 * answer shows content's spaces fail before they commit, so a client's retry cannot apply them twice.
 */

let services: TestServices;
let publishing: PublishingClients;
let closePublishing: (() => void) | undefined;
let org: TestOrganization;
let siteId: string;
let sectionId: string;
let siteSpaceIds: string[];

const scope = () => ({ caller: org.owner.caller, organizationId: org.organizationId, siteId });

/** Publishing's rows of the site's structure, read past its API: what a failed write must leave as it was. */
async function saved(): Promise<unknown> {
  const connection = services.service("publishing").orm.em.fork().getConnection();
  return {
    sections: await connection.execute(`select id, title, position, section_group_id from site_sections where site_id = ? order by id`, [siteId]),
    groups: await connection.execute(`select id, title from site_section_groups where site_id = ? order by id`, [siteId]),
    siteSpaces: await connection.execute(`select id, position, section_id, draft from site_spaces where site_id = ? order by id`, [siteId]),
  };
}

beforeAll(async () => {
  services = await startServices([
    { name: "identity", config: loadIdentityConfig, start: startIdentityService },
    { name: "content", config: loadContentConfig, start: startContentService },
    { name: "publishing", config: loadPublishingConfig, start: startPublishingService, env: { MEMBERSHIP_CACHE_TTL_MS: String(10 * 60 * 1000) } },
  ]);
  ({ clients: publishing, close: closePublishing } = publishingClients(services.address("publishing")));
  org = await createOrganization(services.clients);
  const [first, second] = [await createSpace(services.clients, org), await createSpace(services.clients, org)];
  siteId = (
    await publishing.sites.createSite({ caller: org.owner.caller, organizationId: org.organizationId, type: "", title: "Docs", visibility: "", spaceIds: [] })
  ).site!.id;
  const { section } = await publishing.sections.addSiteSection({ ...scope(), spaceId: first.id, title: "Guides", icon: "", draft: false });
  sectionId = section!.id;
  const { siteSpace } = await publishing.siteSpaces.addSiteSpace({ ...scope(), spaceId: second.id, sectionId, draft: false });
  siteSpaceIds = [section!.siteSpaces[0]!.id, siteSpace!.id];
  await services.stopTarget("content");
}, 120_000);
afterAll(async () => {
  closePublishing?.();
  await services?.stop();
});

describe("with content unreachable", () => {
  const writes: [string, () => Promise<unknown>][] = [
    [
      "updateSiteSection",
      () => publishing.sections.updateSiteSection(UpdateSiteSectionRequest.fromPartial({ ...scope(), sectionId, updateMask: ["title"], title: "Renamed" })),
    ],
    [
      "moveSiteSpace",
      () => publishing.siteSpaces.moveSiteSpace({ ...scope(), siteSpaceId: siteSpaceIds[1]!, beforeSiteSpaceId: siteSpaceIds[0]!, afterSiteSpaceId: "" }),
    ],
    [
      "updateSiteSpace",
      () =>
        publishing.siteSpaces.updateSiteSpace(
          UpdateSiteSpaceRequest.fromPartial({ ...scope(), siteSpaceId: siteSpaceIds[1]!, updateMask: ["draft"], draft: true }),
        ),
    ],
    [
      "addSiteSectionGroup",
      () => publishing.sectionGroups.addSiteSectionGroup({ ...scope(), title: "Group", icon: "", sectionIds: [sectionId], parentGroupId: "", draft: false }),
    ],
  ];

  it.each(writes)("%s answers unavailable and saves nothing", async (_name, write) => {
    const before = await saved();
    expect(await failure(write())).toMatchObject({ code: "unavailable" });
    expect(await saved()).toEqual(before);
  });
});
