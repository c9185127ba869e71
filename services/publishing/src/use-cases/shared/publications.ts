import type { EntityManager } from "@mikro-orm/postgresql";
import type { UnitOfWork } from "@imprint/runtime";
import { executeStatement, queryRows, sql, recordEvent } from "@imprint/runtime";
import { SpacePublication, type PublishedAddress } from "../../domain/space-publication.js";
import { spacePublicationUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";

/** What a transaction changed that may move spaces' published addresses: sites, and spaces that left them. */
interface Touched {
  siteIds: Set<string>;
  spaceIds: Set<string>;
}

const touchedBy = new WeakMap<EntityManager, Touched>();

function touched(tx: EntityManager): Touched {
  let found = touchedBy.get(tx);
  if (!found) touchedBy.set(tx, (found = { siteIds: new Set(), spaceIds: new Set() }));
  return found;
}

/** The transaction changes the site: its spaces' addresses are checked before it commits. */
export function touchSite(tx: EntityManager, siteId: string): void {
  touched(tx).siteIds.add(siteId);
}

/** The transaction changes where these spaces are shown (e.g. they leave a site): their addresses are checked before it commits. */
export function touchSpaces(tx: EntityManager, spaceIds: Iterable<string>): void {
  for (const spaceId of spaceIds) touched(tx).spaceIds.add(spaceId);
}

/**
 * Each space's address now: its live site-space (not a draft, in a live section outside any draft
 * group, however deep, its space not deleted) on the earliest published site (by creation), the
 * first in structure order there.
 */
async function currentAddresses(tx: EntityManager, spaceIds: string[]): Promise<Map<string, PublishedAddress>> {
  const rows = await queryRows(
    tx,
    sql<{
      space_id: string;
      site_id: string;
      organization_id: string;
      basename: string | null;
      hostname: string | null;
      proxy: string | null;
      section_path: string | null;
      path: string;
    }>`with recursive hidden_groups as (
       select g.id from site_section_groups g where g.draft and g.site_id in (select site_id from site_spaces where space_id = any(${`{${spaceIds.join(",")}}`}::uuid[]))
       union
       select g.id from site_section_groups g join hidden_groups h on g.parent_group_id = h.id
     )
     select distinct on (ss.space_id) ss.space_id, s.id as site_id, s.organization_id, s.basename, s.hostname, s.proxy, sec.path as section_path, ss.path
       from site_spaces ss join sites s on s.id = ss.site_id left join site_sections sec on sec.id = ss.section_id
      where ss.space_id = any(${`{${spaceIds.join(",")}}`}::uuid[]) and s.published and not ss.draft and not ss.space_deleted
        and (sec.id is null or (not sec.draft and (sec.section_group_id is null or sec.section_group_id not in (select id from hidden_groups))))
      order by ss.space_id, s.created_at, s.id, sec.position nulls first, ss.position, ss.id`,
  );
  return new Map(
    rows.map((row) => [
      row.space_id,
      {
        siteId: row.site_id,
        organizationId: row.organization_id,
        basename: row.basename ?? "",
        hostname: row.hostname ?? "",
        proxy: row.proxy ?? "",
        sectionPath: row.section_path ?? "",
        path: row.path,
      },
    ]),
  );
}

/**
 * Announces, in the transaction, every touched space whose address changed
 * (`space_publication.updated`, the new address or none, with a version that grows per space).
 */
export async function announcePublications(tx: EntityManager, deps: Pick<UseCaseDeps, "clock">): Promise<void> {
  const { siteIds, spaceIds } = touched(tx);
  touchedBy.delete(tx);
  if (siteIds.size === 0 && spaceIds.size === 0) return;
  await tx.flush();
  const inSites =
    siteIds.size > 0
      ? await queryRows(tx, sql<{ space_id: string }>`select distinct space_id from site_spaces where site_id = any(${`{${[...siteIds].join(",")}}`}::uuid[])`)
      : [];
  await announce(tx, deps, [...new Set([...spaceIds, ...inSites.map((row) => row.space_id)])], false);
}

/**
 * Announces the spaces' addresses again as they are, changed or not, each with a new version
 * (the repair of content's copy: AnnounceSpacePublications). Spaces never announced and not
 * published have nothing to say.
 */
export async function reannouncePublications(tx: EntityManager, deps: Pick<UseCaseDeps, "clock">, spaceIds: readonly string[]): Promise<number> {
  return announce(tx, deps, [...new Set(spaceIds)], true);
}

async function announce(tx: EntityManager, deps: Pick<UseCaseDeps, "clock">, spaceIds: string[], always: boolean): Promise<number> {
  const ids = [...spaceIds].sort();
  if (ids.length === 0) return 0;
  // One announcement of a space at a time, in commit order: two transactions touching the same
  // space through different sites would otherwise both read version N and both announce N + 1
  // (content keeps the first and ignores the other's equal version). Locked in id order (no
  // deadlock between two such transactions), and read after the lock (so including the other's commit).
  await executeStatement(
    tx,
    sql`select pg_advisory_xact_lock(hashtextextended(k, 0)) from (select 'space_publication:' || unnest(${`{${ids.join(",")}}`}::text[]) as k order by 1) as keys`,
  );
  const [addresses, known] = await Promise.all([currentAddresses(tx, ids), tx.find(SpacePublication, { spaceId: { $in: ids } }, { refresh: true })]);
  const previous = new Map(known.map((publication) => [publication.spaceId, publication]));
  const now = deps.clock();
  let announced = 0;
  for (const spaceId of ids) {
    const address = addresses.get(spaceId) ?? null;
    const text = address ? JSON.stringify(address) : null;
    const before = previous.get(spaceId);
    if (!always && (before?.address ?? null) === text) continue;
    // A space never announced and still unpublished has nothing to say.
    if (!before && !address) continue;
    const organizationId = address?.organizationId ?? before!.organizationId;
    const version = (before?.version ?? 0) + 1;
    if (before) {
      before.address = text;
      before.version = version;
      before.updatedAt = now;
    } else {
      tx.create(SpacePublication, { spaceId, organizationId, address: text, version, updatedAt: now });
    }
    recordEvent(tx, spacePublicationUpdated, {
      organizationId,
      actor: null,
      payload: { spaceId, version, published: address !== null, address: address ?? undefined },
    });
    announced += 1;
  }
  return announced;
}

/**
 * Publishing's unit of work: the runtime's, announcing before each commit the spaces whose
 * published address the transaction changed (sites it locked, spaces that left them).
 */
export function publishingUnitOfWork(inner: UnitOfWork, deps: Pick<UseCaseDeps, "clock">): UnitOfWork {
  return {
    run: (em, work) =>
      inner.run(em, async (tx) => {
        const result = await work(tx);
        await announcePublications(tx, deps);
        return result;
      }),
  };
}
