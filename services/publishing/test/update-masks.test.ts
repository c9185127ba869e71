import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpdateShareLinkRequest } from "@imprint/proto/publishing/v1/share_links";
import { UpdateSiteExternalLinkRequest } from "@imprint/proto/publishing/v1/site_external_links";
import { UpdateSitePublishingAuthRequest } from "@imprint/proto/publishing/v1/site_publishing_auth";
import { UpdateSiteSectionGroupRequest } from "@imprint/proto/publishing/v1/site_section_groups";
import { UpdateSiteSectionRequest } from "@imprint/proto/publishing/v1/site_sections";
import { UpdateSiteSpaceRequest } from "@imprint/proto/publishing/v1/site_spaces";
import { UpdateSiteRequest } from "@imprint/proto/publishing/v1/sites";
import { createOrganization, createSpace, failure, type TestOrganization } from "@imprint/runtime/testing";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

// Every update RPC changes exactly the fields its update_mask names (CODE_STYLE.md § Partial
// updates): an unknown path is refused naming update_mask, a named empty field clears, a field the
// mask leaves out keeps its value whatever the request carries for it.

let harness: PublishingHarness;
let org: TestOrganization;

beforeAll(async () => {
  harness = await startPublishingHarness();
  org = await createOrganization(harness);
});
afterAll(() => harness?.stop());

const scope = (siteId: string) => ({ caller: org.owner.caller, organizationId: org.organizationId, siteId });

async function newSite(title: string): Promise<string> {
  const { site } = await harness.sites.createSite({ ...scope(""), type: "", title, visibility: "", spaceIds: [] });
  return site!.id;
}

/** A site with one section (whose first site-space publishes a new space). */
async function siteWithSection(title: string) {
  const siteId = await newSite(title);
  const space = await createSpace(harness, org);
  const { section } = await harness.sections.addSiteSection({ ...scope(siteId), spaceId: space.id, title: "Guides", icon: "", draft: false });
  return { siteId, sectionId: section!.id };
}

const refusedMask = (call: Promise<unknown>, path: string) =>
  failure(call).then((error) =>
    expect(error).toMatchObject({ code: "invalid_argument", message: expect.stringContaining(`update_mask: unknown field "${path}"`) }),
  );

describe("update masks", () => {
  it("UpdateSite", async () => {
    const siteId = await newSite("Masked site");
    const update = (fields: Partial<UpdateSiteRequest>) => harness.sites.updateSite(UpdateSiteRequest.fromPartial({ ...scope(siteId), ...fields }));
    await refusedMask(update({ updateMask: ["published"] }), "published");
    await update({ updateMask: ["proxy", "basename"], proxy: "example.com/docs", basename: "masked" });
    const { site } = await update({ updateMask: ["proxy"], proxy: "", title: "Not named", basename: "" });
    expect(site).toMatchObject({ proxy: "", title: "Masked site", basename: "masked" });
    // A mask naming nothing changes nothing (a REST body may name no field).
    expect((await update({ title: "Not named" })).site).toMatchObject({ title: "Masked site", basename: "masked" });
  });

  it("UpdateSiteSection", async () => {
    const { siteId, sectionId } = await siteWithSection("Masked sections");
    const update = (fields: Partial<UpdateSiteSectionRequest>) =>
      harness.sections.updateSiteSection(UpdateSiteSectionRequest.fromPartial({ ...scope(siteId), sectionId, ...fields }));
    await refusedMask(update({ updateMask: ["site_id"] }), "site_id");
    await update({ updateMask: ["description", "icon"], description: "How-to guides", icon: "book" });
    const { section } = await update({ updateMask: ["icon"], icon: "", description: "", title: "" });
    expect(section).toMatchObject({ icon: "", description: "How-to guides", title: "Guides" });
  });

  it("UpdateSiteSectionGroup", async () => {
    const { siteId, sectionId } = await siteWithSection("Masked groups");
    const { group: added } = await harness.sectionGroups.addSiteSectionGroup({
      ...scope(siteId),
      title: "Group",
      icon: "folder",
      sectionIds: [sectionId],
      parentGroupId: "",
      draft: false,
    });
    const update = (fields: Partial<UpdateSiteSectionGroupRequest>) =>
      harness.sectionGroups.updateSiteSectionGroup(UpdateSiteSectionGroupRequest.fromPartial({ ...scope(siteId), sectionGroupId: added!.id, ...fields }));
    await refusedMask(update({ updateMask: ["sections"] }), "sections");
    const { group } = await update({ updateMask: ["icon"], icon: "", title: "" });
    expect(group).toMatchObject({ icon: "", title: "Group" });
  });

  it("UpdateSiteSpace", async () => {
    const siteId = await newSite("Masked site-spaces");
    const space = await createSpace(harness, org);
    const { siteSpace: added } = await harness.siteSpaces.addSiteSpace({ ...scope(siteId), spaceId: space.id, sectionId: "", draft: false });
    const update = (fields: Partial<UpdateSiteSpaceRequest>) =>
      harness.siteSpaces.updateSiteSpace(UpdateSiteSpaceRequest.fromPartial({ ...scope(siteId), siteSpaceId: added!.id, ...fields }));
    await refusedMask(update({ updateMask: ["default"] }), "default");
    await update({ updateMask: ["condition", "path"], condition: 'visitor.claims.plan === "pro"', path: "pro" });
    const { siteSpace } = await update({ updateMask: ["condition"], condition: "", path: "" });
    expect(siteSpace).toMatchObject({ condition: "", path: "pro" });
  });

  it("UpdateSitePublishingAuth", async () => {
    const siteId = await newSite("Masked auth");
    const update = (fields: Partial<UpdateSitePublishingAuthRequest>) =>
      harness.publishingAuth.updateSitePublishingAuth(UpdateSitePublishingAuthRequest.fromPartial({ ...scope(siteId), backend: "custom", ...fields }));
    await refusedMask(update({ updateMask: ["backend"] }), "backend");
    await update({ updateMask: ["fallback_url", "logout_url"], fallbackUrl: "https://sso.example.com/login", logoutUrl: "https://sso.example.com/logout" });
    const { auth } = await update({ updateMask: ["logoutUrl"], logoutUrl: "", fallbackUrl: "" });
    expect(auth).toMatchObject({ fallbackUrl: "https://sso.example.com/login", logoutUrl: "" });
  });

  it("UpdateShareLink", async () => {
    const siteId = await newSite("Masked share links");
    const { shareLink: created } = await harness.shareLinks.createShareLink({ ...scope(siteId), name: "Partners" });
    const update = (fields: Partial<UpdateShareLinkRequest>) =>
      harness.shareLinks.updateShareLink(UpdateShareLinkRequest.fromPartial({ ...scope(siteId), shareLinkId: created!.id, ...fields }));
    await refusedMask(update({ updateMask: ["key"] }), "key");
    // The REST update refuses a body naming neither field; so does the RPC.
    expect(await failure(update({ name: "Unnamed" }))).toMatchObject({ code: "invalid_argument", message: "update_mask: must name at least one field" });
    expect((await update({ updateMask: ["active"], active: false, name: "" })).shareLink).toMatchObject({ active: false, name: "Partners" });
    expect((await update({ updateMask: ["name"], name: "" })).shareLink).toMatchObject({ active: false, name: "" });
  });

  it("UpdateSiteExternalLink", async () => {
    const { siteId, sectionId } = await siteWithSection("Masked links");
    const { group } = await harness.sectionGroups.addSiteSectionGroup({
      ...scope(siteId),
      title: "Group",
      icon: "",
      sectionIds: [sectionId],
      parentGroupId: "",
      draft: false,
    });
    const { link: added } = await harness.externalLinks.addSiteExternalLink({
      ...scope(siteId),
      title: "Status",
      url: "https://status.example.com",
      description: "Service status",
      icon: "signal",
      condition: "",
      sectionGroupId: group!.id,
      draft: false,
    });
    const update = (fields: Partial<UpdateSiteExternalLinkRequest>) =>
      harness.externalLinks.updateSiteExternalLink(UpdateSiteExternalLinkRequest.fromPartial({ ...scope(siteId), linkId: added!.id, ...fields }));
    await refusedMask(update({ updateMask: ["parent"] }), "parent");
    const { link } = await update({ updateMask: ["description", "section_group_id"], description: "", sectionGroupId: "", icon: "", url: "" });
    expect(link).toMatchObject({ description: "", sectionGroupId: "", icon: "signal", url: "https://status.example.com", title: "Status" });
  });
});
