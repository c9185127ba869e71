import { AppError } from "@imprint/runtime";
import { GitFailure, networkError, type GitNetwork, type GitWorkspace } from "./git-cli.js";
import type { GitLimits } from "../domain/limits.js";

/** One blob of a tree. */
export interface TreeEntry {
  path: string;
  oid: string;
  size: number;
  mode: string;
}

export interface FetchedCommit {
  oid: string;
  message: string;
  tree: TreeEntry[];
}

/** The oid the remote ref points at, or undefined when the remote has no such ref (an empty repository). */
export async function remoteHead(workspace: GitWorkspace, network: GitNetwork, ref: string, limits: GitLimits): Promise<string | undefined> {
  try {
    const out = await workspace.run(["ls-remote", "--refs", "--", network.remote.url.toString(), ref], { network, maxOutputBytes: 1024 * 1024 });
    for (const line of out.toString("utf8").split("\n")) {
      const [oid, name] = line.split("\t");
      if (oid && name === ref) return oid;
    }
    return undefined;
  } catch (error) {
    throw networkError(error, limits);
  }
}

/** Fetches the ref (history depth 1) into the workspace; answers the commit's oid. */
export async function fetchRef(workspace: GitWorkspace, network: GitNetwork, ref: string, limits: GitLimits): Promise<string> {
  try {
    await workspace.run(
      ["fetch", "--quiet", "--depth=1", "--no-tags", "--no-write-fetch-head", "--", network.remote.url.toString(), `+${ref}:refs/imprint/fetched`],
      {
        network,
        maxObjectBytes: limits.maxRepositoryBytes,
      },
    );
  } catch (error) {
    throw networkError(error, limits);
  }
  return (await workspace.run(["rev-parse", "refs/imprint/fetched^{commit}"])).toString("utf8").trim();
}

/** Who exports write commits as (Imprint's commits are recognised by it on import). */
export const EXPORT_AUTHOR = { name: "Imprint", email: "imprint@localhost" } as const;

/** A commit's message, and whether an export made it (its committer is EXPORT_AUTHOR). */
export async function readCommit(workspace: GitWorkspace, oid: string): Promise<{ message: string; byService: boolean }> {
  const text = (await workspace.run(["cat-file", "commit", oid])).toString("utf8");
  const blank = text.indexOf("\n\n");
  const headers = blank < 0 ? text : text.slice(0, blank);
  const byService = headers.split("\n").some((line) => line.startsWith(`committer ${EXPORT_AUTHOR.name} <${EXPORT_AUTHOR.email}> `));
  return { message: blank < 0 ? "" : text.slice(blank + 2).replace(/\n+$/, ""), byService };
}

const tooManyFiles = (limits: GitLimits) => new AppError("payload_too_large", `repository: more than ${limits.maxFiles} files (GIT_MAX_FILES)`);

/**
 * Every blob of the commit's tree (recursive), with sizes; bounded by the file-count limit. The
 * listing itself is cut short past it (blobs, links and submodules alike, twice the limit): a small
 * pack can hold a tree naming one subtree many times over, whose listing would never end.
 */
export async function readTree(workspace: GitWorkspace, oid: string, limits: GitLimits): Promise<TreeEntry[]> {
  let out: Buffer;
  try {
    out = await workspace.run(["ls-tree", "-r", "-l", "-z", "--full-tree", oid], { maxOutputRecords: 2 * limits.maxFiles + 1 });
  } catch (error) {
    if (error instanceof GitFailure && error.reason === "output_too_large") throw tooManyFiles(limits);
    throw error;
  }
  const entries: TreeEntry[] = [];
  for (const record of out.toString("utf8").split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const [mode, type, blobOid, size] = record.slice(0, tab).split(/\s+/);
    if (type !== "blob" || !mode || !blobOid) continue;
    entries.push({ path: record.slice(tab + 1), oid: blobOid, size: Number(size), mode });
    if (entries.length > limits.maxFiles) throw tooManyFiles(limits);
  }
  return entries;
}

/**
 * Reads blobs by oid in one `cat-file --batch`, at most `limits.maxRepositoryBytes` of them in all:
 * the repository's bound applies to what its objects inflate to, or a small pack of compressible
 * blobs would fill memory.
 */
export async function readBlobs(workspace: GitWorkspace, oids: readonly string[], limits: Pick<GitLimits, "maxRepositoryBytes">): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)];
  const blobs = new Map<string, Buffer>();
  if (unique.length === 0) return blobs;
  let out: Buffer;
  try {
    // Each blob's header line ("<oid> blob <size>") and newline on top of its bytes.
    out = await workspace.run(["cat-file", "--batch"], { input: `${unique.join("\n")}\n`, maxOutputBytes: limits.maxRepositoryBytes + unique.length * 128 });
  } catch (error) {
    if (error instanceof GitFailure && error.reason === "output_too_large") {
      throw new AppError("payload_too_large", `repository: its files inflate past the limit of ${limits.maxRepositoryBytes} bytes (GIT_MAX_REPOSITORY_BYTES)`);
    }
    throw error;
  }
  let offset = 0;
  while (offset < out.length) {
    const newline = out.indexOf(10, offset);
    if (newline < 0) break;
    const header = out.subarray(offset, newline).toString("utf8");
    const [oid, type, size] = header.split(" ");
    offset = newline + 1;
    if (type === "missing" || !oid) continue;
    const length = Number(size);
    blobs.set(oid, out.subarray(offset, offset + length));
    offset += length + 1;
  }
  return blobs;
}

/** One file of a commit to write. */
export interface FileToWrite {
  path: string;
  content: Buffer;
}

/**
 * Writes a commit with exactly `files` under `directory` (everything else of the parent's tree
 * kept) on top of `parent` (none: a root commit) through `git fast-import`; answers its oid and
 * whether its tree differs from the parent's. Unchanged files keep their blob oids (same bytes).
 */
export async function writeCommit(
  workspace: GitWorkspace,
  input: { parent: string | undefined; directory: string; files: FileToWrite[]; message: string; author: { name: string; email: string }; now: Date },
): Promise<{ oid: string; changed: boolean }> {
  const chunks: Buffer[] = [];
  const text = (value: string) => chunks.push(Buffer.from(value, "utf8"));
  const data = (bytes: Buffer) => {
    text(`data ${bytes.length}\n`);
    chunks.push(bytes);
    text("\n");
  };
  const seconds = Math.floor(input.now.getTime() / 1000);
  const ident = (person: { name: string; email: string }) => `${person.name.replace(/[<>\n]/g, "")} <${person.email.replace(/[<>\n]/g, "")}> ${seconds} +0000`;
  text("commit refs/imprint/export\n");
  // The committer is always Imprint (how an import tells an export's commits); the author is who made the change.
  text(`author ${ident(input.author)}\ncommitter ${ident(EXPORT_AUTHOR)}\n`);
  data(Buffer.from(input.message, "utf8"));
  if (input.parent) text(`from ${input.parent}\n`);
  if (input.directory === "") text("deleteall\n");
  else if (input.parent) text(`D ${quotePath(input.directory)}\n`);
  const prefix = input.directory === "" ? "" : `${input.directory}/`;
  for (const file of input.files) {
    text(`M 100644 inline ${quotePath(prefix + file.path)}\n`);
    data(file.content);
  }
  text("done\n");
  await workspace.run(["fast-import", "--quiet", "--done", "--force"], { input: Buffer.concat(chunks) });
  const oid = (await workspace.run(["rev-parse", "refs/imprint/export"])).toString("utf8").trim();
  if (!input.parent) return { oid, changed: true };
  const trees = (await workspace.run(["rev-parse", `${oid}^{tree}`, `${input.parent}^{tree}`])).toString("utf8").trim().split("\n");
  return { oid, changed: trees[0] !== trees[1] };
}

/** A path for fast-import: C-style quoted when it has characters that need it. */
function quotePath(path: string): string {
  if (!/["\\\n]/.test(path) && !path.startsWith('"')) return path;
  return `"${path.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

/**
 * Pushes the commit to the ref without force. A remote that moved meanwhile (non-fast-forward)
 * answers conflict: its commits are never overwritten.
 */
export async function pushCommit(workspace: GitWorkspace, network: GitNetwork, oid: string, ref: string, limits: GitLimits): Promise<void> {
  try {
    await workspace.run(["push", "--", network.remote.url.toString(), `${oid}:${ref}`], { network });
  } catch (error) {
    if (error instanceof GitFailure && error.reason === "exit" && /rejected|non-fast-forward|fetch first|stale info/i.test(error.stderr)) {
      throw AppError.conflict("The repository's ref moved while exporting; import it first, then export again");
    }
    throw networkError(error, limits);
  }
}
