/** Clients and test data shared by the revision store's tests. */
import { CreatePageInput, EditingServiceService, type UpdatePageInput } from "@imprint/proto/content/v1/editing";
import { DocumentFormat, RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import type { PromiseClient } from "@imprint/runtime";
import { pageUpdate, testClient } from "@imprint/runtime/testing";
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

/** An UpdatePageInput changing exactly the fields given (named in its update mask). */
export function pageChange(fields: Partial<UpdatePageInput> & { pageId: string }): UpdatePageInput {
  return pageUpdate(fields);
}

export const contentRef = (spaceId: string, revisionId = "") => ({ spaceId, changeRequestId: "", revisionId });
export const readAll = { metadata: true, computed: true };
export const asDocument = { format: DocumentFormat.DOCUMENT_FORMAT_DOCUMENT, evaluated: false };
export const asMarkdown = { format: DocumentFormat.DOCUMENT_FORMAT_MARKDOWN, evaluated: false };
