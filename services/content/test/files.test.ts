import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startContentHarness, type ContentHarness } from "./support/harness.js";
import { FILE_STORES, startTestFileStore, type TestFileStore } from "./support/file-stores.js";
import { contentClients, contentRef, readAll, type ContentClients } from "./revisions-fixtures.js";
import { createOrganization, createOutsider, createSpace, type TestOrganization, errorCode, failure, createRevision, pngBytes } from "@imprint/runtime/testing";

/** Files: upload into drafts, content-addressed blobs, reads, paging and signed download URLs, with each file store (a directory, an S3 bucket). */
describe.each(FILE_STORES)("%s file store", (kind) => {
  let store: TestFileStore;
  let harness: ContentHarness;
  let clients: ContentClients;
  let org: TestOrganization;
  let spaceId: string;

  beforeAll(async () => {
    store = await startTestFileStore(kind);
    harness = await startContentHarness({ contentEnv: store.env });
    clients = contentClients(harness);
  });
  afterAll(async () => {
    clients?.close();
    await harness?.stop();
    await store?.stop();
  });
  beforeEach(async () => {
    org = await createOrganization(harness);
    spaceId = (await createSpace(harness, org)).id;
  });

  const owner = () => org.owner.caller;
  const upload = (draftId: string, name: string, content: Buffer, contentType = "application/octet-stream", fileId = "") =>
    clients.editing.uploadFile({ caller: owner(), draftId, fileId, name, contentType, content });
  const edit = (work: (draftId: string) => Promise<unknown>) => createRevision(clients, owner(), { spaceId }, work);
  const list = (pageToken = "", pageSize = 0, revisionId = "") =>
    clients.revisions.listFiles({ caller: owner(), ref: contentRef(spaceId, revisionId), options: readAll, page: { pageToken, pageSize } });

  /** The parts of a download URL that the gateway passes to ReadFileContent. */
  function downloadParts(url: string) {
    const parsed = new URL(url);
    const match = /^\/v1\/files\/([^/]+)\/download$/.exec(parsed.pathname);
    expect(match).not.toBeNull();
    return {
      fileId: decodeURIComponent(match![1]!),
      version: parsed.searchParams.get("version") ?? "",
      expires: parsed.searchParams.get("expires") ?? "0",
      signature: parsed.searchParams.get("signature") ?? "",
    };
  }

  const blobCount = async () => (await store.blobKeys(harness.dataDir)).length;

  describe("files", () => {
    it("uploads a file with its image dimensions and serves its bytes through a signed URL", async () => {
      let fileId = "";
      await edit(async (draftId) => {
        const file = (await upload(draftId, "diagram.png", pngBytes(640, 480), "image/png")).file!;
        expect(file).toMatchObject({ name: "diagram.png", contentType: "image/png", size: "33", width: 640, height: 480 });
        fileId = file.id;
      });
      const file = (await clients.revisions.getFile({ caller: owner(), ref: contentRef(spaceId), options: readAll, fileId })).file!;
      expect(file.downloadUrl).toMatch(/^http:\/\/127\.0\.0\.1:8080\/v1\/files\/[\w-]+\/download\?version=\w+&expires=\d+&signature=[\w-]+$/);

      const content = await clients.revisions.readFileContent(downloadParts(file.downloadUrl));
      expect(content.contentType).toBe("image/png");
      expect(content.name).toBe("diagram.png");
      expect(Buffer.from(content.content).equals(pngBytes(640, 480))).toBe(true);

      const parts = downloadParts(file.downloadUrl);
      expect(await errorCode(clients.revisions.readFileContent({ ...parts, signature: parts.signature.replace(/^./, (c) => (c === "A" ? "B" : "A")) }))).toBe(
        "permission_denied",
      );
      expect(await errorCode(clients.revisions.readFileContent({ ...parts, version: "0".repeat(32) }))).toBe("permission_denied");
      harness.clock.advance(2 * 60 * 60 * 1000);
      expect(await errorCode(clients.revisions.readFileContent(parts))).toBe("not_found");
    });

    it("replaces a file's content; a URL signed for the old version still serves the old bytes", async () => {
      let fileId = "";
      const first = await edit(async (draftId) => {
        fileId = (await upload(draftId, "notes.txt", Buffer.from("first"), "text/plain")).file!.id;
      });
      const oldUrl = (await clients.revisions.getFile({ caller: owner(), ref: contentRef(spaceId), options: readAll, fileId })).file!.downloadUrl;
      await edit((draftId) => upload(draftId, "notes-v2.txt", Buffer.from("second"), "text/plain", fileId));
      const current = (await clients.revisions.getFile({ caller: owner(), ref: contentRef(spaceId), options: readAll, fileId })).file!;
      expect(current).toMatchObject({ id: fileId, name: "notes-v2.txt", size: "6" });
      expect(Buffer.from((await clients.revisions.readFileContent(downloadParts(current.downloadUrl))).content).toString()).toBe("second");
      expect(Buffer.from((await clients.revisions.readFileContent(downloadParts(oldUrl))).content).toString()).toBe("first");
      expect((await clients.revisions.getFile({ caller: owner(), ref: contentRef(spaceId, first), options: readAll, fileId })).file!.name).toBe("notes.txt");
    });

    it("lists files in pages with a count, and deletes files from new revisions only", async () => {
      const before = await edit(async (draftId) => {
        for (let i = 0; i < 5; i++) await upload(draftId, `file-${i}.bin`, Buffer.from(`bytes ${i}`));
      });
      const firstPage = await list("", 2);
      expect(firstPage.files).toHaveLength(2);
      expect(firstPage.page).toMatchObject({ totalCount: 5 });
      const secondPage = await list(firstPage.page!.nextPageToken, 2);
      const thirdPage = await list(secondPage.page!.nextPageToken, 2);
      expect(thirdPage.files).toHaveLength(1);
      expect(thirdPage.page!.nextPageToken).toBe("");
      const all = [...firstPage.files, ...secondPage.files, ...thirdPage.files].map((file) => file.id);
      expect(new Set(all).size).toBe(5);
      expect(all).toEqual([...all].sort());
      expect(await errorCode(list("garbage"))).toBe("invalid_argument");
      expect((await failure(list("", 1001))).message).toMatch(/^limit: /);

      await edit((draftId) => clients.editing.deleteFile({ caller: owner(), draftId, fileId: all[0]! }));
      expect((await list()).page!.totalCount).toBe(4);
      expect((await list("", 0, before)).page!.totalCount).toBe(5);
      expect(await errorCode(clients.revisions.getFile({ caller: owner(), ref: contentRef(spaceId), options: readAll, fileId: all[0]! }))).toBe("not_found");
    });

    it("keeps one blob for the same bytes, and removes blobs once no revision of any space uses them", async () => {
      const bytes = Buffer.from(`unique ${spaceId}`);
      const blobsBefore = await blobCount();
      await edit(async (draftId) => {
        await upload(draftId, "a.txt", bytes, "text/plain");
        await upload(draftId, "b.txt", bytes, "text/plain");
      });
      const other = await createSpace(harness, org);
      await createRevision(clients, owner(), { spaceId: other.id }, (draftId) => upload(draftId, "c.txt", bytes, "text/plain"));
      expect(await blobCount()).toBe(blobsBefore + 1);

      await harness.spaces.deleteSpace({ caller: owner(), spaceId });
      harness.clock.advanceDays(8);
      await harness.spaces.purgeDeletedSpaces({});
      expect(await blobCount()).toBe(blobsBefore + 1);
      await harness.spaces.deleteSpace({ caller: owner(), spaceId: other.id });
      harness.clock.advanceDays(8);
      await harness.spaces.purgeDeletedSpaces({});
      expect(await blobCount()).toBe(blobsBefore);
    });

    it("validates uploads and answers not_found to callers who cannot see the space", async () => {
      const { draft } = await clients.editing.openDraft({ caller: owner(), spaceId, parentRevisionId: "", changeRequestId: "" });
      expect((await failure(upload(draft!.id, "a/b.txt", Buffer.from("x")))).message).toMatch(/^name: /);
      expect((await failure(upload(draft!.id, "", Buffer.from("x")))).message).toMatch(/^name: /);
      expect((await failure(upload(draft!.id, "a.txt", Buffer.from("x"), "not a type"))).message).toMatch(/^content_type: /);
      expect((await failure(upload(draft!.id, "a.txt", Buffer.from("x"), "text/plain", "missing"))).code).toBe("not_found");
      expect(await errorCode(upload(draft!.id, "big.bin", Buffer.alloc(50 * 1024 * 1024 + 1)))).toBe("payload_too_large");

      const outsider = await createOutsider(harness);
      expect(await errorCode(clients.revisions.listFiles({ caller: outsider.caller, ref: contentRef(spaceId), options: readAll, page: undefined }))).toBe(
        "not_found",
      );
      expect(await errorCode(clients.revisions.getFile({ caller: owner(), ref: contentRef(spaceId), options: readAll, fileId: "../../etc" }))).toBe(
        "not_found",
      );
    });
  });
});
