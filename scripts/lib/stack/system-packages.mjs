// Debian packages the stack and the tests need (nats-server, chromium), installed with apt-get when missing.
import { spawnSync } from "node:child_process";
import { infrastructureModule } from "./runtime-modules.mjs";

function commandExists(command) {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

/**
 * Makes sure nats-server can be started: on Debian/Ubuntu as root it is installed with apt-get
 * (refreshing the package lists only when the first attempt fails); elsewhere the install hint.
 */
export async function ensureNatsServer({ log = console.log } = {}) {
  const { findNatsServer, NATS_INSTALL_HINT } = await infrastructureModule();
  ensureDebianPackage({ name: "nats-server", found: () => findNatsServer() !== null, hint: NATS_INSTALL_HINT, log });
}

/** Debian's Chromium, for the reader's browser tests and the Lighthouse audit: installed as nats-server is. */
export async function ensureChromium({ log = console.log } = {}) {
  const { findChromium, CHROMIUM_INSTALL_HINT } = await infrastructureModule();
  ensureDebianPackage({ name: "chromium", found: () => findChromium() !== null, hint: CHROMIUM_INSTALL_HINT, log, noRecommends: true });
}

/** When `found()` is false: as root on Debian/Ubuntu, apt-get installs the package (updating the lists once if needed); else throws the hint. */
function ensureDebianPackage({ name, found, hint, log, noRecommends = false }) {
  if (found()) return;
  if (process.getuid?.() === 0 && commandExists("apt-get")) {
    log(`» ${name} is not installed: apt-get install -y ${name}`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const args = ["install", "-y", "-q", ...(noRecommends ? ["--no-install-recommends"] : []), name];
    const install = () => spawnSync("apt-get", args, { stdio: "inherit", env }).status === 0;
    if (!install()) {
      spawnSync("apt-get", ["update", "-q"], { stdio: "inherit", env });
      install();
    }
    if (found()) return;
  }
  throw new Error(hint);
}
