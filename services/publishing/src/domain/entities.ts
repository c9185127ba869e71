import { OrganizationVisitorKey } from "./organization-visitor-key.js";
import { ShareLink } from "./share-link.js";
import { Site } from "./site.js";
import { SiteExternalLink } from "./site-external-link.js";
import { SiteSection } from "./site-section.js";
import { SiteSectionGroup } from "./site-section-group.js";
import { SiteSpace } from "./site-space.js";
import { SiteRedirect } from "./site-redirect.js";
import { SiteInsightCount, SiteInsightReceipt } from "./site-insights.js";
import { SpaceLifecycle } from "./space-lifecycle.js";
import { SpacePublication } from "./space-publication.js";
import { SiteTeamGrant, SiteUserGrant } from "./site-permission.js";
import { teamMembershipCopyEntities } from "@imprint/runtime";

/** Every entity of the publishing database, for the ORM (the runtime adds its own tables). */
export const publishingEntities = [
  Site,
  SiteSectionGroup,
  SiteSection,
  SiteSpace,
  SiteExternalLink,
  ShareLink,
  SiteRedirect,
  SiteInsightCount,
  SiteInsightReceipt,
  OrganizationVisitorKey,
  SpacePublication,
  SpaceLifecycle,
  SiteUserGrant,
  SiteTeamGrant,
  ...teamMembershipCopyEntities,
];
