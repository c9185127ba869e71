import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId, queryRows, sql, recordEvent } from "@imprint/runtime";
import { spaceCountersAnnounced, spaceEventPayload } from "../events.js";
import type { UseCaseDeps } from "../deps.js";

/**
 * Announces spaces' counters again as they are (`space_counters.announced`, each with a new
 * version, so it replaces whatever content holds): the repair of content's copy, on an operator's
 * demand. One space, or every space with change requests or comments (the others have nothing to
 * count), each in a transaction of its own. Answers how many were announced.
 */
export async function announceSpaceCounters(em: EntityManager, input: { spaceId: string }, deps: Pick<UseCaseDeps, "clock" | "unitOfWork">): Promise<number> {
  if (input.spaceId && !isId(input.spaceId)) throw AppError.invalidArgument("space_id: must be a space id");
  const spaces = await queryRows(
    em,
    sql<{ space_id: string; organization_id: string }>`select distinct on (space_id) space_id, organization_id from (
       select space_id, organization_id from change_requests union all select space_id, organization_id from comments
     ) as rows where (${input.spaceId} = '' or space_id::text = ${input.spaceId}) order by space_id`,
  );
  for (const { space_id: spaceId, organization_id: organizationId } of spaces) {
    await deps.unitOfWork.run(em.fork(), async (tx) => {
      recordEvent(tx, spaceCountersAnnounced, { organizationId, actor: null, payload: await spaceEventPayload(tx, spaceId, {}) });
    });
  }
  return spaces.length;
}
