import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId, resolvePageSize } from "@imprint/runtime";
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
  /** Only these spaces take part (those of them the caller can read); undefined for every space. */
  restrictTo?: readonly string[];
}

/** A restricted search names at most this many spaces (a site's). */
export const MAX_RESTRICTED_SPACES = 1000;

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
 * part. Non-members get 404, as for a missing organization. `restrictTo` narrows the spaces
 * further (publishing's site search names a site's spaces); its ids are part of the page token's
 * scope, so a token of another restriction is refused.
 */
export async function searchOrganizationContent(
  em: EntityManager,
  input: SearchOrganizationContentInput,
  deps: AccessDeps,
): Promise<SearchOrganizationContentResult> {
  const query = parseSearchQuery(input.query);
  const limit = resolvePageSize(input.page?.pageSize);
  const restrictTo = input.restrictTo && [...new Set(input.restrictTo)].filter(isId).sort();
  if (restrictTo && restrictTo.length > MAX_RESTRICTED_SPACES) {
    throw AppError.invalidArgument(`restrict_to: at most ${MAX_RESTRICTED_SPACES} spaces`);
  }
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const access = await OrganizationAccess.load(em, input.organizationId, membership);
  const readable =
    restrictTo?.length === 0
      ? []
      : await em.find(
          Space,
          {
            $and: [{ organizationId: input.organizationId, deletedAt: null, ...(restrictTo ? { id: { $in: restrictTo } } : {}) }, access.visibleFilter()],
          },
          { fields: ["id", "title"] },
        );
  const titles = new Map(readable.map((space) => [space.id, space.title]));
  const scope = restrictTo ? `organization:${input.organizationId}:${restrictTo.join(",")}` : `organization:${input.organizationId}`;
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
