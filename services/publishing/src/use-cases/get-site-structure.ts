import type { EntityManager } from "@mikro-orm/postgresql";
import { SiteSection } from "../domain/site-section.js";
import { SiteSpace } from "../domain/site-space.js";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization, type CallerInput } from "./shared/access.js";
import { requireActiveShareKey } from "./shared/share-links.js";
import { siteSpaceViews, type SiteSpaceView } from "./shared/site-spaces.js";
import { findSite } from "./shared/sites.js";
import { sectionGroupViews, type SectionGroupView } from "./shared/section-groups.js";
import { sectionViews, type SectionView } from "./shared/sections.js";
import { topLevelItems } from "./shared/top-level.js";

export interface GetSiteStructureInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** An active share link's key to build published URLs through ("" for none). */
  shareKey: string;
}

/** A site's structure: its sections (each with its site-spaces) when it has some, else its site-spaces. */
export type StructureItemView = { kind: "section"; section: SectionView } | { kind: "group"; group: SectionGroupView };
export type SiteStructureView = { type: "sections"; items: StructureItemView[] } | { type: "siteSpaces"; siteSpaces: SiteSpaceView[] };

/** A site's whole structure in order, for any member of its organization (visible site-spaces only). */
export async function getSiteStructure(em: EntityManager, input: GetSiteStructureInput, deps: UseCaseDeps): Promise<SiteStructureView> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "view");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  if ((await em.count(SiteSection, { siteId: site.id })) > 0) {
    const top = await topLevelItems(em, site.id);
    const sections = await sectionViews(em, deps, access, site, top.flatMap((item) => (item.kind === "section" ? [item.entity] : [])), shareKey);
    const groups = await sectionGroupViews(em, deps, access, site, top.flatMap((item) => (item.kind === "group" ? [item.entity] : [])), shareKey);
    const items = top.map((item): StructureItemView =>
      item.kind === "section"
        ? { kind: "section", section: sections.find((view) => view.section.id === item.entity.id)! }
        : { kind: "group", group: groups.find((view) => view.group.id === item.entity.id)! },
    );
    return { type: "sections", items };
  }
  const siteSpaces = await em.find(SiteSpace, { siteId: site.id, spaceDeleted: false }, { orderBy: { position: "asc", id: "asc" } });
  const views = await siteSpaceViews(em, deps, access, site, siteSpaces);
  return { type: "siteSpaces", siteSpaces: views.map((view) => ({ ...view, shareKey })) };
}
