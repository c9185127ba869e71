import { AppError } from "@imprint/runtime/core";
import { LinkRelation, LinkStatus, LinkTargetKind, type BacklinkListing, type LinkListing, type LinkTarget } from "@imprint/proto/content/v1/links";
import type { File, Page } from "@imprint/proto/content/v1/revisions";
import { toPagedList, type ListCursors, type PagedList } from "../pagination.js";
import { toRestFile } from "./file.js";
import type { RestOrganization } from "./organization.js";
import { toRestPage } from "./page.js";
import { toRestSpace, type RestSpace } from "./space.js";
import type { PublicUrls } from "./urls.js";

/**
 * GitBook's link lists (`ContentReferenceUsage` items with `stats`) and backlink lists
 * (`ContentLocation` items), as published in @gitbook/api 0.181.0.
 *
 * - A location is `{kind: "page", organization, space, page}`: the page without its sub-pages,
 *   with its markdown body (the schema requires a body on document pages). An item describes its
 *   first 100 locations by path; a page target's backlinks list every one.
 * - A target is the page (with `internalLocation` for an anchor), the file, or `{kind: "url"}`.
 *   A broken target does not exist in the revision, so there is nothing to describe: the item has
 *   no `targetReference` (optional in the schema) and its locations say where the link is.
 * - `versionContext` is left out: its `revision` would be the whole revision object (every page
 *   and file) repeated in every reference; the list is always about the revision the request
 *   named (the space's current one).
 */

type RestLocation = Record<string, unknown>;

const STATUS: Record<number, "ok" | "broken" | "in-app"> = {
  [LinkStatus.LINK_STATUS_OK]: "ok",
  [LinkStatus.LINK_STATUS_BROKEN]: "broken",
  [LinkStatus.LINK_STATUS_IN_APP]: "in-app",
};

const RELATION: Record<number, "reference" | "dependsOn"> = {
  [LinkRelation.LINK_RELATION_REFERENCE]: "reference",
  [LinkRelation.LINK_RELATION_DEPENDS_ON]: "dependsOn",
};

/** What every reference of one answer shares: the organization and space objects, mapped once. */
class References {
  private readonly space: RestSpace;
  private readonly pages: Map<string, Page>;
  private readonly files: Map<string, File>;
  private readonly restPages = new Map<string, Record<string, unknown>>();

  constructor(
    listing: { space?: LinkListing["space"]; pages: Page[]; files?: File[] },
    private readonly organization: RestOrganization,
    private readonly urls: PublicUrls,
  ) {
    this.space = toRestSpace(listing.space, urls);
    this.pages = new Map(listing.pages.map((page) => [page.id, page]));
    this.files = new Map((listing.files ?? []).map((file) => [file.id, file]));
  }

  page(pageId: string, anchor = ""): RestLocation {
    let page = this.restPages.get(pageId);
    if (!page) {
      const found = this.pages.get(pageId);
      if (!found) throw new AppError("internal", `upstream answered without page ${pageId}`);
      page = toRestPage(found, { urls: this.urls, organizationId: this.space.organization, spaceId: this.space.id });
      this.restPages.set(pageId, page);
    }
    return {
      kind: "page",
      organization: this.organization,
      space: this.space,
      page,
      ...(anchor ? { internalLocation: { type: "anchor", anchor } } : {}),
    };
  }

  target(target: LinkTarget | undefined, status: string): RestLocation | undefined {
    if (!target || status === "broken") return undefined;
    switch (target.kind) {
      case LinkTargetKind.LINK_TARGET_KIND_PAGE:
        return this.page(target.id, target.anchor);
      case LinkTargetKind.LINK_TARGET_KIND_FILE: {
        const file = this.files.get(target.id);
        if (!file) throw new AppError("internal", `upstream answered without file ${target.id}`);
        return { kind: "file", organization: this.organization, space: this.space, file: toRestFile(file) };
      }
      case LinkTargetKind.LINK_TARGET_KIND_URL:
        return { kind: "url", url: target.url };
      default:
        throw new AppError("internal", `upstream answered an unknown link target kind ${String(target.kind)}`);
    }
  }
}

/** `{items, count, next?, stats}`; `stats.broken.changeRequest` is 0 until change requests exist. */
export function toRestLinkList(listing: LinkListing, organization: RestOrganization, urls: PublicUrls, cursors: ListCursors): Record<string, unknown> {
  const references = new References(listing, organization, urls);
  const items = listing.items.map((item) => {
    const status = STATUS[item.status];
    const relation = RELATION[item.relation];
    if (!status || !relation) throw new AppError("internal", "upstream answered a link without status or relation");
    const targetReference = references.target(item.target, status);
    return {
      status,
      relation,
      ...(targetReference ? { targetReference } : {}),
      locationReferences: item.locationPageIds.map((pageId) => references.page(pageId)),
    };
  });
  return {
    ...toPagedList(items, listing.page, cursors),
    stats: { total: listing.stats?.total ?? 0, broken: { total: listing.stats?.broken ?? 0, changeRequest: listing.stats?.brokenInChangeRequest ?? 0 } },
  };
}

/** `{items, count, next?}` of page locations. */
export function toRestBacklinkList(listing: BacklinkListing, organization: RestOrganization, urls: PublicUrls, cursors: ListCursors): PagedList<RestLocation> {
  const references = new References(listing, organization, urls);
  const items = listing.pages.map((page) => references.page(page.id));
  return toPagedList(items, listing.page, cursors);
}
