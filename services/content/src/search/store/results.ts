import { createHash } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, decodePageToken, encodePageToken, queryRows, sql } from "@imprint/runtime";
import { describedHits, matchingPages, RESULT_ORDER, searchQueryCtes, type MatchMode, type SearchQuery } from "./text-search.js";

/** A section of a page result. */
export interface SectionResult {
  /** The heading's anchor, or the page id for the opening section. */
  id: string;
  /** Empty for the opening section. */
  anchor: string;
  title: string;
  /** The page path, with `#anchor` for a heading section. */
  path: string;
  /** Excerpt around the match. */
  body: string;
  score: number;
}

/** A page result. */
export interface PageResult {
  spaceId: string;
  id: string;
  title: string;
  description: string;
  path: string;
  ancestorTitles: string[];
  score: number;
  /** One-based position in the whole ranked result set. */
  rank: number;
  /** Matched on its title or description rather than only on a section. */
  matchedOnPage: boolean;
  sections: SectionResult[];
}

/** Where a result list continues: the offset in the ranked set and the match mode it started with. */
export interface SearchCursor {
  offset: number;
  mode: MatchMode | undefined;
}

function fingerprint(scope: string, query: SearchQuery): string {
  return createHash("sha256").update(`${scope}\n${query.text}`).digest("base64url").slice(0, 22);
}

/**
 * Search results are ranked, not sorted by a key, so the page token holds the offset reached and
 * the match mode of the first page (a list that fell back to "most words" stays in that mode),
 * bound to the query and scope so it is never replayed against another search.
 */
export function readCursor(token: string | undefined, scope: string, query: SearchQuery): SearchCursor {
  if (!token) return { offset: 0, mode: undefined };
  const [offset, mode] = decodePageToken(token, fingerprint(scope, query), ["integer", "string"]);
  if (typeof offset !== "number" || offset < 0 || (mode !== "all" && mode !== "most")) {
    throw AppError.invalidArgument("page: not a valid page token for this list");
  }
  return { offset, mode };
}

export function nextCursor(scope: string, query: SearchQuery, offset: number, mode: MatchMode): string {
  return encodePageToken(fingerprint(scope, query), [offset, mode]);
}

/**
 * Runs `run` in "all" mode, then, when nothing holds every term of a query of several terms, in
 * "most" mode: one unmatched word never empties the results.
 */
export async function withFallback<T extends { total: number }>(
  query: SearchQuery,
  cursor: SearchCursor,
  run: (mode: MatchMode) => Promise<T>,
): Promise<T & { mode: MatchMode }> {
  if (cursor.mode) return { ...(await run(cursor.mode)), mode: cursor.mode };
  const all = await run("all");
  if (all.total > 0 || query.terms.length < 2) return { ...all, mode: "all" };
  return { ...(await run("most")), mode: "most" };
}

/** A row of {@link describedHits}. */
interface DescribedRow {
  space_id: string;
  page_id: string;
  score: number;
  rank: string | number;
  total: string | number;
  title: string;
  description: string;
  path: string;
  ancestor_titles: string[];
  on_page: boolean;
  sections: { anchor: string; title: string; score: number; excerpt: string | null }[];
}

/** Collapses the excerpt's line breaks (one per block in the indexed text) into spaces. */
function oneLine(text: string | null): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

function toPageResult(row: DescribedRow): PageResult {
  return {
    spaceId: row.space_id,
    id: row.page_id,
    title: row.title,
    description: row.description,
    path: row.path,
    ancestorTitles: row.ancestor_titles,
    score: Number(row.score),
    rank: Number(row.rank),
    matchedOnPage: row.on_page,
    sections: row.sections.map((section) => ({
      id: section.anchor || row.page_id,
      anchor: section.anchor,
      title: section.title,
      path: section.anchor ? `${row.path}#${section.anchor}` : row.path,
      body: oneLine(section.excerpt),
      score: Number(section.score),
    })),
  };
}

/** How many pages (or spaces) match, for a window past the last result, where no row carries it. */
async function countMatches(em: EntityManager, query: SearchQuery, spaceIds: readonly string[], mode: MatchMode, what: "pages" | "spaces"): Promise<number> {
  const counted = what === "pages" ? sql`count(*)` : sql`count(distinct space_id)`;
  const [row] = await queryRows<{ total: string }>(
    em,
    sql`with ${searchQueryCtes(query)}, matches as materialized (${matchingPages(spaceIds, mode)}) select ${counted} as total from matches`,
  );
  return Number(row?.total ?? 0);
}

/**
 * One page of the pages of `spaceIds` matching the query, best first, with their fields and best
 * sections, and how many match in all: one statement. The matches are materialized as (page,
 * score) rows, so ranking sorts narrow rows instead of carrying every page's vector through it.
 */
export async function rankedPages(
  em: EntityManager,
  query: SearchQuery,
  spaceIds: readonly string[],
  mode: MatchMode,
  window: { offset: number; limit: number },
): Promise<{ pages: PageResult[]; total: number }> {
  if (spaceIds.length === 0) return { pages: [], total: 0 };
  const rows = await queryRows<DescribedRow>(
    em,
    sql`with ${searchQueryCtes(query)},
        matches as materialized (${matchingPages(spaceIds, mode)}),
        page_window as (select space_id, page_id, matched, score, count(*) over () as total from matches
                        order by ${RESULT_ORDER} limit ${window.limit} offset ${window.offset}),
        hits as (select space_id, page_id, score, total, ${window.offset} + row_number() over (order by ${RESULT_ORDER}) as rank from page_window)
        ${describedHits(sql`h.rank`)}`,
  );
  const total = rows[0] ? Number(rows[0].total) : window.offset > 0 ? await countMatches(em, query, spaceIds, mode, "pages") : 0;
  return { pages: rows.map(toPageResult), total };
}

/** Pages shown per space in organization results. */
export const PAGES_PER_SPACE = 5;

/**
 * One page of the spaces holding matches, ordered by their best page's rank, each with its best
 * pages (ranks are positions among all matching pages of the spaces searched), and how many
 * spaces hold matches: one statement.
 */
export async function rankedSpaces(
  em: EntityManager,
  query: SearchQuery,
  spaceIds: readonly string[],
  mode: MatchMode,
  window: { offset: number; limit: number },
): Promise<{ spaces: { spaceId: string; pages: PageResult[] }[]; total: number }> {
  if (spaceIds.length === 0) return { spaces: [], total: 0 };
  const rows = await queryRows<DescribedRow>(
    em,
    sql`with ${searchQueryCtes(query)},
        matches as materialized (${matchingPages(spaceIds, mode)}),
        ranked as (select space_id, page_id, score, row_number() over (order by ${RESULT_ORDER}) as rank from matches),
        spaces as (select space_id, min(rank) as best from ranked group by space_id),
        shown as (select space_id, best, count(*) over () as total from spaces order by best limit ${window.limit} offset ${window.offset}),
        hits as (select space_id, page_id, score, rank, best, total
                 from (select r.space_id, r.page_id, r.score, r.rank, s.best, s.total,
                              row_number() over (partition by r.space_id order by r.rank) as n
                       from ranked r join shown s on s.space_id = r.space_id) top
                 where n <= ${PAGES_PER_SPACE})
        ${describedHits(sql`h.best, h.rank`)}`,
  );
  const spaces: { spaceId: string; pages: PageResult[] }[] = [];
  for (const row of rows) {
    const page = toPageResult(row);
    const last = spaces[spaces.length - 1];
    if (last?.spaceId === row.space_id) last.pages.push(page);
    else spaces.push({ spaceId: row.space_id, pages: [page] });
  }
  const total = rows[0] ? Number(rows[0].total) : window.offset > 0 ? await countMatches(em, query, spaceIds, mode, "spaces") : 0;
  return { spaces, total };
}
