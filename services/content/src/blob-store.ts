import { createHash, randomBytes } from "node:crypto";
import { isPermissionError } from "@imprint/runtime";
import { constants } from "node:fs";
import { access, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

/**
 * Where file bytes live. Blobs are content-addressed (SHA-256 of the bytes, hex), so storing the
 * same bytes twice keeps one copy and a duplicated space shares its files' bytes. Two backends:
 * a directory (FileSystemBlobStore, the default) and an S3-compatible bucket (S3BlobStore), which
 * lets content run several replicas without a ReadWriteMany volume.
 */
export interface BlobStore {
  /** Stores the bytes (no-op when already present) and answers their key. */
  put(bytes: Uint8Array): Promise<{ key: string; size: number }>;
  /** The bytes under `key`, or undefined when there is no such blob. */
  get(key: string): Promise<Buffer | undefined>;
  has(key: string): Promise<boolean>;
  /** Removes the blob; succeeds when it is already gone. */
  delete(key: string): Promise<void>;
}

/** A blob key: the SHA-256 of its bytes in hex. Stores build paths and object names from nothing else. */
export const BLOB_KEY = /^[0-9a-f]{64}$/;

/** Blobs as files under `root`, fanned out by the first two hex digits. */
export class FileSystemBlobStore implements BlobStore {
  readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    // Keys come from our own rows, but a path must never be built from anything else.
    if (!BLOB_KEY.test(key)) throw new Error(`not a blob key: ${key}`);
    return join(this.root, key.slice(0, 2), key);
  }

  async put(bytes: Uint8Array): Promise<{ key: string; size: number }> {
    const key = createHash("sha256").update(bytes).digest("hex");
    const path = this.pathOf(key);
    if (!(await this.has(key))) {
      await mkdir(dirname(path), { recursive: true });
      // Write then rename: a reader never sees a half-written blob, and concurrent writers of the
      // same bytes both end with the same complete file.
      const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(temporary, bytes);
      await rename(temporary, path);
    }
    return { key, size: bytes.byteLength };
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /** Creates the directory and checks it is writable, so a wrong setting stops the start, not the first upload. */
  async prepare(): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true });
      await access(this.root, constants.W_OK);
    } catch (error) {
      if (!isPermissionError(error)) throw error;
      throw new Error(
        `the content service cannot write its blob directory ${this.root} (${(error as NodeJS.ErrnoException).code}): make it writable, or set CONTENT_BLOB_DIR (default <IMPRINT_DATA_DIR>/content-blobs) to a directory that is`,
        { cause: error },
      );
    }
  }
}
