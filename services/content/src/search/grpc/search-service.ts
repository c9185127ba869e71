import { SearchResultType, SearchServiceService, type SearchPage } from "@imprint/proto/content/v1/search";
import { forkEm, type AsyncImplementation } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { PageResult } from "../store/results.js";
import { prewarmPublishedSearch } from "../use-cases/prewarm-published-search.js";
import { searchOrganizationContent } from "../use-cases/search-organization-content.js";
import { searchPublishedContent } from "../use-cases/search-published-content.js";
import { searchSpaceContent } from "../use-cases/search-space-content.js";
import type { AccessDeps, SearchIndexDeps } from "../../deps.js";

export const SEARCH_SERVICE_NAME = "imprint.content.v1.SearchService";

function toSearchPage(page: PageResult): SearchPage {
  return {
    id: page.id,
    title: page.title,
    description: page.description,
    path: page.path,
    score: page.score,
    rank: page.rank,
    resultType: page.matchedOnPage ? SearchResultType.SEARCH_RESULT_TYPE_PAGE : SearchResultType.SEARCH_RESULT_TYPE_SECTION,
    sections: page.sections.map((section) => ({
      id: section.id,
      title: section.title,
      path: section.path,
      body: section.body,
      score: section.score,
      resultType: SearchResultType.SEARCH_RESULT_TYPE_SECTION,
      anchor: section.anchor,
    })),
    ancestorTitles: page.ancestorTitles,
    spaceId: page.spaceId,
  };
}

/** Thin transport: one use case on a fresh EntityManager, its result mapped to the response. */
export function searchServiceImplementation(orm: MikroORM, deps: AccessDeps, indexing: SearchIndexDeps): AsyncImplementation<typeof SearchServiceService> {
  return {
    searchSpaceContent: async (request) => {
      const result = await searchSpaceContent(
        forkEm(orm),
        { caller: request.caller, spaceId: request.spaceId, query: request.query, page: request.page },
        deps,
      );
      return {
        pages: result.pages.map(toSearchPage),
        pageInfo: { nextPageToken: result.nextPageToken, totalCount: result.totalCount },
        organizationId: result.organizationId,
      };
    },
    searchOrganizationContent: async (request) => {
      const result = await searchOrganizationContent(
        forkEm(orm),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          query: request.query,
          page: request.page,
          restrictTo: request.restrictTo?.spaceIds,
        },
        deps,
      );
      return {
        spaces: result.spaces.map((space) => ({ id: space.id, title: space.title, score: space.score, pages: space.pages.map(toSearchPage) })),
        pageInfo: { nextPageToken: result.nextPageToken, totalCount: result.totalCount },
      };
    },
    searchPublishedContent: async (request) => {
      const result = await searchPublishedContent(forkEm(orm), { spaceIds: request.spaceIds, query: request.query, limit: request.limit });
      return { pages: result.pages.map(toSearchPage), totalCount: result.totalCount };
    },
    prewarmPublishedSearch: async (request) => {
      const result = await prewarmPublishedSearch(forkEm(orm), { spaceIds: request.spaceIds }, indexing);
      return { updatedSpaces: result.updatedSpaces };
    },
  };
}
