import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { moveSiteSection } from "./move-site-section.js";
import { moveSiteSectionGroup } from "./move-site-section-group.js";
import type { SectionGroupView } from "./shared/section-groups.js";
import { moveSiteSpace } from "./move-site-space.js";
import type { SectionView } from "./shared/sections.js";
import type { CallerInput } from "./shared/access.js";
import type { SiteSpaceView } from "./shared/site-spaces.js";

export const STRUCTURE_ITEM_TYPES = ["site-space", "site-section", "site-section-group", "site-external-link"] as const;

export interface StructurePointer {
  type: string;
  id: string;
}

export interface SortSiteStructureInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  item: StructurePointer | undefined;
  before: StructurePointer | undefined;
  after: StructurePointer | undefined;
}

function checkType(pointer: StructurePointer, field: string): void {
  if (!(STRUCTURE_ITEM_TYPES as readonly string[]).includes(pointer.type)) throw AppError.invalidArgument(`${field}.type: must be one of ${STRUCTURE_ITEM_TYPES.join(", ")}`);
}

/**
 * Moves an item of the site's structure among its siblings, or to the end (GitBook's
 * sortSiteStructure; organization admins only): a section among the sections, a site-space among
 * its section's (or the root's), a group at the top level (sections and groups share it). External
 * links do not exist yet: such an item is not found; a position next to an item of another level is
 * refused. Records `site_section.moved`, `site_section_group.moved` or `site_space.moved`.
 */
export type SortedItem =
  | { type: "site-space"; siteSpace: SiteSpaceView }
  | { type: "site-section"; section: SectionView }
  | { type: "site-section-group"; group: SectionGroupView };

export async function sortSiteStructure(em: EntityManager, input: SortSiteStructureInput, deps: UseCaseDeps): Promise<SortedItem> {
  if (!input.item) throw AppError.invalidArgument("item: is required");
  checkType(input.item, "item");
  if (input.before) checkType(input.before, "position.before");
  if (input.after) checkType(input.after, "position.after");
  const kind = input.item.type;
  if (kind === "site-external-link") throw AppError.notFound(`Site structure item ${kind} ${input.item.id}`);
  // Sections and groups share the top level; site-spaces are among site-spaces.
  const sameLevel = (type: string) => (kind === "site-space" ? type === "site-space" : type === "site-section" || type === "site-section-group");
  for (const [pointer, field] of [
    [input.before, "position.before"],
    [input.after, "position.after"],
  ] as const) {
    if (pointer && !sameLevel(pointer.type)) throw AppError.invalidArgument(`${field}: no ${pointer.type} ${pointer.id} at the level of the ${kind} being moved`);
  }
  if (kind === "site-section-group") {
    const group = await moveSiteSectionGroup(
      em,
      {
        caller: input.caller,
        organizationId: input.organizationId,
        siteId: input.siteId,
        groupId: input.item.id,
        before: input.before?.id ?? "",
        after: input.after?.id ?? "",
        fields: { before: "position.before.id", after: "position.after.id" },
      },
      deps,
    );
    return { type: "site-section-group", group };
  }
  if (kind === "site-section") {
    const section = await moveSiteSection(
      em,
      {
        caller: input.caller,
        organizationId: input.organizationId,
        siteId: input.siteId,
        sectionId: input.item.id,
        before: input.before?.id ?? "",
        after: input.after?.id ?? "",
        fields: { before: "position.before.id", after: "position.after.id" },
      },
      deps,
    );
    return { type: "site-section", section };
  }
  const siteSpace = await moveSiteSpace(
    em,
    {
      caller: input.caller,
      organizationId: input.organizationId,
      siteId: input.siteId,
      siteSpaceId: input.item.id,
      before: input.before?.id ?? "",
      after: input.after?.id ?? "",
      fields: { before: "position.before.id", after: "position.after.id" },
    },
    deps,
  );
  return { type: "site-space", siteSpace };
}
