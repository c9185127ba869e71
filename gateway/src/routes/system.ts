import { readFileSync, statSync } from "node:fs";
import { defineRoute, ok, type Route } from "../route.js";

const packageUrl = new URL("../../package.json", import.meta.url);

/**
 * GitBook's API information: `version` is the release of the gateway's package (Imprint's release),
 * `build` when this code was built (its compiled file's time), read once.
 */
function readApiInformation(): { version: string; build: string } {
  const { version } = JSON.parse(readFileSync(packageUrl, "utf8")) as { version: string };
  return { version, build: statSync(new URL(import.meta.url)).mtime.toISOString() };
}

export function systemRoutes(): Route[] {
  const information = readApiInformation();
  return [
    // getApiInformation
    defineRoute({
      method: "GET",
      path: "/v1/",
      handler: async () => ok(information),
    }),
  ];
}
