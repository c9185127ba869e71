import type { ConsumerSpec, EventEnvelope } from "@imprint/runtime";
import type { CollaborationConfig } from "../config.js";
import { isId } from "../use-cases/shared/access.js";
import type { UseCaseDeps } from "../use-cases/shared/deps.js";
import { purgeSpace } from "../use-cases/purge-space.js";
import { recordBranchCommit } from "../use-cases/record-branch-commit.js";
import { recordBranchMerge } from "../use-cases/record-branch-merge.js";
import { transferSpace } from "../use-cases/transfer-space.js";

/** A payload field that must be an id; events without it are not for us (or malformed) and are skipped. */
function idField(envelope: EventEnvelope, field: string): string | undefined {
  const value = envelope.payload[field];
  return typeof value === "string" && isId(value) ? value : undefined;
}

/**
 * The content events this context follows, each through its own durable consumer (the runtime
 * handles each event once per consumer, in a transaction of this service's database):
 * - `space.purged` removes the space's collaboration data, `space.transferred` moves it along;
 * - `branch.merged` records a merge content finished if this service has not yet;
 * - `revision.created` on a change request's branch makes its author a contributor.
 */
export function contentEventConsumers(deps: Pick<UseCaseDeps, "clock">, config: CollaborationConfig): ConsumerSpec[] {
  return [
    {
      context: "content",
      consumer: config.SPACE_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.space.>",
      handler: async (envelope, { em }) => {
        const spaceId = idField(envelope, "spaceId");
        if (!spaceId) return;
        if (envelope.type === "space.purged") await purgeSpace(em, { spaceId });
        const organizationId = idField(envelope, "toOrganizationId");
        if (envelope.type === "space.transferred" && organizationId) await transferSpace(em, { spaceId, organizationId });
      },
    },
    {
      context: "content",
      consumer: config.BRANCH_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.branch.merged",
      handler: async (envelope, { em }) => {
        const changeRequestId = idField(envelope, "changeRequestId");
        const revisionId = envelope.payload.revisionId;
        if (!changeRequestId || typeof revisionId !== "string" || !revisionId) return;
        await recordBranchMerge(em, { changeRequestId, revisionId, actor: envelope.actor }, deps);
      },
    },
    {
      context: "content",
      consumer: config.REVISION_EVENTS_CONSUMER,
      filterSubject: "imprint.content.v1.revision.created",
      handler: async (envelope, { em }) => {
        const spaceId = idField(envelope, "spaceId");
        const changeRequestId = idField(envelope, "changeRequestId");
        if (!spaceId || !changeRequestId) return;
        await recordBranchCommit(em, { spaceId, changeRequestId, userId: envelope.actor?.userId ?? null }, deps);
      },
    },
  ];
}
