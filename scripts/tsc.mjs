#!/usr/bin/env node
// `tsc` for the workspaces' build and typecheck scripts: TypeScript 7 (native, about 3× faster on
// these machines: the gateway type-checks in 5 s instead of 15). The `typescript` package stays at
// 6.0 for typescript-eslint, whose typed rules need TypeScript's JavaScript API (peer range < 6.1);
// TypeScript 7 is installed beside it as `typescript-native`, whose `tsc` reads this process's argv.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const packageJson = createRequire(import.meta.url).resolve("typescript-native/package.json");
await import(pathToFileURL(join(dirname(packageJson), "lib", "tsc.js")).href);
