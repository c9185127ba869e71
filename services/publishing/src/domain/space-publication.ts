import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * Where a space is published, as publishing last announced it (`space_publication.updated`):
 * content keeps a projection of it for the space's `urls.published`. Only a change of address is
 * announced, with a version that grows per space, so content keeps the newest.
 */
export const SpacePublicationSchema = defineEntity({
  name: "SpacePublication",
  tableName: "space_publications",
  properties: {
    spaceId: p.uuid().primary(),
    organizationId: p.uuid(),
    /** The address as JSON (see PublishedAddress); null while no published site shows the space. */
    address: p.text().nullable(),
    version: p.integer(),
    updatedAt: p.datetime(),
  },
});
export class SpacePublication extends SpacePublicationSchema.class {}
SpacePublicationSchema.setClass(SpacePublication);

/** A space's published address: the site-space that shows it on the earliest published site. */
export interface PublishedAddress {
  siteId: string;
  organizationId: string;
  basename: string;
  hostname: string;
  proxy: string;
  /** Its section's path; "" at the root of a site without sections. */
  sectionPath: string;
  /** The site-space's path. */
  path: string;
}
