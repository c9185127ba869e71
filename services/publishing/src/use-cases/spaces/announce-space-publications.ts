import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId, queryRows, sql } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { reannouncePublications } from "../shared/publications.js";

const BATCH = 100;

/**
 * Announces where spaces are published again, as they are (`space_publication.updated`, each
 * with a new version, so it replaces whatever content holds): the repair of content's copy, on an
 * operator's demand. One space, or every space publishing knows (announced before or on a site),
 * a hundred per transaction. Answers how many were announced.
 */
export async function announceSpacePublications(
  em: EntityManager,
  input: { spaceId: string },
  deps: Pick<UseCaseDeps, "clock" | "unitOfWork">,
): Promise<number> {
  if (input.spaceId && !isId(input.spaceId)) throw AppError.invalidArgument("space_id: must be a space id");
  const spaceIds = input.spaceId
    ? [input.spaceId]
    : (await queryRows(em, sql<{ space_id: string }>`select space_id from space_publications union select space_id from site_spaces order by 1`)).map(
        (row) => row.space_id,
      );
  let announced = 0;
  for (let start = 0; start < spaceIds.length; start += BATCH) {
    announced += await deps.unitOfWork.run(em.fork(), (tx) => reannouncePublications(tx, deps, spaceIds.slice(start, start + BATCH)));
  }
  return announced;
}
