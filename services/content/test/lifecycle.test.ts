import { testClient, createMember, createOrganization, createSpace, type TestOrganization, errorCode, failure, waitForEvents } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { CommitDraftRequest, CreatePageRequest, EditingServiceService, OpenDraftRequest } from "@imprint/proto/content/v1/editing";
import { ListPagesRequest, PageType, RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

/**
 * A deleted space can be restored for 7 days; the purge job removes it afterwards. The content
 * service runs on an injected clock moved forward by days; PurgeDeletedSpaces runs the job's work
 * at once instead of waiting for its interval.
 */
let harness: ContentHarness;
let org: TestOrganization;

beforeAll(async () => {
  harness = await startContentHarness();
});
afterAll(async () => {
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
});

const get = (spaceId: string) => harness.spaces.getSpace({ caller: org.owner.caller, spaceId, shareKey: "" });
const remove = (spaceId: string) => harness.spaces.deleteSpace({ caller: org.owner.caller, spaceId });
const restore = (spaceId: string) => harness.spaces.restoreSpace({ caller: org.owner.caller, spaceId });
const purge = () => harness.spaces.purgeDeletedSpaces({});

/** Adds one committed page to the space through the internal editing API. */
async function addPage(spaceId: string, title: string): Promise<void> {
  const editing = testClient(EditingServiceService, harness.contentAddress);
  try {
    const { draft } = await editing.openDraft(OpenDraftRequest.fromPartial({ caller: org.owner.caller, spaceId }));
    await editing.createPage(
      CreatePageRequest.fromPartial({
        caller: org.owner.caller,
        draftId: draft!.id,
        page: { type: PageType.PAGE_TYPE_DOCUMENT, title, markdown: `# ${title}` },
      }),
    );
    await editing.commitDraft(CommitDraftRequest.fromPartial({ caller: org.owner.caller, draftId: draft!.id, moveHead: true }));
  } finally {
    editing.close();
  }
}

async function pageTitles(spaceId: string): Promise<string[]> {
  const revisions = testClient(RevisionServiceService, harness.contentAddress);
  try {
    const { pages } = await revisions.listPages(
      ListPagesRequest.fromPartial({ caller: org.owner.caller, ref: { spaceId }, options: { metadata: true, computed: true } }),
    );
    return pages.map((page) => page.title);
  } finally {
    revisions.close();
  }
}

describe("space content", () => {
  it("a new space has its first (empty) revision; a duplicate starts from the original's current content", async () => {
    const original = await createSpace(harness, org);
    expect(original.revisionId).not.toBe("");
    expect(await pageTitles(original.id)).toEqual([]);
    await addPage(original.id, "Getting started");
    const head = (await get(original.id)).space!.revisionId;
    expect(head).not.toBe(original.revisionId);

    const copy = (await harness.spaces.duplicateSpace({ caller: org.owner.caller, spaceId: original.id })).space!;
    expect(copy.revisionId).not.toBe("");
    expect(copy.revisionId).not.toBe(head);
    expect(await pageTitles(copy.id)).toEqual(["Getting started"]);
    // The copy lives on its own: an edit of the original does not show in it.
    await addPage(original.id, "Later");
    expect(await pageTitles(copy.id)).toEqual(["Getting started"]);
  });

  it("purging a space removes its content and leaves its duplicate's intact", async () => {
    const original = await createSpace(harness, org);
    await addPage(original.id, "Shared");
    const copy = (await harness.spaces.duplicateSpace({ caller: org.owner.caller, spaceId: original.id })).space!;
    await remove(original.id);
    harness.clock.advanceDays(8);
    expect((await purge()).spaceIds).toContain(original.id);
    expect(await pageTitles(copy.id)).toEqual(["Shared"]);
  });
});

describe("space lifecycle", () => {
  it("deletes softly: the space disappears from reads and lists, and deleting again still succeeds", async () => {
    const space = await createSpace(harness, org);
    await addPage(space.id, "Kept");
    expect(await pageTitles(space.id)).toEqual(["Kept"]);
    await remove(space.id);
    expect(await errorCode(get(space.id))).toBe("not_found");
    // Its content too: every read of it answers like a space that does not exist.
    expect(await errorCode(pageTitles(space.id))).toBe("not_found");
    const listed = await harness.spaces.listSpaces({ caller: org.owner.caller, organizationId: org.organizationId, page: undefined });
    expect(listed.spaces).toEqual([]);
    await remove(space.id);
    await remove("00000000-0000-4000-8000-000000000000");
    expect(
      await errorCode(
        harness.spaces.updateSpace({
          caller: org.owner.caller,
          spaceId: space.id,
          updateMask: ["title"],
          title: "x",
          emoji: "",
          editMode: 0,
          defaultLevel: 0,
          visibility: 0,
        }),
      ),
    ).toBe("not_found");
  });

  it("restores on day 6 (events space.deleted then space.restored), and a purge leaves it alone", async () => {
    const since = new Date(Date.now() - 1_000);
    const space = await createSpace(harness, org, { title: "kept" });
    await remove(space.id);
    harness.clock.advanceDays(6);
    expect((await purge()).spaceIds).not.toContain(space.id);
    const restored = (await restore(space.id)).space!;
    expect(restored).toMatchObject({ id: space.id, title: "kept" });
    expect(restored.deletedAt).toBeUndefined();
    expect((await get(space.id)).space!.id).toBe(space.id);
    // Restoring an active space answers it unchanged.
    expect((await restore(space.id)).space!.id).toBe(space.id);
    const events = await waitForEvents(
      "content",
      { since, organizationId: org.organizationId },
      { types: ["space.created", "space.deleted", "space.restored"] },
    );
    expect(events.filter((e) => e.type === "space.restored")).toHaveLength(1);
  });

  it("refuses restore after 7 days even before the purge, purges on day 8 (space.purged), then still 404", async () => {
    const since = new Date(Date.now() - 1_000);
    const space = await createSpace(harness, org);
    const other = await createSpace(harness, org);
    await remove(space.id);
    harness.clock.advanceDays(8);
    expect(await failure(restore(space.id))).toMatchObject({ code: "not_found", message: "Space not found" });
    const { spaceIds } = await purge();
    expect(spaceIds).toContain(space.id);
    expect(spaceIds).not.toContain(other.id);
    expect(await errorCode(restore(space.id))).toBe("not_found");
    expect(await errorCode(get(space.id))).toBe("not_found");
    expect((await get(other.id)).space!.id).toBe(other.id);
    expect((await purge()).spaceIds).not.toContain(space.id);
    const events = await waitForEvents("content", { since, organizationId: org.organizationId }, { types: ["space.deleted", "space.purged"] });
    expect(events.find((e) => e.type === "space.purged")).toMatchObject({ actor: null, payload: { spaceId: space.id } });
  });

  it("purging a space also forgets its Git sync state and its import runs", async () => {
    const space = await createSpace(harness, org);
    const kept = await createSpace(harness, org);
    const em = () => harness.content.orm.em.fork();
    const now = new Date();
    for (const spaceId of [space.id, kept.id]) {
      await em().execute(
        "insert into git_syncs (space_id, organization_id, url, ref, updated_at) values (?, ?, 'https://git.example.com/docs.git', 'main', ?)",
        [spaceId, org.organizationId, now],
      );
      await em().execute(
        "insert into import_runs (id, organization_id, space_id, source, url, status, created_by, created_at, updated_at) values (?, ?, ?, 'website', 'https://example.com/', 'completed', ?, ?, ?)",
        [crypto.randomUUID(), org.organizationId, spaceId, org.owner.userId, now, now],
      );
    }
    await remove(space.id);
    harness.clock.advanceDays(8);
    expect((await purge()).spaceIds).toContain(space.id);
    const count = async (table: string, spaceId: string) =>
      Number((await em().execute<{ count: string }[]>(`select count(*) as count from ${table} where space_id = ?`, [spaceId]))[0]!.count);
    expect([await count("git_syncs", space.id), await count("import_runs", space.id)]).toEqual([0, 0]);
    expect([await count("git_syncs", kept.id), await count("import_runs", kept.id)]).toEqual([1, 1]);
  });

  it("lets only space admins delete and restore", async () => {
    const space = await createSpace(harness, org);
    const { caller } = await createMember(harness, org.organizationId, { role: "edit" });
    expect(await errorCode(harness.spaces.deleteSpace({ caller, spaceId: space.id }))).toBe("permission_denied");
    await remove(space.id);
    expect(await errorCode(harness.spaces.restoreSpace({ caller, spaceId: space.id }))).toBe("permission_denied");
    expect(await errorCode(get(space.id))).toBe("not_found");
  });
});

describe("purge job", () => {
  let scheduled: ContentHarness;
  afterAll(() => scheduled?.stop());

  it("runs every PURGE_INTERVAL_MS on its own and emits space.purged", async () => {
    scheduled = await startContentHarness({ contentEnv: { PURGE_INTERVAL_MS: "200" } });
    const organization = await createOrganization(scheduled);
    const since = new Date(Date.now() - 1_000);
    const space = await createSpace(scheduled, organization);
    await scheduled.spaces.deleteSpace({ caller: organization.owner.caller, spaceId: space.id });
    scheduled.clock.advanceDays(8);
    const events = await waitForEvents("content", { since, organizationId: organization.organizationId }, { types: ["space.deleted", "space.purged"] });
    expect(events.find((e) => e.type === "space.purged")!.payload).toEqual({ spaceId: space.id });
    expect((await scheduled.spaces.purgeDeletedSpaces({})).spaceIds).toEqual([]);
  });
});
