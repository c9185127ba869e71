import { LinkRelation, LinkStatus, LinkTargetKind, type BacklinkListing, type LinkListing, type LinkTarget } from "@imprint/proto/content/v1/links";
import { AppError } from "@imprint/runtime";
import { spaceToProto } from "../../spaces/index.js";
import { type FileUrlSigner, fileToProto, pageToProto } from "../../revisions/index.js";
import type { ExtractedLink, LinkRelationName } from "../domain/extract.js";
import type { LinkStatusName } from "../domain/link-status.js";
import type { BacklinkList } from "../use-cases/list-backlinks.js";
import type { LinkList } from "../use-cases/list-links.js";
import type { DescribedPage } from "../use-cases/shared/open-links.js";

const STATUS_TO_PROTO: Record<LinkStatusName, LinkStatus> = {
  ok: LinkStatus.LINK_STATUS_OK,
  broken: LinkStatus.LINK_STATUS_BROKEN,
  "in-app": LinkStatus.LINK_STATUS_IN_APP,
};

const RELATION_TO_PROTO: Record<LinkRelationName, LinkRelation> = {
  reference: LinkRelation.LINK_RELATION_REFERENCE,
  dependsOn: LinkRelation.LINK_RELATION_DEPENDS_ON,
};

/** A status filter from the wire: undefined for "every status". */
export function statusFilterFromProto(status: LinkStatus): LinkStatusName | undefined {
  if (status === LinkStatus.LINK_STATUS_UNSPECIFIED) return undefined;
  const entry = Object.entries(STATUS_TO_PROTO).find(([, value]) => value === status);
  if (!entry) throw AppError.invalidArgument("status: must be ok, broken or in-app");
  return entry[0] as LinkStatusName;
}

function targetToProto(link: ExtractedLink): LinkTarget {
  switch (link.kind) {
    case "page":
      return { kind: LinkTargetKind.LINK_TARGET_KIND_PAGE, id: link.target, anchor: link.anchor ?? "", url: "" };
    case "file":
      return { kind: LinkTargetKind.LINK_TARGET_KIND_FILE, id: link.target, anchor: "", url: "" };
    case "url":
      return { kind: LinkTargetKind.LINK_TARGET_KIND_URL, id: "", anchor: "", url: link.target };
  }
}

/** Pages of a links answer: no sub-pages, markdown body, git metadata (REST's default). */
function pagesToProto(pages: readonly DescribedPage[], markdown: ReadonlyMap<string, string>) {
  return pages.map(({ page, path }) => pageToProto(page, path, { metadata: true, markdown }));
}

export function linkListingToProto(list: LinkList, signer: FileUrlSigner, now: Date): LinkListing {
  return {
    items: list.items.map(({ usage, status, locations }) => ({
      status: STATUS_TO_PROTO[status],
      relation: RELATION_TO_PROTO[usage.link.relation],
      target: targetToProto(usage.link),
      locationPageIds: locations,
      locationCount: usage.locations.length,
    })),
    stats: { total: list.stats.total, broken: list.stats.broken, brokenInChangeRequest: list.stats.brokenInChangeRequest },
    page: { nextPageToken: list.nextPageToken, totalCount: list.totalCount },
    pages: pagesToProto(list.pages, list.markdown),
    files: list.files.map((file) => fileToProto(file, signer, now, true)),
    space: spaceToProto({ space: list.access.space, permissions: list.access.permissions }),
    revisionId: list.revision.id,
  };
}

export function backlinkListingToProto(list: BacklinkList): BacklinkListing {
  return {
    pages: pagesToProto(list.pages, list.markdown),
    page: { nextPageToken: list.nextPageToken, totalCount: list.totalCount },
    space: spaceToProto({ space: list.access.space, permissions: list.access.permissions }),
    revisionId: list.revision.id,
  };
}
