import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import type { ServiceRegistration } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import { BRANCH_SERVICE_NAME, branchServiceImplementation } from "./grpc/branch-service.js";
import type { RevisionDeps } from "../../deps.js";

/**
 * Branches of a space's history for change requests (docs/revisions.md § Branches): created,
 * read, merged into the space and updated from it here; edited through the editing API (drafts
 * opened on the branch) and read through every content read (ContentRef.change_request_id).
 */

export { BRANCH_SERVICE_NAME };
export { Branch } from "./entities.js";

/** The gRPC service of branches (BranchService). */
export function branchGrpcServices(orm: MikroORM, revision: RevisionDeps): ServiceRegistration[] {
  return [{ name: BRANCH_SERVICE_NAME, definition: BranchServiceService, implementation: branchServiceImplementation(orm, revision) }] as ServiceRegistration[];
}
