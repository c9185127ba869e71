import type { EntityManager } from "@mikro-orm/postgresql";
import type { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import type { UseCaseDeps } from "../../deps.js";
import type { OrganizationAccess } from "./access.js";
import { sectionGroupViews, type SectionGroupView } from "./section-groups.js";
import { sectionViews, type SectionView } from "./sections.js";
import { siteSpaceViews, type SiteSpaceView } from "./site-spaces.js";
import { topLevelItems } from "./top-level.js";

/** A site's structure: its sections (each with its site-spaces) when it has some, else its site-spaces. */
export type StructureItemView = { kind: "section"; section: SectionView } | { kind: "group"; group: SectionGroupView };
export type SiteStructureView = { type: "sections"; items: StructureItemView[] } | { type: "siteSpaces"; siteSpaces: SiteSpaceView[] };

/** The site's whole structure in order as the caller sees it (visible site-spaces only), URLs through `shareKey`. */
export async function siteStructure(em: EntityManager, deps: Pick<UseCaseDeps, "spaces">, access: OrganizationAccess, site: Site, shareKey: string): Promise<SiteStructureView> {
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

/** Every site-space the structure shows, in order. */
export function structureSiteSpaces(structure: SiteStructureView): SiteSpaceView[] {
  if (structure.type === "siteSpaces") return structure.siteSpaces;
  return structure.items.flatMap((item) => (item.kind === "section" ? item.section.siteSpaces : item.group.sections.flatMap((section) => section.siteSpaces)));
}
