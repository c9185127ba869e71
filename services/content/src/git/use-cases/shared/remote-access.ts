import { AppError, type CallerInput } from "@imprint/runtime";
import { GitWorkspace, type GitNetwork } from "../../store/git-cli.js";
import { parseGitRef, parseProjectDirectory, parseRemote, pinnedResolve, type GitRemote } from "../../domain/remote.js";
import type { GitDeps } from "../../../deps.js";

/** A validated import or export request: the remote (credentials split off), the ref and the folder. */
export interface RemoteRequest {
  caller: CallerInput;
  spaceId: string;
  remote: GitRemote;
  ref: string;
  directory: string;
}

export function parseRemoteRequest(
  caller: CallerInput,
  input: { spaceId: string | undefined; url: string; gitRef: string; projectDirectory: string },
  deps: Pick<GitDeps, "allowHttp">,
): RemoteRequest {
  if (!input.spaceId) throw AppError.invalidArgument("space_id: is required");
  return {
    caller,
    spaceId: input.spaceId,
    remote: parseRemote(input.url, { allowHttp: deps.allowHttp }),
    ref: parseGitRef(input.gitRef),
    directory: parseProjectDirectory(input.projectDirectory),
  };
}

/**
 * Runs `work` in a temporary repository whose network commands go to the remote's checked address
 * only; the repository is removed afterwards whatever happens.
 */
export async function withRemote<T>(request: RemoteRequest, deps: GitDeps, work: (workspace: GitWorkspace, network: GitNetwork) => Promise<T>): Promise<T> {
  const resolve = await pinnedResolve(request.remote, deps.fetchPolicy);
  const workspace = await GitWorkspace.open(deps.gitBinary, deps.limits.maxDurationMs);
  try {
    return await work(workspace, { remote: request.remote, resolve, allowHttp: deps.allowHttp });
  } finally {
    await workspace.dispose();
  }
}

/** `abc1234` for messages. */
export const shortOid = (oid: string) => oid.slice(0, 7);
