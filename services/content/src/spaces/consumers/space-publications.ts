import { handleEvents, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import { spacePublicationUpdated } from "@imprint/proto/publishing/v1/event-contracts";
import { isId } from "../../access/index.js";
import { applySpacePublication } from "../use-cases/apply-space-publication.js";

/**
 * A space's `urls.published` follows the sites that publish it: publishing announces each change
 * of a space's address (`space_publication.updated`, with a version that grows per space) and the
 * space keeps the newest. The publishing stream is created here if publishing has not started yet.
 * Order: versioned. Publishing announces under a per-space lock with the previous version + 1, so
 * versions follow commit order and each carries the whole address; a lower or equal version
 * changes nothing (test/space-projections-property.test.ts).
 */
export function spacePublicationsConsumer(consumer: string): ConsumerSpec {
  return {
    context: "publishing",
    consumer,
    filterSubject: "imprint.publishing.v1.space_publication.>",
    keyOf: keyByAggregate([spacePublicationUpdated]),
    handler: handleEvents([spacePublicationUpdated], async ({ payload: { spaceId, version, published, address } }, { em, logger }) => {
      if (!isId(spaceId)) return;
      const applied = await applySpacePublication(em, spaceId, version, published && address ? address : null);
      logger.debug(applied ? "space publication updated" : "space publication already newer; skipped", { spaceId, version });
    }),
  };
}
