import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import type { BranchContentChange } from "@imprint/proto/content/v1/editing";
import { MAX_JSON_DEPTH, type PromiseClient } from "@imprint/runtime";
import { testClient, createOrganization, createSpace, type TestOrganization, errorCode, failure, createRevision } from "@imprint/runtime/testing";
import { startContentHarness, type ContentHarness } from "./support/harness.js";
import { contentClients, newPage, readAll, type ContentClients } from "./revisions-fixtures.js";

/**
 * EditingService.UpdateBranchContent over gRPC: batches racing with other commits on the same
 * branch (re-applied on the new head, never committed over another commit), the fetch guard on
 * files given by URL, and the batch's own limits.
 */
let harness: ContentHarness;
let clients: ContentClients;
let branches: PromiseClient<typeof BranchServiceService>;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  harness = await startContentHarness();
  clients = contentClients(harness);
  branches = testClient(BranchServiceService, harness.contentAddress);
});
afterAll(async () => {
  branches?.close();
  clients?.close();
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
  spaceId = (await createSpace(harness, org)).id;
  await createRevision(clients, org.owner.caller, { spaceId }, (draftId) =>
    clients.editing.createPage({ caller: org.owner.caller, draftId, page: newPage({ pageId: "home", title: "Home" }) }),
  );
});

const owner = () => org.owner.caller;
const insert = (title: string): BranchContentChange => ({ insertPage: { intoPageId: "", ref: "", markdown: `# ${title}\n\nBody.`, documentJson: "" } });
const apply = (changeRequestId: string, changes: BranchContentChange[]) =>
  clients.editing.updateBranchContent({ caller: owner(), spaceId, changeRequestId, changes });
const titles = async (changeRequestId: string) =>
  (await clients.revisions.listPages({ caller: owner(), ref: { spaceId, changeRequestId, revisionId: "" }, options: readAll, knownRevisionId: "" })).pages.map(
    (page) => page.title,
  );

async function directCommit(changeRequestId: string, title: string): Promise<string> {
  const { draft } = await clients.editing.openDraft({ caller: owner(), spaceId, parentRevisionId: "", changeRequestId });
  await clients.editing.createPage({ caller: owner(), draftId: draft!.id, page: newPage({ title }) });
  return (await clients.editing.commitDraft({ caller: owner(), draftId: draft!.id, message: "direct", moveHead: true, expectedHeadRevisionId: "" })).revisionId;
}

describe("UpdateBranchContent", () => {
  it("lands batches racing with other commits on the branch without losing any (or answers CONFLICT and writes nothing)", async () => {
    const changeRequestId = randomUUID();
    await branches.createBranch({ caller: owner(), spaceId, changeRequestId, number: 1 });
    const batches = [0, 1, 2, 3].map((batch) =>
      errorCode(
        apply(
          changeRequestId,
          [0, 1, 2].map((page) => insert(`Batch ${batch} page ${page}`)),
        ),
      ),
    );
    const direct = [0, 1, 2, 3].map((index) => errorCode(directCommit(changeRequestId, `Direct ${index}`)));
    const codes = await Promise.all(batches);
    const directCodes = await Promise.all(direct);
    for (const code of [...codes, ...directCodes]) expect(["ok", "conflict"]).toContain(code);
    expect(codes).toContain("ok");
    const present = await titles(changeRequestId);
    codes.forEach((code, batch) => {
      for (const page of [0, 1, 2]) expect(present.includes(`Batch ${batch} page ${page}`)).toBe(code === "ok");
    });
    directCodes.forEach((code, index) => expect(present.includes(`Direct ${index}`)).toBe(code === "ok"));
  });

  it("fetches files by URL through the fetch guard only, and enforces the batch's limits", async () => {
    const changeRequestId = randomUUID();
    await branches.createBranch({ caller: owner(), spaceId, changeRequestId, number: 1 });
    const privateUrl = await failure(
      apply(changeRequestId, [{ insertFiles: { files: [{ ref: "", name: "x.png", contentType: "", url: "http://127.0.0.1:9/x.png" }] } }]),
    );
    expect(privateUrl.code).toBe("invalid_argument");
    expect(privateUrl.message).toMatch(/changes\[0\]\.files\[0\]\.url: could not be fetched .*IMPRINT_ALLOW_PRIVATE_FETCH/);
    const tooBig = await failure(
      apply(changeRequestId, [
        { insertFiles: { files: [{ ref: "", name: "x.bin", contentType: "application/octet-stream", content: Buffer.alloc(1024 * 1024 + 1) }] } },
      ]),
    );
    expect(tooBig.message).toMatch(/changes\[0\]\.files\[0\]\.base64: must decode to at most 1 MiB/);
    const noFiles = await failure(apply(changeRequestId, [{ insertFiles: { files: [] } }]));
    expect(noFiles.message).toMatch(/changes\[0\]\.files: must hold 1 to 20 files/);
    const sameRef = await failure(
      apply(changeRequestId, [
        { insertPage: { intoPageId: "", ref: "a", markdown: "x", documentJson: "" } },
        { insertPage: { intoPageId: "", ref: "a", markdown: "y", documentJson: "" } },
      ]),
    );
    expect(sameRef.message).toMatch(/changes\[1\]\.ref: "a" is already used/);
    // A document nests at most MAX_JSON_DEPTH levels before anything walks it (text: JSON.stringify overflows on deep values).
    for (const depth of [MAX_JSON_DEPTH + 1, 5_000]) {
      const deep = `{"object":"document","nodes":[${'{"a":'.repeat(depth)}1${"}".repeat(depth)}]}`;
      const tooDeep = await failure(apply(changeRequestId, [{ insertPage: { intoPageId: "", ref: "", markdown: "", documentJson: deep } }]));
      expect(tooDeep).toMatchObject({
        code: "invalid_argument",
        message: expect.stringMatching(new RegExp(`^changes\\[0\\]\\.document\\.document: nesting deeper than ${MAX_JSON_DEPTH}`)),
      });
    }
    expect(await titles(changeRequestId)).toEqual(["Home"]);
  });
});
