import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * Tables of the search index (written by hand in Migration20261121100300; these definitions keep
 * the ORM's view of the schema identical). The index is a projection of each space's current
 * revision, rebuilt from the revision store at will: nothing here is a source of truth.
 */

/** Which revision of a space the index holds (the base of the next incremental update). */
export const SearchIndexedSpaceSchema = defineEntity({
  name: "SearchIndexedSpace",
  tableName: "search_spaces",
  properties: {
    spaceId: p.uuid().primary(),
    revisionId: p.string().length(64),
    storeId: p.uuid(),
    /** Root of the indexed revision's content tree (null for empty content). */
    root: p.string().length(32).nullable(),
    indexedAt: p.datetime(),
  },
});
export class SearchIndexedSpace extends SearchIndexedSpaceSchema.class {}
SearchIndexedSpaceSchema.setClass(SearchIndexedSpace);

/**
 * One indexed page: what a result shows about it, and the text-search vector of all its sections
 * (title A, description and headings B, text C), which queries match and rank pages by.
 */
export const SearchPageSchema = defineEntity({
  name: "SearchPage",
  tableName: "search_pages",
  properties: {
    spaceId: p.uuid().primary(),
    pageId: p.string().length(64).primary(),
    /** The page version indexed: a page is re-indexed only when its version changes. */
    versionId: p.string().length(32),
    title: p.string().length(255),
    description: p.text().default(""),
    /** Slugs from the top level, joined with "/". */
    path: p.text(),
    /** Titles of the ancestors, top level first. */
    ancestorTitles: p.array().default([]),
    tsv: p.string().columnType("tsvector"),
  },
  indexes: [{ properties: ["tsv"], type: "gin", name: "search_pages_tsv_index" }],
});
export class SearchPage extends SearchPageSchema.class {}
SearchPageSchema.setClass(SearchPage);

/**
 * One section of an indexed page: the opening section (position 0: title, description and the
 * text before the first heading) or a heading and the text up to the next heading.
 */
export const SearchSectionSchema = defineEntity({
  name: "SearchSection",
  tableName: "search_sections",
  properties: {
    spaceId: p.uuid().primary(),
    pageId: p.string().length(64).primary(),
    position: p.integer().primary(),
    /** The heading's anchor; empty for the opening section. */
    anchor: p.text().default(""),
    title: p.text(),
    /** Plain text of the section (bounded), for excerpts. */
    body: p.text(),
    tsv: p.string().columnType("tsvector"),
  },
});
export class SearchSection extends SearchSectionSchema.class {}
SearchSectionSchema.setClass(SearchSection);

export const searchEntities = [SearchIndexedSpace, SearchPage, SearchSection];
