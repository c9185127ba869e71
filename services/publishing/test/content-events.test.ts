import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import { createOrganization, createSpace, eventually, readEvents, type TestOrganization } from "@imprint/runtime/testing";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

let harness: PublishingHarness;
let org: TestOrganization;

beforeAll(async () => {
  harness = await startPublishingHarness();
  org = await createOrganization(harness);
});
afterAll(() => harness?.stop());

const scope = (siteId: string) => ({ caller: org.owner.caller, organizationId: org.organizationId, siteId });

async function siteWith(spaceIds: string[]) {
  const { site } = await harness.sites.createSite({
    caller: org.owner.caller,
    organizationId: org.organizationId,
    type: "",
    title: "Followed",
    visibility: "",
    spaceIds,
  });
  return site!;
}

const view = async (siteId: string) => {
  const [site, list] = await Promise.all([
    harness.sites.getSite(scope(siteId)).then((answer) => answer.site!),
    harness.siteSpaces.listSiteSpaces({ ...scope(siteId), page: undefined, shareKey: "" }).then((answer) => answer.siteSpaces),
  ]);
  return { count: site.siteSpaces, defaultId: site.defaultSiteSpaceId, spaces: list.map((item) => [item.space!.id, item.default]) };
};

describe("content's space events", () => {
  it("hides a deleted space from every site (the next one becomes the default) and shows it again on restore", async () => {
    const first = await createSpace(harness, org);
    const second = await createSpace(harness, org);
    const a = await siteWith([first.id, second.id]);
    const b = await siteWith([first.id]);
    const before = await view(a.id);
    await harness.spaces.deleteSpace({ caller: org.owner.caller, spaceId: first.id });
    await eventually(async () => (await view(b.id)).count === 0);
    expect(await view(a.id)).toMatchObject({ count: 1, spaces: [[second.id, true]] });
    expect(
      (
        await harness.sites.listSites({
          caller: org.owner.caller,
          organizationId: org.organizationId,
          page: undefined,
          spaceId: first.id,
          title: "",
          published: undefined,
          types: [],
        })
      ).sites,
    ).toEqual([]);
    await harness.spaces.restoreSpace({ caller: org.owner.caller, spaceId: first.id });
    await eventually(async () => (await view(b.id)).count === 1);
    expect(await view(a.id)).toEqual(before);
  });

  it("removes a purged space's site-spaces", async () => {
    const doomed = await createSpace(harness, org);
    const kept = await createSpace(harness, org);
    const site = await siteWith([doomed.id, kept.id]);
    await harness.spaces.deleteSpace({ caller: org.owner.caller, spaceId: doomed.id });
    harness.contentClock.advanceDays(8);
    expect((await harness.spaces.purgeDeletedSpaces({})).spaceIds).toContain(doomed.id);
    const removed = await eventually(async () => {
      const events = await readEvents("publishing", { organizationId: org.organizationId, payload: { siteId: site.id } });
      return events.find((event) => event.type === "site_space.deleted") ?? null;
    }, 10_000);
    expect(removed.payload).toMatchObject({ spaceId: doomed.id });
    const em = harness.publishing.orm.em.fork();
    expect(await em.getConnection().execute(`select count(*)::int as n from site_spaces where space_id = ?`, [doomed.id])).toEqual([{ n: 0 }]);
    expect(await view(site.id)).toMatchObject({ count: 1, spaces: [[kept.id, true]] });
  });

  it("takes a transferred space out of its former organization's sites", async () => {
    const space = await createSpace(harness, org);
    const site = await siteWith([space.id]);
    const target = await createOrganization(harness);
    await harness.identity.members.addMember({ organizationId: target.organizationId, email: org.owner.email, role: MemberRole.MEMBER_ROLE_ADMIN });
    await harness.spaces.transferSpace({ caller: org.owner.caller, spaceId: space.id, organizationId: target.organizationId, parent: undefined });
    await eventually(async () => (await view(site.id)).count === 0, 10_000);
    expect(await view(site.id)).toEqual({ count: 0, defaultId: "", spaces: [] });
  });

  it("keeps a default in each section: a deleted default gives way to the next visible one, a purged one is replaced", async () => {
    const first = await createSpace(harness, org);
    const second = await createSpace(harness, org);
    const site = await siteWith([]);
    const { section } = await harness.sections.addSiteSection({ ...scope(site.id), spaceId: first.id, title: "Only", icon: "", draft: false });
    await harness.siteSpaces.addSiteSpace({ ...scope(site.id), spaceId: second.id, sectionId: section!.id, draft: false });
    const defaults = async () => {
      const { sections } = await harness.sections.listSiteSections({ ...scope(site.id), page: undefined, shareKey: "" });
      return sections[0]!.siteSpaces.map((item) => [item.space!.id, item.default]);
    };
    expect(await defaults()).toEqual([
      [first.id, true],
      [second.id, false],
    ]);
    await harness.spaces.deleteSpace({ caller: org.owner.caller, spaceId: first.id });
    // The listing leaves the deleted space out at once; the default passes on when its event is consumed.
    await eventually(async () => expect(await defaults()).toEqual([[second.id, true]]));
    harness.contentClock.advanceDays(8);
    expect((await harness.spaces.purgeDeletedSpaces({})).spaceIds).toContain(first.id);
    await eventually(async () => {
      const events = await readEvents("publishing", { organizationId: org.organizationId, payload: { sectionId: section!.id } });
      return events.some((event) => event.type === "site_section.updated");
    }, 10_000);
    const { sections } = await harness.sections.listSiteSections({ ...scope(site.id), page: undefined, shareKey: "" });
    expect(sections[0]!.siteSpaces.map((item) => [item.space!.id, item.default])).toEqual([[second.id, true]]);
    expect((await harness.sites.getSite(scope(site.id))).site).toMatchObject({ siteSpaces: 1, defaultSiteSectionId: section!.id });
  });
});
