// `buf breaking` for the gRPC contracts: compares proto/ with the protos of the `main` branch, or,
// on `main` itself, with the previous commit. Skipped (with a message) only when no earlier commit
// has protos to compare with. A deliberate break is recorded in proto/BREAKING.md: when a commit
// after the baseline changed that file, proto/ is compared with the last such commit instead, so
// the recorded break passes and any later one still fails.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./lib/setup.mjs";

const BREAK_LOG = "proto/BREAKING.md";

const git = (...args) => {
  const result = spawnSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : null;
};
const hasProtos = (commit) => git("cat-file", "-e", `${commit}:proto/imprint`) !== null;

function baseline() {
  if (git("rev-parse", "--git-dir") === null) return { skip: "not a git checkout" };
  const branch = git("rev-parse", "--abbrev-ref", "HEAD");
  if (branch !== "main") {
    // A local `main`, else the remote-tracking one (CI clones often have only origin/main).
    for (const ref of ["main", "origin/main"]) {
      const commit = git("rev-parse", "--verify", "--quiet", `${ref}^{commit}`);
      if (commit && hasProtos(commit)) return { commit, label: ref };
    }
  }
  const previous = git("rev-parse", "--verify", "--quiet", "HEAD~1^{commit}");
  if (previous && hasProtos(previous)) return { commit: previous, label: "HEAD~1" };
  return { skip: branch === "main" ? "main has no earlier commit with protos" : "no main branch with protos to compare with" };
}

/**
 * The commit that last changed the break log among those HEAD has and the baseline has not (a
 * merge into main reaches the branch's commits through the merged parent); undefined when none did.
 */
function recordedBreak(baselineCommit) {
  const commit = git("log", "-1", "--format=%H", `${baselineCommit}..HEAD`, "--", BREAK_LOG);
  return commit && hasProtos(commit) ? commit : undefined;
}

let against = baseline();
if (against.skip) {
  console.log(`buf breaking: skipped (${against.skip})`);
  process.exit(0);
}
const recorded = recordedBreak(against.commit);
if (recorded) {
  console.log(`buf breaking: ${BREAK_LOG} changed since ${against.label}: breaks up to its commit ${recorded.slice(0, 12)} are recorded as deliberate`);
  against = { commit: recorded, label: `${BREAK_LOG}'s last change` };
}
if (git("diff", "--quiet", "HEAD", "--", BREAK_LOG) === null) {
  console.log(`buf breaking: ${BREAK_LOG} has uncommitted changes; an entry counts once committed`);
}
console.log(`buf breaking: proto/ against ${against.label} (${against.commit.slice(0, 12)})`);
const result = spawnSync(join(REPO_ROOT, "node_modules", ".bin", "buf"), ["breaking", "proto", "--against", `.git#ref=${against.commit},subdir=proto`], {
  cwd: REPO_ROOT,
  stdio: "inherit",
});
if (result.error) console.error(`could not run buf: ${result.error.message}`);
process.exit(result.status ?? 1);
