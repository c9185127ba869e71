import type { CommitDraftResponse, EditingServiceService, PageOperation } from "@imprint/proto/content/v1/editing";
import type pg from "pg";
import type { PromiseClient } from "@imprint/runtime";

/**
 * Writes pages through content's editing API as one revision, as the benchmarks seed and edit
 * their spaces: a draft (on the space, or on a change request's branch), the operations in chunks
 * well below gRPC's message limit, then a commit that moves the head.
 */
export async function commitPageOperations(
  editing: PromiseClient<typeof EditingServiceService>,
  input: {
    caller: { userId: string; tokenId: string };
    spaceId: string;
    changeRequestId?: string;
    operations: PageOperation[];
    message?: string;
    chunk?: number;
  },
): Promise<CommitDraftResponse> {
  const { caller, operations } = input;
  const chunk = input.chunk ?? 2_000;
  const { draft } = await editing.openDraft({ caller, spaceId: input.spaceId, parentRevisionId: "", changeRequestId: input.changeRequestId ?? "" });
  for (let start = 0; start < operations.length; start += chunk) {
    await editing.applyPageOperations({ caller, draftId: draft!.id, operations: operations.slice(start, start + chunk) });
  }
  return editing.commitDraft({ caller, draftId: draft!.id, message: input.message ?? "bench", moveHead: true, expectedHeadRevisionId: "" });
}

/** POST with a JSON body through the gateway as `token`'s user: the JSON answer ({} for a 204); an answer of 300 or more throws with its body. */
export function gatewayPost(gatewayUrl: string, token: string, timeoutMs = 120_000): (path: string, body?: unknown) => Promise<Record<string, unknown>> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  return async (path, body) => {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method: "POST",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status >= 300) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
    return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>);
  };
}

/**
 * Waits until every consumer that handled an earlier `revision.created` of the space (its first
 * revision) has also handled the one of `revisionId`, as recorded in processed_events.
 */
export async function consumersCaughtUp(db: pg.Client, spaceId: string, revisionId: string): Promise<void> {
  const deadline = performance.now() + 600_000;
  for (;;) {
    const { rows } = await db.query<{ missing: string }>(
      `with events as (select id, envelope->'payload'->>'revisionId' as revision_id from outbox_events
                       where type = 'revision.created' and envelope->'payload'->>'spaceId' = $1),
            consumers as (select distinct p.consumer from processed_events p join events e on e.id = p.event_id)
       select count(*) as missing from consumers c
       where not exists (select 1 from processed_events p join events e on e.id = p.event_id where p.consumer = c.consumer and e.revision_id = $2)`,
      [spaceId, revisionId],
    );
    if (Number(rows[0]?.missing ?? 1) === 0) return;
    if (performance.now() > deadline) throw new Error("the content service's consumers did not catch up within 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
