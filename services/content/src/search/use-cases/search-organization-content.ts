import type { EntityManager } from "@mikro-orm/postgresql";
import { resolvePageSize } from "@imprint/runtime";
import { OrganizationAccess, Space } from "../../spaces/index.js";
import { requireOrganizationMembership, type CallerInput } from "../../access/index.js";
import { nextCursor, rankedSpaces, readCursor, withFallback, type PageResult } from "../store/results.js";
import { parseSearchQuery } from "../store/text-search.js";
import type { AccessDeps } from "../../deps.js";

export interface SearchOrganizationContentInput {
  caller: CallerInput | undefined;
  organizationId: string;
  query: string;
  page: { pageToken?: string; pageSize?: number } | undefined;
}

export interface SpaceResult {
  id: string;
  title: string;
  /** The score of its best page. */
  score: number;
  pages: PageResult[];
}

export interface SearchOrganizationContentResult {
  spaces: SpaceResult[];
  nextPageToken: string;
  totalCount: number;
}

/**
 * The spaces of an organization holding pages that match a web-search query, ordered by their
 * best page, each with its best pages. Only the spaces the caller can read take part: the
 * caller's levels are resolved once for the organization (OrganizationAccess) and applied as a
 * filter on spaces, so the search itself runs over those spaces only. Deleted spaces never take
 * part. Non-members get 404, as for a missing organization.
 */
export async function searchOrganizationContent(
  em: EntityManager,
  input: SearchOrganizationContentInput,
  deps: AccessDeps,
): Promise<SearchOrganizationContentResult> {
  const query = parseSearchQuery(input.query);
  const limit = resolvePageSize(input.page?.pageSize);
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const access = await OrganizationAccess.load(em, input.organizationId, membership);
  const readable = await em.find(Space, { organizationId: input.organizationId, deletedAt: null, ...access.visibleFilter() }, { fields: ["id", "title"] });
  const titles = new Map(readable.map((space) => [space.id, space.title]));
  const scope = `organization:${input.organizationId}`;
  const cursor = readCursor(input.page?.pageToken, scope, query);
  const ranked = await withFallback(query, cursor, (mode) => rankedSpaces(em, query, [...titles.keys()], mode, { offset: cursor.offset, limit }));
  const spaces = ranked.spaces.map((space) => ({
    id: space.spaceId,
    title: titles.get(space.spaceId) ?? "",
    score: space.pages[0]!.score,
    pages: space.pages,
  }));
  const reached = cursor.offset + ranked.spaces.length;
  return {
    spaces,
    nextPageToken: reached < ranked.total && ranked.spaces.length > 0 ? nextCursor(scope, query, reached, ranked.mode) : "",
    totalCount: ranked.total,
  };
}
