// Copies of the gateway and of the reader share their port (SO_REUSEPORT). When a rolling restart
// stops an old copy, the connections the kernel had queued on its listener but the process had not
// accepted yet are reset, unless net.ipv4.tcp_migrate_req hands them to another listener of the port
// (Linux 5.14 and later): under load a restart then loses a request now and then (ECONNRESET).
import { readFileSync, writeFileSync } from "node:fs";

const SETTING = "/proc/sys/net/ipv4/tcp_migrate_req";

/**
 * Turns the hand-over on where the launcher may (root); says what it found. "on": already on or
 * turned on now; "unsupported": no such setting (another OS, an older kernel); "off": not allowed
 * to change it (then `hint` says how).
 */
export function ensureListenerHandover() {
  let value;
  try {
    value = readFileSync(SETTING, "utf8").trim();
  } catch {
    return { state: "unsupported" };
  }
  if (value === "1") return { state: "on", changed: false };
  try {
    writeFileSync(SETTING, "1");
    return { state: "on", changed: true };
  } catch {
    return { state: "off", hint: "sysctl -w net.ipv4.tcp_migrate_req=1 (as root) lets a rolling restart hand queued connections to the new copy" };
  }
}
