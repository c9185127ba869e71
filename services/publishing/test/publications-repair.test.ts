import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, createSpace, eventually, type TestOrganization, runNodeScriptJson } from "@imprint/runtime/testing";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

/**
 * The repair of content's copy of where spaces are published: publishing announces it again as
 * it is (AnnounceSpacePublications, `npm run admin -- reconcile space-publications`), with a new
 * version, and content's copy, changed by hand, is right again.
 */
let harness: PublishingHarness;
let org: TestOrganization;
beforeAll(async () => {
  harness = await startPublishingHarness();
  org = await createOrganization(harness);
});
afterAll(() => harness?.stop());

const ADMIN_CLI = fileURLToPath(new URL("../../identity/dist/cli/admin.js", import.meta.url));

/** Runs the compiled admin CLI as an operator does; its one line of JSON. */
const adminCli = (args: string[], env: Record<string, string>) => runNodeScriptJson<Record<string, unknown>>(ADMIN_CLI, args, { env, timeoutMs: 60_000 });

/** Content's copy of the space's published address (its site, or null). */
async function publishedSiteInContent(spaceId: string): Promise<string | null> {
  const [row] = await harness.content.orm.em
    .fork()
    .execute<{ published_address: string | null }[]>(`select published_address from spaces where id = ?`, [spaceId]);
  return row?.published_address ? (JSON.parse(row.published_address) as { siteId: string }).siteId : null;
}

describe("repair of the spaces' published addresses in content", () => {
  it("announces where a space is published again, and content's corrupted copy follows", async () => {
    const caller = org.owner.caller;
    const space = await createSpace(harness, org);
    const { site } = await harness.sites.createSite({
      caller,
      organizationId: org.organizationId,
      type: "",
      title: "Docs",
      visibility: "",
      spaceIds: [space.id],
    });
    await harness.sites.publishSite({ caller, organizationId: org.organizationId, siteId: site!.id });
    await eventually(async () => expect(await publishedSiteInContent(space.id)).toBe(site!.id));

    // Corrupt content's copy (as a lost or misapplied event would).
    await harness.content.orm.em.fork().execute(`update spaces set published_address = null where id = ?`, [space.id]);
    expect(await adminCli(["reconcile", "space-publications", "--space", space.id], { PUBLISHING_GRPC_ADDRESS: harness.publishingAddress })).toEqual({
      spaces: 1,
    });
    await eventually(async () => expect(await publishedSiteInContent(space.id)).toBe(site!.id));

    // Every space publishing knows, when none is named.
    await harness.content.orm.em.fork().execute(`update spaces set published_address = null where id = ?`, [space.id]);
    const { spaces } = await harness.spacePublications.announceSpacePublications({ spaceId: "" });
    expect(spaces).toBeGreaterThanOrEqual(1);
    await eventually(async () => expect(await publishedSiteInContent(space.id)).toBe(site!.id));
  });
});
