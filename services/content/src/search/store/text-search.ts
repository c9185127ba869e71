import { AppError, sql, type RawBuilder } from "@imprint/runtime";

/** PostgreSQL text-search configuration of the index and the queries (English stemming). */
export const SEARCH_CONFIG = "english";

/**
 * ts_rank weights for D, C, B, A: a word in the page title (A) counts far more than in a heading
 * or the description (B), which counts more than in the text (C).
 */
const RANK_WEIGHTS = "{0.02, 0.1, 0.4, 1.0}";
/** ts_rank normalization 1: divide by 1 + log(length), so long pages do not win by length alone. */
const RANK_NORMALIZATION = 1;

export const MAX_QUERY_LENGTH = 512;

/**
 * A web-search query (PostgreSQL's `websearch_to_tsquery` syntax: words, "phrases", -negation,
 * `or`) split into the terms the "most words" fallback counts separately.
 */
export interface SearchQuery {
  text: string;
  /** Words and "quoted phrases" the results should hold (websearch syntax each). */
  terms: string[];
  /** Words and phrases results must not hold. */
  excluded: string[];
  /** The query's last word, matched as a prefix too (empty when the query ends otherwise). */
  lastWord: string;
}

const TOKEN = /(-?)"([^"]*)"?|(\S+)/g;

/** Validates and splits a query; `invalid_argument` naming `query` when it is empty or too long. */
export function parseSearchQuery(raw: string): SearchQuery {
  const text = raw.trim();
  if (text.length === 0 || raw.length > MAX_QUERY_LENGTH) {
    throw AppError.invalidArgument(`query: must be 1 to ${MAX_QUERY_LENGTH} characters`);
  }
  const terms: string[] = [];
  const excluded: string[] = [];
  let lastWord = "";
  for (const match of text.matchAll(TOKEN)) {
    const [, negated, phrase, word] = match;
    lastWord = "";
    if (phrase !== undefined) {
      if (phrase.trim() === "") continue;
      (negated ? excluded : terms).push(`"${phrase}"`);
      continue;
    }
    if (word === undefined || word.toLowerCase() === "or") continue;
    if (word.startsWith("-") && word.length > 1) {
      excluded.push(word.slice(1));
      continue;
    }
    terms.push(word);
    lastWord = word;
  }
  return { text, terms, excluded, lastWord };
}

/**
 * The common table expressions every search statement starts with (after `with`):
 *
 * - `search_query(q, any_q, excluded_q, term_count)`: `q` is the query itself, its last word also
 *   matching as a prefix (`'configu':*` finds "configuration"); `any_q` holds any of its terms
 *   (null when it has none, e.g. only negations); `excluded_q` any excluded term.
 * - `search_terms(i, q)`: each term that has lexemes (stop words alone do not).
 *
 * `search_query` is materialized: inlined, PostgreSQL would rebuild the query for every row.
 */
export function searchQueryCtes(query: SearchQuery): RawBuilder<unknown> {
  const config = sql`${SEARCH_CONFIG}::regconfig`;
  const lastIsTerm = query.lastWord !== "";
  return sql`
    search_input as (
      select websearch_to_tsquery(${config}, ${query.text}) as full_q,
             case when ${lastIsTerm} then websearch_to_tsquery(${config}, ${query.lastWord}) end as last_q
    ),
    search_prefix as (
      select full_q, last_q,
             case when numnode(last_q) = 1 then (last_q::text || ':*')::tsquery end as last_prefix_q
      from search_input
    ),
    search_terms as (
      select t.i, case when ${lastIsTerm} and t.i = ${query.terms.length} and p.last_prefix_q is not null then p.last_prefix_q
                       else websearch_to_tsquery(${config}, t.term) end as q
      from unnest(${query.terms}::text[]) with ordinality as t(term, i), search_prefix p
    ),
    search_query as materialized (
      select case when p.last_prefix_q is not null and right(p.full_q::text, length(p.last_q::text)) = p.last_q::text
                  then (left(p.full_q::text, length(p.full_q::text) - length(p.last_q::text)) || p.last_prefix_q::text)::tsquery
                  else p.full_q end as q,
             (select string_agg('(' || t.q::text || ')', ' | ')::tsquery from search_terms t where numnode(t.q) > 0) as any_q,
             case when ${query.excluded.length > 0} then websearch_to_tsquery(${config}, ${query.excluded.join(" or ")}) end as excluded_q,
             (select count(*) from search_terms t where numnode(t.q) > 0)::int as term_count
      from search_prefix p
    )`;
}

/** How results are matched: pages holding the whole query, or (fallback) the most of its terms. */
export type MatchMode = "all" | "most";

/**
 * `select space_id, page_id, matched, score` of the indexed pages of `spaceIds` matching the query
 * (needs {@link searchQueryCtes}). In "most" mode a page matches when it holds any term and no
 * excluded one; `matched` counts its terms, and its score is scaled down by the share it holds.
 */
export function matchingPages(spaceIds: readonly string[], mode: MatchMode): RawBuilder<unknown> {
  const rank = (query: RawBuilder<unknown>) => sql`ts_rank(${RANK_WEIGHTS}::float4[], p.tsv, ${query}, ${RANK_NORMALIZATION})`;
  if (mode === "all") {
    return sql`select p.space_id, p.page_id, 1 as matched, ${rank(sql`sq.q`)} as score
               from search_pages p, search_query sq
               where p.space_id = any(${spaceIds}::uuid[]) and p.tsv @@ sq.q`;
  }
  return sql`select m.space_id, m.page_id, m.matched, m.score * m.matched / greatest(m.term_count, 1) as score
             from (select p.space_id, p.page_id, sq.term_count, ${rank(sql`sq.any_q`)} as score,
                          (select count(*) from search_terms t where numnode(t.q) > 0 and p.tsv @@ t.q)::int as matched
                   from search_pages p, search_query sq
                   where p.space_id = any(${spaceIds}::uuid[]) and p.tsv @@ sq.any_q
                     and not coalesce(p.tsv @@ sq.excluded_q, false)) m`;
}

/** Order of results: most terms held first (always 1 in "all" mode), then score, then a stable tiebreak. */
export const RESULT_ORDER = sql`matched desc, score desc, space_id, page_id`;

/** Sections shown per page result. */
export const SECTIONS_PER_PAGE = 3;

/** ts_headline options: a plain-text excerpt of about 15 to 35 words around the match. */
const HEADLINE_OPTIONS = 'StartSel="", StopSel="", MinWords=15, MaxWords=35, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "';

/**
 * The rows of a CTE `hits(space_id, page_id, …)` with their page's result fields, whether the
 * page matched on its title or description (`on_page`), and its best sections (at most
 * {@link SECTIONS_PER_PAGE}, as JSON, best first) with an excerpt around the match: sections
 * holding any term, ranked by weight; for a query without terms, the page's first sections.
 * Excerpts are built for the shown sections only. Needs {@link searchQueryCtes}.
 */
export function describedHits(order: RawBuilder<unknown>): RawBuilder<unknown> {
  const rank = sql`case when sq.any_q is null then 0 else ts_rank(${RANK_WEIGHTS}::float4[], s.tsv, sq.any_q, ${RANK_NORMALIZATION}) end`;
  return sql`
    select h.*, p.title, p.description, p.path, p.ancestor_titles,
           coalesce(to_tsvector(${SEARCH_CONFIG}::regconfig, p.title || ' ' || p.description) @@ coalesce(sq.any_q, sq.q), false) as on_page,
           shown.sections
    from hits h
    join search_pages p on p.space_id = h.space_id and p.page_id = h.page_id
    cross join search_query sq
    cross join lateral (
      select coalesce(json_agg(json_build_object(
               'anchor', b.anchor, 'title', b.title, 'score', b.score,
               'excerpt', case when sq.any_q is null then left(b.body, 240)
                               else ts_headline(${SEARCH_CONFIG}::regconfig, b.body, sq.any_q, ${HEADLINE_OPTIONS}) end)
             order by b.score desc, b.position), '[]'::json) as sections
      from (select s.position, s.anchor, s.title, s.body, ${rank} as score
            from search_sections s
            where s.space_id = h.space_id and s.page_id = h.page_id and (sq.any_q is null or s.tsv @@ sq.any_q)
            order by score desc, s.position
            limit ${SECTIONS_PER_PAGE}) b
    ) shown
    order by ${order}`;
}
