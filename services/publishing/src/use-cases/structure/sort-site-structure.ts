import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { siteExternalLinkMoved, siteSectionGroupMoved, siteSectionMoved } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { moveSiteSpace } from "../site-spaces/move-site-space.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findExternalLink } from "../shared/external-links.js";
import { findSectionGroup, sectionGroupViews, type SectionGroupView } from "../shared/section-groups.js";
import { findSiteSection, sectionViews, type SectionView } from "../shared/sections.js";
import { readSpacesOfSite, type SiteSpaceView } from "../shared/site-spaces.js";
import { findSite } from "../shared/sites.js";
import type { ExternalLinkView } from "../shared/structure.js";
import { checkGroupPlacement, parentOf, placeInLevel, type LevelItem } from "../shared/top-level.js";

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

export type SortedItem =
  | { type: "site-space"; siteSpace: SiteSpaceView }
  | { type: "site-section"; section: SectionView }
  | { type: "site-section-group"; group: SectionGroupView }
  | { type: "site-external-link"; link: ExternalLinkView };

function checkType(pointer: StructurePointer, field: string): void {
  if (!(STRUCTURE_ITEM_TYPES as readonly string[]).includes(pointer.type))
    throw AppError.invalidArgument(`${field}.type: must be one of ${STRUCTURE_ITEM_TYPES.join(", ")}`);
}

type LevelKind = Exclude<(typeof STRUCTURE_ITEM_TYPES)[number], "site-space">;

async function levelItem(em: EntityManager, site: Parameters<typeof findSiteSection>[1], pointer: StructurePointer): Promise<LevelItem> {
  const kind = pointer.type as LevelKind;
  if (kind === "site-section") return { kind: "section", entity: await findSiteSection(em, site, pointer.id) };
  if (kind === "site-section-group") return { kind: "group", entity: await findSectionGroup(em, site, pointer.id) };
  return { kind: "link", entity: await findExternalLink(em, site, pointer.id) };
}

/**
 * Moves an item of the site's structure (GitBook's sortSiteStructure; site admins only):
 * a site-space among its section's (or the root's) site-spaces; a section, group or external link
 * before or after any section, group or link of the structure, which may put it in another group
 * (a group never into itself or deeper than groups nest); to the end of its level without a
 * position. Records the item's `moved` event.
 */
export async function sortSiteStructure(em: EntityManager, input: SortSiteStructureInput, deps: UseCaseDeps): Promise<SortedItem> {
  if (!input.item) throw AppError.invalidArgument("item: is required");
  checkType(input.item, "item");
  if (input.before) checkType(input.before, "position.before");
  if (input.after) checkType(input.after, "position.after");
  if (input.before && input.after) throw AppError.invalidArgument("position: give either before or after, not both");
  const kind = input.item.type;
  const anchor = input.before ?? input.after;
  const anchorField = input.before ? "position.before" : "position.after";
  if (anchor && (anchor.type === "site-space") !== (kind === "site-space")) {
    throw AppError.invalidArgument(`${anchorField}: a ${kind} moves among ${kind === "site-space" ? "site-spaces" : "sections, groups and external links"}`);
  }
  if (anchor && anchor.id === input.item.id) throw AppError.invalidArgument(`${anchorField}: cannot be the item being moved`);
  if (kind === "site-space") {
    const fields = { before: "position.before.id", after: "position.after.id" };
    const siteSpace = await moveSiteSpace(
      em,
      {
        caller: input.caller,
        organizationId: input.organizationId,
        siteId: input.siteId,
        siteSpaceId: input.item.id,
        before: input.before?.id ?? "",
        after: input.after?.id ?? "",
        fields,
      },
      deps,
    );
    return { type: "site-space", siteSpace };
  }
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId);
  const { site, moved } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const item = await levelItem(tx, found, input.item!);
    const target = anchor
      ? await levelItem(tx, found, anchor).catch((error: unknown) => {
          if (error instanceof AppError && error.code === "not_found")
            throw AppError.invalidArgument(`${anchorField}: no ${anchor.type} ${anchor.id} in this site`);
          throw error;
        })
      : null;
    const level = target ? parentOf(target) : parentOf(item);
    if (item.kind === "group") await checkGroupPlacement(tx, found.id, item.entity.id, level, anchorField);
    const index = await placeInLevel(tx, found.id, item, level, {
      before: input.before?.id,
      after: input.after?.id,
      fields: { before: "position.before.id", after: "position.after.id" },
    });
    const actor = access.caller;
    const organizationId = found.organizationId;
    if (item.kind === "section") recordEvent(tx, siteSectionMoved, { organizationId, actor, payload: { siteId: found.id, sectionId: item.entity.id, index } });
    else if (item.kind === "group")
      recordEvent(tx, siteSectionGroupMoved, { organizationId, actor, payload: { siteId: found.id, sectionGroupId: item.entity.id, index } });
    else recordEvent(tx, siteExternalLinkMoved, { organizationId, actor, payload: { siteId: found.id, linkId: item.entity.id, index } });
    return { site: found, moved: item };
  });
  if (moved.kind === "section") return { type: "site-section", section: (await sectionViews(em, views, access, site, [moved.entity]))[0]! };
  if (moved.kind === "group") return { type: "site-section-group", group: (await sectionGroupViews(em, views, access, site, [moved.entity]))[0]! };
  return { type: "site-external-link", link: { link: moved.entity, site } };
}
