// Every SQL query of the chaos audit, in one place: the one file to adapt when these tables change. Each query reads
// one service's database; the audit (audit.mjs) compares their results with each other and with the
// JetStream streams.

/** Any service: its transactional outbox (every event it committed) and whether the relay published it. */
export const OUTBOX_EVENTS = `select id::text as id, subject, type, published_at is not null as published from outbox_events`;

/** Any service: the events each durable consumer of this database recorded as handled. */
export const PROCESSED_EVENTS = `select consumer, event_id::text as event_id from processed_events`;

/** Identity: who is in which team (the source of truth of content's team memberships). */
export const IDENTITY_TEAM_MEMBERS = `select team_id::text as team_id, user_id::text as user_id from team_members`;

/** Content: its projection of identity's team members; a removal is kept as a row with present = false (a tombstone). */
export const CONTENT_TEAM_MEMBERSHIPS = `select team_id::text as team_id, user_id::text as user_id from team_memberships where present`;

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

/** Collaboration: change requests the loops opened (the marker is the subject). */
export const COLLABORATION_MARKED_CHANGE_REQUESTS = `select subject as marker, (extract(epoch from created_at) * 1000)::float8 as created_ms from change_requests where subject like 'chaos-%'`;

/**
 * Content: branches of the loops' change requests it merged (the marker is the subject it merged
 * them with), and when: a merge is committed there; collaboration's record of it is a projection.
 */
export const CONTENT_MARKED_MERGES = `select merge_subject as marker, (extract(epoch from updated_at) * 1000)::float8 as merged_ms from branches where merged_revision_id is not null and merge_subject like 'chaos-%'`;

/** Content: every branch (one per change request, same id) and the revision it was merged as, if merged. */
export const CONTENT_BRANCH_MERGES = `select id::text as id, merged_revision_id from branches`;

/** Collaboration: every change request and the revision it is recorded as merged as, if merged. */
export const COLLABORATION_CHANGE_REQUEST_MERGES = `select id::text as id, merged_revision_id from change_requests`;
