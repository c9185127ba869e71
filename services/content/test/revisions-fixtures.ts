/** Clients and test data shared by the revision store's tests. */
import type { Caller } from "@imprint/proto/common/v1";
import { CreatePageInput, EditingServiceService, UpdatePageInput } from "@imprint/proto/content/v1/editing";
import { DocumentFormat, RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import type { PromiseClient } from "@imprint/runtime";
import { testClient } from "@imprint/runtime/testing";
import type { ContentHarness } from "./support/harness.js";

export type EditingClient = PromiseClient<typeof EditingServiceService>;
export type RevisionClient = PromiseClient<typeof RevisionServiceService>;

export interface ContentClients {
  editing: EditingClient;
  revisions: RevisionClient;
  close(): void;
}

export function contentClients(harness: Pick<ContentHarness, "contentAddress">): ContentClients {
  const editing = testClient(EditingServiceService, harness.contentAddress);
  const revisions = testClient(RevisionServiceService, harness.contentAddress);
  return {
    editing,
    revisions,
    close: () => {
      editing.close();
      revisions.close();
    },
  };
}

/** A CreatePageInput with defaults for every field not given. */
export function newPage(fields: Partial<CreatePageInput>): CreatePageInput {
  return CreatePageInput.fromPartial(fields);
}

export function pageChange(fields: Partial<UpdatePageInput> & { pageId: string }): UpdatePageInput {
  return UpdatePageInput.fromPartial(fields);
}

/** Opens a draft on the space's current revision, runs `edit`, commits moving the head. */
export async function commitEdits(
  clients: ContentClients,
  caller: Caller,
  spaceId: string,
  edit: (draftId: string) => Promise<unknown>,
  message = "edit",
): Promise<string> {
  const { draft } = await clients.editing.openDraft({ caller, spaceId, parentRevisionId: "", changeRequestId: "" });
  await edit(draft!.id);
  const committed = await clients.editing.commitDraft({ caller, draftId: draft!.id, message, moveHead: true, expectedHeadRevisionId: "" });
  return committed.revisionId;
}

export const contentRef = (spaceId: string, revisionId = "") => ({ spaceId, changeRequestId: "", revisionId });
export const readAll = { metadata: true, computed: true };
export const asDocument = { format: DocumentFormat.DOCUMENT_FORMAT_DOCUMENT, evaluated: false };
export const asMarkdown = { format: DocumentFormat.DOCUMENT_FORMAT_MARKDOWN, evaluated: false };

/** A minimal PNG header (signature + IHDR) of the given size. */
export function pngBytes(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write("IHDR", 12, "ascii");
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  bytes.writeUInt8(8, 24);
  bytes.writeUInt8(2, 25);
  return bytes;
}

