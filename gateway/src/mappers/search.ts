import { SearchResultType, type SearchPage, type SearchSpace } from "@imprint/proto/content/v1/search";
import { AppError } from "@imprint/runtime/core";
import { pageAppUrl } from "./page.js";
import type { PublicUrls } from "./urls.js";

/** GitBook's `SearchPageResult` and `SearchSpaceResult` objects. */

function resultType(type: SearchResultType): "page" | "section" {
  switch (type) {
    case SearchResultType.SEARCH_RESULT_TYPE_PAGE:
      return "page";
    case SearchResultType.SEARCH_RESULT_TYPE_SECTION:
      return "section";
    default:
      // The contract says unspecified never appears in a response; if it does, it is a bug upstream.
      throw new AppError("internal", `upstream answered search result type ${String(type)}`);
  }
}

export function toRestSearchPage(page: SearchPage, context: { urls: PublicUrls; organizationId: string }): Record<string, unknown> {
  const app = pageAppUrl({ urls: context.urls, organizationId: context.organizationId, spaceId: page.spaceId }, page.path);
  return {
    id: page.id,
    title: page.title,
    description: page.description,
    path: page.path,
    score: page.score,
    rank: page.rank,
    resultType: resultType(page.resultType),
    sections: page.sections.map((section) => ({
      id: section.id,
      title: section.title,
      path: section.path,
      score: section.score,
      resultType: resultType(section.resultType),
      body: section.body,
      urls: { app: section.anchor ? `${app}#${encodeURIComponent(section.anchor)}` : app },
    })),
    ancestors: page.ancestorTitles.map((title) => ({ title })),
    urls: { app },
  };
}

export function toRestSearchSpace(space: SearchSpace, context: { urls: PublicUrls; organizationId: string }): Record<string, unknown> {
  return {
    type: "space",
    id: space.id,
    title: space.title,
    score: space.score,
    pages: space.pages.map((page) => toRestSearchPage(page, context)),
  };
}
