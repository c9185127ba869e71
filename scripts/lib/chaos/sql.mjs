// Every SQL query of the chaos audit, in one place: other work changes these tables (a version or a
// tombstone on a projection, a new projection), and this is the one file to adapt. Each query reads
// one service's database; the audit (audit.mjs) compares their results with each other and with the
// JetStream streams.

/** Any service: its transactional outbox (every event it committed) and whether the relay published it. */
export const OUTBOX_EVENTS = `select id::text as id, subject, type, published_at is not null as published from outbox_events`;

/** Any service: the events each durable consumer of this database recorded as handled. */
export const PROCESSED_EVENTS = `select consumer, event_id::text as event_id from processed_events`;

/** Any service: the columns of a table of the current schema (to find tombstone columns at run time). */
export const TABLE_COLUMNS = `select column_name, data_type from information_schema.columns where table_schema = current_schema() and table_name = $1`;

/**
 * Columns that mark a row as gone without deleting it (a tombstone), by name: a boolean that is true,
 * or a timestamp / anything else that is set. `present`/`active` booleans mean the opposite.
 */
const TOMBSTONE_COLUMNS = ["removed", "deleted", "tombstone", "is_removed", "is_deleted", "removed_at", "deleted_at", "left_at", "tombstoned_at"];
const PRESENCE_COLUMNS = ["present", "active", "is_member", "member"];

/** `where …` keeping only present rows of a table whose columns are `columns` (from TABLE_COLUMNS). */
export function presentRowsFilter(columns, alias = "") {
  const prefix = alias ? `${alias}.` : "";
  const conditions = [];
  for (const { column_name: name, data_type: type } of columns) {
    if (TOMBSTONE_COLUMNS.includes(name)) conditions.push(type === "boolean" ? `not coalesce(${prefix}"${name}", false)` : `${prefix}"${name}" is null`);
    if (PRESENCE_COLUMNS.includes(name) && type === "boolean") conditions.push(`coalesce(${prefix}"${name}", true)`);
  }
  return conditions.length ? `where ${conditions.join(" and ")}` : "";
}

/** Identity: who is in which team (the source of truth of content's team memberships). */
export const identityTeamMembers = (teamMemberColumns, teamColumns) =>
  `select tm.team_id::text as team_id, tm.user_id::text as user_id from team_members tm join teams t on t.id = tm.team_id ${[
    presentRowsFilter(teamMemberColumns, "tm"),
    presentRowsFilter(teamColumns, "t"),
  ]
    .filter(Boolean)
    .map((filter, index) => (index === 0 ? filter : filter.replace(/^where /, "and ")))
    .join(" ")}`;

/** Content: its projection of identity's team members (present rows only, when it keeps tombstones). */
export const contentTeamMemberships = (columns) => `select team_id::text as team_id, user_id::text as user_id from team_memberships ${presentRowsFilter(columns)}`;

/**
 * Collaboration: per space, the counts content's counters must show (the same definition as
 * collaboration's nextSpaceCounters: comments of the space itself, not of change requests, unresolved).
 */
export const COLLABORATION_SPACE_COUNTS = `
  select s.space_id::text as space_id,
         (select count(*) from change_requests c where c.space_id = s.space_id)::int as change_requests,
         (select count(*) from change_requests c where c.space_id = s.space_id and c.status = 'open')::int as change_requests_open,
         (select count(*) from change_requests c where c.space_id = s.space_id and c.status = 'draft')::int as change_requests_draft,
         (select count(*) from comments m where m.space_id = s.space_id and m.change_request_id is null and m.resolved_at is null)::int as comments
    from (select space_id from change_requests union select space_id from comments) s`;

/** Content: the counters it keeps per space (its projection of collaboration's events). */
export const CONTENT_SPACE_COUNTERS = `select id::text as space_id, change_requests, change_requests_open, change_requests_draft, comments from spaces`;

/** Publishing: where each space is published (the source of content's `urls.published`). */
export const PUBLISHING_SPACE_PUBLICATIONS = `select space_id::text as space_id, address from space_publications`;

/** Content: the published address it keeps per space. */
export const CONTENT_SPACE_PUBLICATIONS = `select id::text as space_id, published_address as address from spaces where published_address is not null`;

/**
 * Writes of the chaos loops, found by the marker they carry, one row per copy with when it was
 * created (epoch ms, set by the service just before its commit): the audit compares it with the
 * answers each attempt got.
 */
/** Content: spaces the loops created (the marker is the title). */
export const CONTENT_MARKED_SPACES = `select title as marker, (extract(epoch from created_at) * 1000)::float8 as created_ms from spaces where title like 'chaos-%'`;

/** Collaboration: comments the loops posted (the marker is the markdown). */
export const COLLABORATION_MARKED_COMMENTS = `select substring(markdown from 'chaos-[a-z0-9-]+') as marker, (extract(epoch from posted_at) * 1000)::float8 as created_ms from comments where markdown like '%chaos-%'`;

/** Collaboration: change requests the loops opened (the marker is the subject), and when merged. */
export const COLLABORATION_MARKED_CHANGE_REQUESTS = `select subject as marker, (extract(epoch from created_at) * 1000)::float8 as created_ms, (extract(epoch from merged_at) * 1000)::float8 as merged_ms from change_requests where subject like 'chaos-%'`;
