import { defineEntity, p } from "@mikro-orm/postgresql";
import { PageVersion } from "../../revisions/index.js";
import type { ExtractedLink } from "./extract.js";

/**
 * The references one page version makes (written by hand in Migration20261121100200). Page
 * versions are immutable and shared by every revision that holds them, so a version's links are
 * extracted once and never change; an empty array records "extracted, no links". The key is the
 * page version's own (store, id), a foreign key that cascades: when the purge deletes a version,
 * its links go with it, and the purge needs no knowledge of this table.
 */
export const PageVersionLinksSchema = defineEntity({
  name: "PageVersionLinks",
  tableName: "page_version_links",
  properties: {
    pageVersion: () =>
      p
        .manyToOne(PageVersion)
        .primary()
        .joinColumns("store_id", "page_version_id")
        .referencedColumnNames("store_id", "id")
        .deleteRule("cascade")
        .updateRule("no action"),
    links: p.json<ExtractedLink[]>().default("[]"),
  },
});
export class PageVersionLinks extends PageVersionLinksSchema.class {}
PageVersionLinksSchema.setClass(PageVersionLinks);

export const linkEntities = [PageVersionLinks];
