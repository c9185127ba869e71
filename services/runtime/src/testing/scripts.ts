import { execFile } from "node:child_process";

/** How a script run ended. */
export interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ScriptOptions {
  /** Over this process's environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
}

/** Runs a compiled Node script (an admin CLI, …) the way an operator does: a process of its own. */
export function runNodeScript(script: string, args: readonly string[], options: ScriptOptions = {}): Promise<ScriptResult> {
  const env = { ...process.env, ...options.env };
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { env, cwd: options.cwd, timeout: options.timeoutMs ?? 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Runs a script that prints one JSON object; rejects with its stderr when it fails. */
export async function runNodeScriptJson<T = Record<string, unknown>>(script: string, args: readonly string[], options: ScriptOptions = {}): Promise<T> {
  const result = await runNodeScript(script, args, options);
  if (result.code !== 0) throw new Error(`${script} failed (exit ${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
