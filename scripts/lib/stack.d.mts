// Types of stack.mjs, for the TypeScript tests and the benchmark that use it.
import type { ChildProcess } from "node:child_process";

export interface ServiceEntry {
  name: string;
  database: string;
  bootstrap?: boolean;
  dataDir?: boolean;
}
export const SERVICES: readonly ServiceEntry[];
export const GATEWAY: { name: string };
export const READER: { name: string };
export const APP: { name: string };
export const ENTRYPOINT: string;
export type Hosting = "one-process" | "split";
export const HOSTINGS: readonly Hosting[];
export const ONE_PROCESS_NAME: string;
export function resolveHosting(env?: Record<string, string | undefined>): Hosting;
export const SHARED_HTTP_PORTS: boolean;
export const RATE_LIMITS_OUT_OF_REACH: Record<string, string>;
export function resolveReplicas(env?: Record<string, string | undefined>, hosting?: Hosting): number;
export function checkReplicas(replicas: number, hosting: Hosting): number;
export const HTTP_COPY_DRAIN_MS: number;
export const FORCE_KILL_AFTER_MS: number;
/** The V8 flags of a process of the stack that hosts `env.IMPRINT_TARGETS` (IMPRINT_NODE_FLAGS replaces them). */
export function serviceNodeFlags(env?: Record<string, string | undefined>): string[];
export function envName(service: { name: string }, suffix: string): string;
export function stackJsonKey(service: { name: string }): string;

export function generateTokenSecret(): string;
export function resolveBootstrapToken(dataDir: string, env?: Record<string, string | undefined>): Promise<{ token: string; source: string }>;
export function resolvePageTokenSecret(dataDir: string, env?: Record<string, string | undefined>): Promise<string>;
export function prepareDataDir(dataDir: string, options?: { embeddedPostgres?: boolean }): Promise<void>;
export function ensureNatsServer(options?: { log?: (message: string) => void }): Promise<void>;
export function ensureChromium(options?: { log?: (message: string) => void }): Promise<void>;

/** What the supervisor reports (startUnit): a death and its planned restart, a failed restart, a start, readiness. */
export type SupervisionEvent =
  | { type: "exited"; name: string; at: number; code: number | null; signal: string | null; restart: number; delayMs: number | null }
  | { type: "restart-failed"; name: string; at: number; restart: number; error: string; delayMs: number }
  | { type: "restarted"; name: string; at: number; restart: number; pid: number | undefined }
  | { type: "ready"; name: string; at: number; restart: number; afterMs: number };

export const RESTART_INITIAL_DELAY_MS: number;
export const RESTART_MAX_DELAY_MS: number;
export const RESTART_RESET_AFTER_MS: number;
export function restartDelayMs(crashesInARow: number): number;
export function describeExit(result: { code: number | null; signal: string | null }): string;
export function describeEvent(event: SupervisionEvent): string | null;
export function childPids(pid: number): number[];

/** One supervised process: restarted with backoff when it dies, until stop(). */
export interface SupervisedUnit {
  name: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  readonly restarts: number;
  on(listener: (event: SupervisionEvent) => void): () => void;
  /** Sends a signal to the current process (SIGKILL, SIGSTOP, SIGCONT, …). */
  signal(signal: NodeJS.Signals | string): void;
  /** No automatic restart until release(). */
  hold(): void;
  /** Restarts a held, dead process now. */
  release(): Promise<void>;
  /**
   * Puts a new process in the place of the running one, resolved once the new one is ready.
   * `surge`: the new one starts beside the old (a shared port), which stops only then.
   */
  replace(options?: { surge?: boolean; timeoutMs?: number }): Promise<ReplacedProcess>;
  kill(): void;
  stop(): Promise<unknown>;
}

/** One process replaced by a rolling restart. */
export interface ReplacedProcess {
  name: string;
  oldPid: number | undefined;
  newPid: number | undefined;
  /** When its replacement began (epoch ms). */
  startedAt: number;
  /** From the old one's stop (or the new one's start, with surge) until the new one was ready. */
  ms: number;
}

/** Runs one request at a time; a request during a run is queued, and later ones join it. */
export function oneAtATime<Args extends unknown[], T>(run: (...args: Args) => Promise<T>): {
  request(...args: Args): Promise<T>;
  readonly running: boolean;
  readonly queued: boolean;
};

/** What a supervised unit's `launch` resolves: one started process. */
export interface UnitHandle {
  pid: number | undefined;
  exited: Promise<{ code: number | null; signal: string | null }>;
  readonly running: boolean;
  signal(signal: string): void;
  stop(...args: unknown[]): Promise<unknown>;
}
export function startUnit(options: {
  name: string;
  launch: (previous: UnitHandle | null) => Promise<UnitHandle>;
  probe?: (handle: UnitHandle) => Promise<boolean>;
  onEvent?: (event: SupervisionEvent) => void;
  mayRestart?: (result: { code: number | null; signal: string | null }) => boolean;
}): Promise<SupervisedUnit>;

export interface Infrastructure {
  databaseUrls: Record<string, string>;
  natsUrl: string;
  /** The PostgreSQL and nats-server started here (absent when given by URL). */
  units: { postgres?: SupervisedUnit; nats?: SupervisedUnit };
  stop(): Promise<void>;
}
export function startInfrastructure(options: {
  dataDir: string;
  persistent: boolean;
  natsUrl?: string;
  databaseUrls?: Record<string, string>;
  postgresPort?: number;
  onLog?: (source: string, line: string) => void;
  onEvent?: (event: SupervisionEvent) => void;
}): Promise<Infrastructure>;

/** One spawned Node process (spawnNodeProcess). */
export interface ProcessHandle {
  name: string;
  child: ChildProcess;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** The process said (over IPC) that every target it hosts has started. */
  readonly reportedReady: boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  lastLines(): string[];
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
  signal(signal: NodeJS.Signals): void;
}

/** A supervised Node process of the stack: its current child's pid, output and exit. */
export interface StackProcess extends SupervisedUnit {
  /** The target it hosts (one-process: "imprint"). */
  readonly target: string;
  /** Which copy of the target, 1…replicas. */
  readonly copy: number;
  /** Whether a replacement starts beside it (copies sharing an HTTP port). */
  readonly surge: boolean;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  lastLines(): string[];
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}
export function spawnNodeProcess(options: {
  name: string;
  entry: string;
  env: Record<string, string | undefined>;
  onLine?: (line: string) => void;
}): ProcessHandle;

export function isGatewayReady(gatewayUrl: string): Promise<boolean>;
export function isReaderReady(readerUrl: string): Promise<boolean>;

export class StackStartError extends Error {
  processName: string | undefined;
  lastLines: string[];
}

export class RollingRestartError extends Error {
  processName: string | undefined;
  /** The processes replaced before it stopped. */
  steps: ReplacedProcess[];
  lastLines: string[];
}

/** What a rolling restart reports as it goes. */
export type RestartStep =
  | { type: "started"; names: string[] }
  | { type: "replacing"; name: string }
  | ({ type: "replaced" } & ReplacedProcess);

export interface Stack {
  hosting: Hosting;
  /** Copies of every target (split hosting; 1 otherwise). */
  replicas: number;
  gatewayUrl: string;
  readerUrl: string;
  /** Where the app listens itself (the gateway forwards the app's paths there: people use gatewayUrl). */
  appUrl: string;
  grpcAddresses: Record<string, string>;
  /** Where each process serves /metrics, by process name (split: each service copy, "reader", "gateway"; one process: "imprint"). */
  metricsUrls: Record<string, string>;
  /** Node processes, supervised once the stack is ready (a restart keeps the ports and data). */
  processes: StackProcess[];
  /** Every supervised process by name: the processes, and postgres / nats when started here. */
  units: Record<string, SupervisedUnit>;
  infra: Infrastructure;
  /** The environment the stack gives a process hosting `targets` (e.g. "gateway"), with `extra` on top. */
  processEnv(targets: string, extra?: Record<string, string>): Record<string, string | undefined>;
  /** Called for each process that dies after the stack was ready (it is restarted all the same). */
  onUnexpectedExit(callback: (error: StackStartError) => void): void;
  onEvent(listener: (event: SupervisionEvent) => void): () => void;
  /**
   * Replaces every Node process, one at a time (services' copies stopped then started on their
   * port; the gateway's and the reader's started beside the old copy first). Asked while one runs,
   * it runs once more after it (the promise of that one). Rejects with a RollingRestartError.
   * `onStep` may return a promise for a "replacing" step: the process is replaced once it settles.
   */
  restart(options?: { onStep?: (step: RestartStep) => unknown }): Promise<{ steps: ReplacedProcess[]; startedAt: number; ms: number }>;
  readonly restarting: boolean;
  readonly restartQueued: boolean;
  stop(): Promise<void>;
}
export function startStack(options: {
  dataDir: string;
  persistent: boolean;
  env?: Record<string, string | undefined>;
  hosting?: Hosting;
  replicas?: number;
  /** Copies of some targets, overriding `replicas` for them (split hosting), e.g. `{ identity: 2 }`. */
  copiesOf?: Record<string, number>;
  gatewayPort?: number;
  readerPort?: number;
  /** The app's port (0 or unset = a free port). */
  appPort?: number;
  gatewayHost?: string;
  servicePorts?: Record<string, number>;
  natsUrl?: string;
  databaseUrls?: Record<string, string>;
  postgresPort?: number;
  bootstrap?: { token: string; email?: string; orgTitle?: string };
  pageTokenSecret?: string;
  onLog?: (source: string, line: string) => void;
  onEvent?: (event: SupervisionEvent) => void;
  readyTimeoutMs?: number;
}): Promise<Stack>;

export function stackDescription(stack: Stack, pid?: number): Record<string, string | number | Record<string, number | undefined>>;
export function writeFileAtomically(file: string, text: string): Promise<void>;
/** Whether a process with this pid exists (EPERM: it does, owned by another user). */
export function isAlive(pid: number): boolean;
export function writeStackJson(dataDir: string, stack: Stack): Promise<string>;
export function removeStackJson(dataDir: string): Promise<void>;
